//! The shape of chunks in any language: ids, context headers, size splits, scopes, syntax errors.

use std::fmt::Write as _;

use super::*;

const AUTH_SERVICE: &str = r#"export class AuthService {
  private jwtSecret: string;

  constructor(secret: string) {
    this.jwtSecret = secret;
  }

  async authenticate(token: string): Promise<User> {
    const decoded = jwt.verify(token, this.jwtSecret);
    return this.findUser(decoded.sub);
  }

  private async findUser(id: string): Promise<User> {
    return db.users.findUnique({ where: { id } });
  }
}
"#;

#[test]
fn seed_auth_service() {
    let file = chunk_source(
        "auth.ts",
        Language::TypeScript,
        AUTH_SERVICE,
        &ChunkOptions::default(),
    );
    let ids: Vec<&str> = file.chunks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "auth.ts::AuthService::class",
            "auth.ts::AuthService.authenticate",
            "auth.ts::AuthService.findUser"
        ]
    );
    let class = &file.chunks[0];
    assert_eq!(class.kind, "class");
    assert_eq!((class.start_line, class.end_line), (1, 16));
    assert_eq!(class.header, "// Context: class AuthService (auth.ts)\n");
    assert!(class.code.starts_with(
        "export class AuthService {\n  private jwtSecret: string;\n  constructor(secret: string) {\n    this.jwtSecret = secret;\n  }\n"
    ));
    assert!(class.code.ends_with("\n}"));
    let authenticate = &file.chunks[1];
    assert_eq!(authenticate.kind, "method");
    assert_eq!(authenticate.symbol, "authenticate");
    assert_eq!(authenticate.fqn, "AuthService.authenticate");
    assert_eq!((authenticate.start_line, authenticate.end_line), (8, 11));
    assert_eq!(
        authenticate.text,
        "// Context: class AuthService (auth.ts)\nasync authenticate(token: string): Promise<User> {\n  const decoded = jwt.verify(token, this.jwtSecret);\n  return this.findUser(decoded.sub);\n}"
    );
    assert_eq!(
        file.chunks[2].code,
        "private async findUser(id: string): Promise<User> {\n  return db.users.findUnique({ where: { id } });\n}"
    );
}

#[test]
fn seed_headers() {
    let python = "class UserView(View):\n    @login_required\n    @cache_response(60)\n    def get_user(self, request, user_id):\n        return User.objects.get(id=user_id)\n";
    let file = chunk_source(
        "views/user.py",
        Language::Python,
        python,
        &ChunkOptions::default(),
    );
    let method = file.chunks.iter().find(|c| c.symbol == "get_user").unwrap();
    assert_eq!(
        method.header,
        "# Context: class UserView (views/user.py)\n# @login_required @cache_response(60)\n"
    );
    assert_eq!(method.start_line, 2, "decorators belong to the method");

    let go = "package auth\n\nfunc Authenticate(token string) error {\n\treturn nil\n}\n";
    let file = chunk_source(
        "auth/handler.go",
        Language::Go,
        go,
        &ChunkOptions::default(),
    );
    let function = file
        .chunks
        .iter()
        .find(|c| c.symbol == "Authenticate")
        .unwrap();
    assert_eq!(
        function.header,
        "// Context: package auth > func Authenticate (auth/handler.go)\n"
    );
    assert_eq!(function.id, "auth/handler.go::auth.Authenticate");

    let rust = "impl UserService {\n    #[instrument]\n    #[cached(time=60)]\n    pub async fn get_user(&self, id: &str) -> Result<User, Error> {\n        self.repo.find_by_id(id).await\n    }\n}\n";
    let file = chunk_source(
        "services/user.rs",
        Language::Rust,
        rust,
        &ChunkOptions::default(),
    );
    let method = file.chunks.iter().find(|c| c.symbol == "get_user").unwrap();
    assert_eq!(
        method.header,
        "// Context: impl UserService (services/user.rs)\n// #[instrument] #[cached(time=60)]\n"
    );

    let csharp = "class UserController {\n    [Authorize]\n    [HttpGet(\"{id}\")]\n    public User Get(string id) { return null; }\n}\n";
    let file = chunk_source(
        "UserController.cs",
        Language::CSharp,
        csharp,
        &ChunkOptions::default(),
    );
    let method = file.chunks.iter().find(|c| c.symbol == "Get").unwrap();
    assert!(
        method
            .header
            .ends_with("// [Authorize] [HttpGet(\"{id}\")]\n"),
        "{}",
        method.header
    );

    let typescript =
        "export module auth {\n  export class UserService {\n    find() { return 1; }\n  }\n}\n";
    let file = chunk_source(
        "services/user.ts",
        Language::TypeScript,
        typescript,
        &ChunkOptions::default(),
    );
    let method = file.chunks.iter().find(|c| c.symbol == "find").unwrap();
    assert_eq!(
        method.header,
        "// Context: class UserService > module auth (services/user.ts)\n"
    );
    assert_eq!(method.id, "services/user.ts::auth.UserService.find");
}

#[test]
fn ids_survive_unrelated_edits() {
    let before = "import os\n\n\ndef first():\n    return 1\n\n\nclass Box:\n    def open(self):\n        return os.getcwd()\n";
    let after = "import os\nimport sys\n\nLIMIT = 3\n\n\ndef added():\n    pass\n\n\ndef first():\n    return 1\n\n\nclass Box:\n    size = 2\n\n    def open(self):\n        return os.getcwd()\n";
    let options = ChunkOptions::default();
    let old = chunk_source("a.py", Language::Python, before, &options);
    let new = chunk_source("a.py", Language::Python, after, &options);
    for id in ["a.py::first", "a.py::Box.open", "a.py::Box::class"] {
        let old_chunk = old.chunks.iter().find(|c| c.id == id).unwrap();
        let new_chunk = new.chunks.iter().find(|c| c.id == id).unwrap();
        if !id.ends_with("::class") {
            assert_eq!(old_chunk.text, new_chunk.text);
        }
    }
    // Same input, same output.
    assert_eq!(
        old.chunks,
        chunk_source("a.py", Language::Python, before, &options).chunks
    );
}

#[test]
fn same_name_siblings_are_numbered_in_source_order() {
    let java = "class A {\n  int f(int a) { return a; }\n  int f(String s) { return 0; }\n  int f() { return 1; }\n}\n";
    let file = chunk_source("A.java", Language::Java, java, &ChunkOptions::default());
    let ids: Vec<(&str, u32)> = file
        .chunks
        .iter()
        .filter(|c| c.symbol == "f")
        .map(|c| (c.id.as_str(), c.start_line))
        .collect();
    assert_eq!(
        ids,
        [
            ("A.java::A.f", 2),
            ("A.java::A.f#2", 3),
            ("A.java::A.f#3", 4)
        ]
    );

    let python = "def f():\n    pass\n\ndef f():\n    return 2\n";
    let file = chunk_source("b.py", Language::Python, python, &ChunkOptions::default());
    let ids: Vec<&str> = file.chunks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["b.py::f", "b.py::f#2"]);
}

#[test]
fn oversized_symbols_split_at_statements() {
    let mut python = String::from("class Big:\n    def run(self, items):\n        total = 0\n");
    for i in 0..120 {
        write!(
            python,
            "        if items[{i}] > {i}:\n            total += items[{i}] * {i}\n"
        )
        .unwrap();
    }
    python.push_str("        return total\n");
    let options = ChunkOptions {
        max_chars: 1000,
        ..ChunkOptions::default()
    };
    let file = chunk_source("big.py", Language::Python, &python, &options);
    assert_well_formed(&file, &python, 1000);
    let parts: Vec<&Chunk> = file.chunks.iter().filter(|c| c.symbol == "run").collect();
    assert!(parts.len() > 3, "{} parts", parts.len());
    let total = parts.len();
    for (k, part) in parts.iter().enumerate() {
        let expected = if k == 0 {
            "big.py::Big.run".to_string()
        } else {
            format!("big.py::Big.run#part{}", k + 1)
        };
        assert_eq!(part.id, expected);
        assert_eq!(part.kind, "method");
        assert!(part.header.contains(&format!(
            "# def run(self, items): (part {}/{total})\n",
            k + 1
        )));
        // Cut at statements: every part after the first starts with an `if`.
        if k > 0 {
            assert!(
                part.code.trim_start().starts_with("if items["),
                "{}",
                part.code
            );
            assert_eq!(part.start_line, parts[k - 1].end_line + 1);
        }
    }
    assert_eq!(parts[0].start_line, 2);
    assert_eq!(parts[total - 1].end_line, 244);
    assert!(parts[total - 1].code.ends_with("return total"));
}

#[test]
fn oversized_statement_splits_at_lines_then_chars() {
    let mut js = String::from("function table() {\n  return [\n");
    for i in 0..400 {
        writeln!(js, "    {i},").unwrap();
    }
    js.push_str("  ];\n}\n");
    let file = chunk_source(
        "t.js",
        Language::JavaScript,
        &js,
        &ChunkOptions {
            max_chars: 500,
            ..ChunkOptions::default()
        },
    );
    assert_well_formed(&file, &js, 500);
    assert!(file.chunks.len() > 4);

    let line = format!("const data = [{}];\n", "1234567, ".repeat(2000));
    let file = chunk_source(
        "d.js",
        Language::JavaScript,
        &line,
        &ChunkOptions {
            max_chars: 800,
            ..ChunkOptions::default()
        },
    );
    assert_well_formed(&file, &line, 800);
    let joined: String = file.chunks.iter().map(|c| c.code.as_str()).collect();
    assert_eq!(
        joined.len(),
        line.trim_end().len(),
        "nothing lost or repeated"
    );
}

#[test]
fn text_the_tree_leaves_outside_its_nodes_stays_in_chunks() {
    // A namespace's opening line handed to a looked-through member (`class << self`).
    let ruby = "module FactoryBot\n  class << self\n    attr_accessor :paths\n  end\n\n  def self.find\n    paths\n  end\nend\n";
    // An ERROR node whose words are in no child (`CLUSTER vaccluster;`).
    let sql = "CREATE TABLE t (i INT PRIMARY KEY);\nALTER TABLE t CLUSTER ON t_pkey;\nCLUSTER t;\n\nSELECT 1;\n";
    for (path, language, source, expected) in [
        ("f.rb", Language::Ruby, ruby, "module FactoryBot"),
        ("v.sql", Language::Sql, sql, "CLUSTER t;"),
    ] {
        let file = chunk_source(path, language, source, &ChunkOptions::default());
        assert_well_formed(&file, source, 3500);
        assert!(
            file.chunks.iter().any(|c| c.code.contains(expected)),
            "{path}: {expected:?} in no chunk"
        );
    }
}

#[test]
fn syntax_errors_are_reported_and_chunks_still_produced() {
    let source =
        "def ok():\n    return 1\n\ndef broken(:\n    return )\n\ndef after():\n    return 3\n";
    let file = chunk_source("e.py", Language::Python, source, &ChunkOptions::default());
    assert!(!file.syntax_errors.is_empty());
    assert!(
        file.syntax_errors[0].starts_with("line 4: "),
        "{:?}",
        file.syntax_errors
    );
    let symbols: Vec<&str> = file.chunks.iter().map(|c| c.symbol.as_str()).collect();
    assert!(
        symbols.contains(&"ok") && symbols.contains(&"after"),
        "{symbols:?}"
    );
    assert_well_formed(&file, source, 3500);
}

#[test]
fn definitions_inside_conditionals_are_chunks_in_the_scope_around_them() {
    let cases: &[(&str, Language, &str, &[&str])] = &[
        (
            "compat.py",
            Language::Python,
            "import sys\n\nif sys.version_info >= (3, 8):\n    def cached(f):\n        return f\n\
             else:\n    def cached(f):\n        return None\n\ntry:\n    from fast import speedup\n\
             except ImportError:\n    def speedup(x):\n        return x\n",
            &["cached", "cached", "speedup"],
        ),
        (
            "compat.rb",
            Language::Ruby,
            "module Compat\n  if defined?(Rails)\n    class Railtie\n      def boot\n        2\n      end\n\
             \x20   end\n  end\nend\n",
            &["Railtie", "boot"],
        ),
        (
            "helpers.php",
            Language::Php,
            "<?php\n\nif (! function_exists('collect')) {\n    function collect($value = [])\n    {\n\
             \x20       return $value;\n    }\n}\n",
            &["collect"],
        ),
        (
            "git.sh",
            Language::Bash,
            "if command -v git >/dev/null; then\n  _git_branch() {\n    git branch\n  }\nfi\n",
            &["_git_branch"],
        ),
        (
            "interval.ex",
            Language::Elixir,
            "defmodule M do\n  if Code.ensure_loaded?(Duration) do\n    def encode(x) do\n      x\n    end\n\
             \x20 end\nend\n",
            &["encode"],
        ),
    ];
    for (path, language, source, expected) in cases {
        let file = chunk_source(path, *language, source, &ChunkOptions::default());
        let symbols: Vec<&str> = file
            .chunks
            .iter()
            .filter(|c| c.kind != "module")
            .map(|c| c.symbol.as_str())
            .collect();
        assert_eq!(&symbols, expected, "{path}");
        // The branch keywords are no chunk's first line.
        for chunk in &file.chunks {
            let first = chunk.code.trim_start();
            assert!(
                !first.starts_with("else") && !first.starts_with("do\n"),
                "{path}: {first}"
            );
        }
    }
    // A conditional without definitions stays plain code.
    let plain = chunk_source(
        "setup.py",
        Language::Python,
        "import sys\n\nif sys.platform == 'win32':\n    HOME = 'C:/'\nelse:\n    HOME = '/'\n",
        &ChunkOptions::default(),
    );
    assert_eq!(plain.chunks.len(), 1);
    assert_eq!(plain.chunks[0].kind, "module");
}
