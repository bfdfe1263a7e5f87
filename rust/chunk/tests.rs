//! Snapshot, coverage, stability and hostile-input tests for the chunker.
//!
//! Golden files: every fixture under `tests/fixtures/chunk/<language>/` has a `.snap` next to
//! it; `UPDATE_SNAPSHOTS=1 cargo test --lib chunk` rewrites them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::text::{char_len, is_trivial};
use super::*;

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/chunk")
}

/// Every fixture: (path relative to its language directory, full path, language).
fn fixtures() -> Vec<(String, PathBuf, Language)> {
    let root = fixtures_root();
    let mut found = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_some_and(|e| e == "snap") {
                continue;
            }
            let Some(language) = Language::from_path(&path) else {
                continue;
            };
            let relative = path.strip_prefix(&root).unwrap();
            let inside: PathBuf = relative.components().skip(1).collect();
            found.push((inside.to_string_lossy().replace('\\', "/"), path, language));
        }
    }
    found.sort();
    assert!(
        found.len() >= 11,
        "fixtures missing under {}",
        root.display()
    );
    found
}

fn chunk_fixture(path: &str, full: &Path, language: Language) -> FileChunks {
    let source = std::fs::read_to_string(full).unwrap();
    chunk_source(path, language, &source, &ChunkOptions::default())
}

/// A file's chunks as readable text, for golden files.
fn render(file: &FileChunks) -> String {
    let mut out = String::new();
    for error in &file.syntax_errors {
        writeln!(out, "!! {error}").unwrap();
    }
    for chunk in &file.chunks {
        writeln!(
            out,
            "──── {}\nkind={} symbol={:?} fqn={:?} lines={}-{}",
            chunk.id, chunk.kind, chunk.symbol, chunk.fqn, chunk.start_line, chunk.end_line
        )
        .unwrap();
        out.push_str(&chunk.text);
        out.push('\n');
    }
    out
}

#[test]
fn snapshots() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut failures = Vec::new();
    for (path, full, language) in fixtures() {
        let rendered = render(&chunk_fixture(&path, &full, language));
        let mut snap = full.clone().into_os_string();
        snap.push(".snap");
        let snap = PathBuf::from(snap);
        if update {
            std::fs::write(&snap, &rendered).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&snap).unwrap_or_default();
        if expected != rendered {
            let line = expected
                .lines()
                .zip(rendered.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(expected.lines().count().min(rendered.lines().count()));
            failures.push(format!(
                "{}: differs at line {}: expected {:?}, got {:?}",
                snap.display(),
                line + 1,
                expected.lines().nth(line),
                rendered.lines().nth(line)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "snapshots differ (UPDATE_SNAPSHOTS=1 rewrites them):\n{}",
        failures.join("\n")
    );
}

/// Every non-blank, non-trivial line lies in a chunk; chunks stay under the limit; ids are
/// unique.
fn assert_well_formed(file: &FileChunks, source: &str, max_chars: usize) {
    let comment = spec_for(file.language).unwrap().comment;
    let text = normalize(source);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut covered = vec![false; lines.len() + 1];
    for chunk in &file.chunks {
        assert!(
            chunk.start_line >= 1 && chunk.start_line <= chunk.end_line,
            "{chunk:?}"
        );
        assert!(
            chunk.end_line as usize <= lines.len(),
            "{} past the end",
            chunk.id
        );
        for line in chunk.start_line..=chunk.end_line {
            covered[line as usize] = true;
        }
        // Only a header longer than three quarters of the limit may push a chunk over it.
        let header = char_len(&chunk.header);
        assert!(
            char_len(&chunk.text) <= max_chars
                || (header > max_chars * 3 / 4 && char_len(&chunk.code) <= max_chars / 4),
            "{} has {} chars",
            chunk.id,
            char_len(&chunk.text)
        );
        assert_eq!(chunk.text, format!("{}{}", chunk.header, chunk.code));
        assert!(chunk.header.ends_with('\n'));
        assert!(!chunk.code.trim().is_empty(), "{} is empty", chunk.id);
    }
    for (index, line) in lines.iter().enumerate() {
        if !line.trim().is_empty() && !is_trivial(line, comment) {
            assert!(
                covered[index + 1],
                "{}: line {} not in any chunk: {line:?}",
                file.path,
                index + 1
            );
        }
    }
    let mut ids: Vec<&str> = file.chunks.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(before, ids.len(), "duplicate ids in {}", file.path);
}

#[test]
fn fixtures_are_covered() {
    for (path, full, language) in fixtures() {
        let source = std::fs::read_to_string(&full).unwrap();
        for max_chars in [3500, 300] {
            let file = chunk_source(
                &path,
                language,
                &source,
                &ChunkOptions {
                    max_chars,
                    ..ChunkOptions::default()
                },
            );
            assert!(file.error.is_none());
            assert!(!file.chunks.is_empty(), "{path} has no chunks");
            assert_well_formed(&file, &source, max_chars);
        }
    }
}

#[test]
fn parallel_files_match_single_sources() {
    let root = fixtures_root();
    let fixtures = fixtures();
    let files: Vec<(String, Language)> = fixtures
        .iter()
        .map(|(_, full, language)| {
            let relative = full.strip_prefix(&root).unwrap();
            (relative.to_string_lossy().replace('\\', "/"), *language)
        })
        .collect();
    let parallel = chunk_files(&root, &files, &ChunkOptions::default());
    assert_eq!(parallel.len(), files.len());
    for ((path, language), file) in files.iter().zip(&parallel) {
        assert_eq!(&file.path, path);
        let source = std::fs::read_to_string(root.join(path)).unwrap();
        let single = chunk_source(path, *language, &source, &ChunkOptions::default());
        assert_eq!(file.chunks, single.chunks, "{path}");
        assert_eq!(file.content_hash, single.content_hash);
    }
}

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
fn hostile_minified_megabyte() {
    let mut js = String::with_capacity(1_100_000);
    let mut i = 0;
    while js.len() < 1_000_000 {
        write!(
            js,
            "function f{i}(a){{var b=a*{i};return b+\"é\";}}var v{i}=[1,2,3];"
        )
        .unwrap();
        i += 1;
    }
    let options = ChunkOptions::default();
    let file = chunk_source("bundle.js", Language::JavaScript, &js, &options);
    assert!(file.chunks.len() > 1000);
    for chunk in &file.chunks {
        assert!(char_len(&chunk.text) <= options.max_chars, "{}", chunk.id);
        assert_eq!((chunk.start_line, chunk.end_line), (1, 1));
    }
    let one_expression = format!("x=[{}]", "\"abcdefghij\",".repeat(100_000));
    let file = chunk_source("m.js", Language::JavaScript, &one_expression, &options);
    assert!(file.chunks.len() > 300);
    assert!(file
        .chunks
        .iter()
        .all(|c| char_len(&c.text) <= options.max_chars));
}

#[test]
fn hostile_deep_nesting() {
    let depth = 10_000;
    let cases: Vec<(Language, String)> = vec![
        (
            Language::JavaScript,
            format!("let x = {}1{};", "[".repeat(depth), "]".repeat(depth)),
        ),
        (
            Language::JavaScript,
            format!("{}f();{}", "{".repeat(depth), "}".repeat(depth)),
        ),
        (
            Language::TypeScript,
            format!("{}{}", "namespace a {".repeat(depth), "}".repeat(depth)),
        ),
        (
            Language::Cpp,
            format!(
                "{}int x;{}",
                "namespace a {".repeat(depth),
                "}".repeat(depth)
            ),
        ),
        (
            Language::Python,
            format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth)),
        ),
        (
            Language::Python,
            (0..200)
                .map(|i| format!("{}class C{i}:\n", " ".repeat(i)))
                .collect::<String>()
                + &" ".repeat(200)
                + "pass\n",
        ),
        (
            Language::Rust,
            format!("fn f() {{ {} }}", "{".repeat(depth) + &"}".repeat(depth)),
        ),
    ];
    let nested = |open: &str, inner: &str, close: &str| {
        format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
    };
    let long_tail: Vec<(Language, String)> = vec![
        (
            Language::Dart,
            format!("var x = {};", nested("[", "1", "]")),
        ),
        (
            Language::Dart,
            format!("void f() {{ {} }}", nested("{", "", "}")),
        ),
        (
            Language::ObjectiveC,
            format!("int x = {};", nested("(", "1", ")")),
        ),
        (
            Language::ObjectiveC,
            format!(
                "@implementation A\n- (void)f {{ {} }}\n@end\n",
                nested("{", "", "}")
            ),
        ),
        (Language::R, format!("x <- {}\n", nested("(", "1", ")"))),
        (
            Language::R,
            format!("f <- function() {}\n", nested("{", "1", "}")),
        ),
        (
            Language::Perl,
            format!("my $x = {};\n", nested("(", "1", ")")),
        ),
        (
            Language::Perl,
            format!("sub f {{ {} }}\n", nested("{ ", "1", " }")),
        ),
        (Language::Julia, format!("x = {}\n", nested("(", "1", ")"))),
        (Language::Julia, nested("module A\n", "f() = 1\n", "end\n")),
        (
            Language::OCaml,
            format!("let x = {}\n", nested("(", "1", ")")),
        ),
        (
            Language::OCaml,
            nested("module A = struct\n", "let f x = x\n", "end\n"),
        ),
        (
            Language::OCamlInterface,
            nested("module A : sig\n", "val f : int\n", "end\n"),
        ),
        (
            Language::Erlang,
            format!("f() -> {}.\n", nested("[", "1", "]")),
        ),
        (Language::Clojure, nested("(", "x", ")")),
        (
            Language::Clojure,
            format!("(defn f [] {})", nested("(", "x", ")")),
        ),
        (
            Language::FSharp,
            format!("let x = {}\n", nested("(", "1", ")")),
        ),
        (
            Language::FSharp,
            (0..200)
                .map(|i| format!("{}module M{i} =\n", "    ".repeat(i)))
                .collect::<String>()
                + &"    ".repeat(200)
                + "let x = 1\n",
        ),
        (Language::Sql, format!("SELECT {};", nested("(", "1", ")"))),
        (
            Language::Solidity,
            format!(
                "contract C {{ function f() public {{ {} }} }}",
                nested("{", "", "}")
            ),
        ),
        (Language::Hcl, format!("a = {}\n", nested("[", "1", "]"))),
        (
            Language::Hcl,
            format!(
                "resource \"x\" \"y\" {{\n{}\n}}\n",
                nested("b {\n", "", "}\n")
            ),
        ),
        (
            Language::Protobuf,
            format!("message M {{ {} }}", nested("message N { ", "", "} ")),
        ),
        (
            Language::GraphQl,
            format!("query Q {{ {} }}", nested("a { ", "b", " }")),
        ),
        (
            Language::Nix,
            format!("{{ x = {}; }}", nested("[", "1", "]")),
        ),
        (Language::Nix, nested("{ a = ", "1", "; }")),
        (
            Language::Vue,
            format!(
                "<template>{}</template>\n<script>\nlet x = {};\n</script>\n",
                nested("<div>", "", "</div>"),
                nested("[", "1", "]")
            ),
        ),
        (
            Language::Svelte,
            format!(
                "<script lang=\"ts\">\n{}\n</script>\n{}\n",
                nested("{", "", "}"),
                nested("{#if a}", "x", "{/if}")
            ),
        ),
    ];
    for (language, source) in cases.into_iter().chain(long_tail) {
        // A small stack proves the walk does not recurse per nesting level.
        let file = std::thread::Builder::new()
            .stack_size(512 * 1024)
            .spawn(move || {
                let file = chunk_source("deep", language, &source, &ChunkOptions::default());
                assert_well_formed(&file, &source, 3500);
                file
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(!file.chunks.is_empty(), "{language:?}");
    }
}

#[test]
fn hostile_encodings_and_empty_files() {
    let directory = std::env::temp_dir().join(format!("sharc-chunk-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(directory.join(name), bytes).unwrap();
    write("latin1.py", b"def caf\xe9():\n    return '\xff\xfe'\n");
    write(
        "bom.py",
        b"\xef\xbb\xbfdef f():\r\n    return 1\r\n\r\ndef g():\r\n    return 2\r\n",
    );
    write("empty.py", b"");
    write("blank.ts", b"\n\n   \n");
    write("notes.md", b"# Notes\n");
    let files: Vec<(String, Language)> = vec![
        ("latin1.py".into(), Language::Python),
        ("bom.py".into(), Language::Python),
        ("empty.py".into(), Language::Python),
        ("blank.ts".into(), Language::TypeScript),
        ("missing.go".into(), Language::Go),
        ("notes.md".into(), Language::Markdown),
    ];
    let results = chunk_files(&directory, &files, &ChunkOptions::default());
    let paths: Vec<&str> = results.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "latin1.py",
            "bom.py",
            "empty.py",
            "blank.ts",
            "missing.go",
            "notes.md"
        ]
    );

    let latin1 = &results[0];
    assert!(latin1.error.is_none());
    assert!(latin1.chunks[0].symbol.starts_with("caf"));
    assert!(latin1.chunks.iter().any(|c| c.code.contains('\u{fffd}')));
    assert_eq!(latin1.content_hash.len(), 32);

    let bom = &results[1];
    let spans: Vec<(&str, u32, u32)> = bom
        .chunks
        .iter()
        .map(|c| (c.symbol.as_str(), c.start_line, c.end_line))
        .collect();
    assert_eq!(spans, [("f", 1, 2), ("g", 4, 5)]);
    assert!(bom
        .chunks
        .iter()
        .all(|c| !c.text.contains('\r') && !c.text.contains('\u{feff}')));
    assert_eq!(
        bom.content_hash,
        hash(&std::fs::read(directory.join("bom.py")).unwrap())
    );

    assert!(results[2].chunks.is_empty() && results[2].error.is_none());
    assert!(results[3].chunks.is_empty() && results[3].error.is_none());
    assert!(results[4]
        .error
        .as_deref()
        .unwrap()
        .starts_with("cannot read"));
    assert!(results[5].chunks.is_empty() && results[5].error.is_none());
    assert_eq!(results[5].content_hash, hash(b"# Notes\n"));
    std::fs::remove_dir_all(&directory).unwrap();
}

/// One fixture per language with a grammar, the first found.
fn one_fixture_per_language() -> Vec<(String, PathBuf, Language)> {
    let mut seen = Vec::new();
    fixtures()
        .into_iter()
        .filter(|(_, _, language)| {
            let new = !seen.contains(language);
            seen.push(*language);
            new
        })
        .collect()
}

#[test]
fn every_grammar_has_a_fixture() {
    let covered: Vec<Language> = one_fixture_per_language()
        .into_iter()
        .map(|(_, _, language)| language)
        .collect();
    for language in Language::all().filter(|language| supports(*language)) {
        assert!(covered.contains(&language), "no fixture for {language:?}");
    }
}

#[test]
fn hostile_truncated_files_in_every_grammar() {
    // A file cut anywhere (a save in progress, a partial checkout) still chunks cleanly.
    for (path, full, language) in one_fixture_per_language() {
        let source = std::fs::read_to_string(&full).unwrap();
        for cut in (1..16).map(|k| source.len() * k / 16) {
            let cut = super::text::floor_char(&source, cut);
            let truncated = &source[..cut];
            for max_chars in [3500, 200] {
                let file = chunk_source(
                    &path,
                    language,
                    truncated,
                    &ChunkOptions {
                        max_chars,
                        ..ChunkOptions::default()
                    },
                );
                assert!(
                    file.error.is_none(),
                    "{path} cut at {cut}: {:?}",
                    file.error
                );
                if !truncated.trim().is_empty() {
                    assert!(!file.chunks.is_empty(), "{path} cut at {cut}: no chunks");
                }
                assert_well_formed(&file, truncated, max_chars);
            }
        }
    }
}

#[test]
fn hostile_invalid_utf8_in_every_grammar() {
    let directory = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (index, (path, full, language)) in one_fixture_per_language().into_iter().enumerate() {
        let mut bytes = std::fs::read(&full).unwrap();
        // Stray Latin-1 and a lone continuation byte, mid-file and at the very end.
        let middle = bytes.len() / 2;
        bytes.splice(middle..middle, *b"\xe9\xff\x80");
        bytes.extend_from_slice(b"\xc3");
        let name = format!("{index}-{}", path.rsplit('/').next().unwrap());
        std::fs::write(directory.path().join(&name), &bytes).unwrap();
        files.push((name, language));
    }
    let results = chunk_files(directory.path(), &files, &ChunkOptions::default());
    for (file, (name, _)) in results.iter().zip(&files) {
        assert!(file.error.is_none(), "{name}: {:?}", file.error);
        assert!(file.skipped.is_none(), "{name}: {:?}", file.skipped);
        assert!(!file.chunks.is_empty(), "{name}: no chunks");
        assert!(
            file.chunks.iter().any(|c| c.code.contains('\u{fffd}')),
            "{name}: the bad bytes are not in any chunk"
        );
        let text = String::from_utf8_lossy(&std::fs::read(directory.path().join(name)).unwrap())
            .into_owned();
        assert_well_formed(file, &text, 3500);
    }
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
fn languages_without_grammar_get_no_chunks() {
    assert!(supports(Language::TypeScript) && supports(Language::Zig));
    assert!(!supports(Language::Markdown) && !supports(Language::Yaml));
    let file = chunk_source(
        "a.md",
        Language::Markdown,
        "# Title\n",
        &ChunkOptions::default(),
    );
    assert!(file.chunks.is_empty() && file.error.is_none());
    assert_eq!(file.content_hash, hash(b"# Title\n"));
}

#[test]
#[ignore]
fn show() {
    let file = std::env::var("SHOW_FILE").unwrap();
    let language = Language::from_path(Path::new(&file)).unwrap();
    let source = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
    let max_chars = std::env::var("SHOW_MAX").map_or(3500, |m| m.parse().unwrap());
    let options = ChunkOptions {
        max_chars,
        ..ChunkOptions::default()
    };
    if std::env::var_os("SHOW_TREE").is_some() {
        let text = normalize(&source);
        let tree = parse(language, &text, Deadline::after(options.time_budget)).unwrap();
        println!("{}", tree.root_node().to_sexp());
        if std::env::var("SHOW_TREE").as_deref() == Ok("nodes") {
            // Every node with its byte range, indented by depth.
            let mut cursor = tree.root_node().walk();
            let mut depth = 0;
            'nodes: loop {
                let node = cursor.node();
                let text = &text[node.start_byte()..node.end_byte()];
                println!(
                    "{}{} {}..{} {:?}",
                    "  ".repeat(depth),
                    node.kind(),
                    node.start_byte(),
                    node.end_byte(),
                    text.chars().take(40).collect::<String>()
                );
                if cursor.goto_first_child() {
                    depth += 1;
                    continue;
                }
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() {
                        break 'nodes;
                    }
                    depth -= 1;
                }
            }
        }
    }
    let file = chunk_source(&file, language, &source, &options);
    print!("{}", render(&file));
    // What the fuzzing properties say about it.
    println!("{:?}", super::fuzz::covered(&file, &source, max_chars));
}

/// `BENCH_DIR=/usr/lib/python3.11 BENCH_EXT=py cargo test --release --lib chunk::tests::throughput -- --ignored --nocapture`
#[test]
#[ignore]
fn throughput() {
    let root = PathBuf::from(std::env::var("BENCH_DIR").unwrap());
    let extension = std::env::var("BENCH_EXT").unwrap();
    let mut files = Vec::new();
    let mut pending = vec![root];
    while let Some(directory) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == extension.as_str()) {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    if text.len() < 1_000_000 {
                        files.push((path.to_string_lossy().into_owned(), text));
                    }
                }
            }
        }
    }
    let language = Language::from_extension(&extension).unwrap();
    let bytes: usize = files.iter().map(|(_, text)| text.len()).sum();
    let options = ChunkOptions::default();
    // Interleaved, best of five per file: robust against a busy machine.
    let mut best = vec![(f64::MAX, f64::MAX); files.len()];
    let mut chunks = 0;
    for _ in 0..5 {
        chunks = 0;
        for ((path, text), best) in files.iter().zip(best.iter_mut()) {
            let started = std::time::Instant::now();
            let tree = parse(language, text, Deadline::after(options.time_budget)).unwrap();
            std::hint::black_box(tree.root_node().has_error());
            drop(tree);
            best.0 = best.0.min(started.elapsed().as_secs_f64());
            let started = std::time::Instant::now();
            chunks += chunk_source(path, language, text, &options).chunks.len();
            best.1 = best.1.min(started.elapsed().as_secs_f64());
        }
    }
    let best = best
        .iter()
        .fold((0.0, 0.0), |sum, file| (sum.0 + file.0, sum.1 + file.1));
    let mb = bytes as f64 / 1e6;
    println!(
        "{} files, {mb:.1} MB, {chunks} chunks: parse {:.1} MB/s, chunk {:.1} MB/s, ratio {:.2}",
        files.len(),
        mb / best.0,
        mb / best.1,
        best.0 / best.1
    );
}

/// `CORPUS_DIR=/some/tree cargo test --release --lib chunk::tests::corpus -- --ignored`:
/// every file of a real tree chunks without panics, lost lines or oversized chunks.
#[test]
#[ignore]
fn corpus() {
    let mut pending = vec![PathBuf::from(std::env::var("CORPUS_DIR").unwrap())];
    let max_chars = std::env::var("CORPUS_MAX").map_or(3500, |m| m.parse().unwrap());
    let mut count = 0;
    while let Some(directory) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !path.is_symlink() {
                pending.push(path);
                continue;
            }
            let Some(language) = Language::from_path(&path).filter(|l| supports(*l)) else {
                continue;
            };
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            if bytes.len() > 1_000_000 {
                continue;
            }
            let source = String::from_utf8_lossy(&bytes);
            let name = path.to_string_lossy();
            let file = chunk_source(
                &name,
                language,
                &source,
                &ChunkOptions {
                    max_chars,
                    ..ChunkOptions::default()
                },
            );
            assert_well_formed(&file, &source, max_chars);
            count += 1;
        }
    }
    println!("{count} files chunked");
}

#[test]
fn a_panic_while_chunking_one_file_is_that_files_error() {
    let failed = super::isolated("boom.py", Language::Python, || panic!("grammar bug"));
    assert!(failed.chunks.is_empty() && failed.skipped.is_none());
    assert_eq!(
        failed.error.as_deref(),
        Some("the chunker failed on this file: grammar bug")
    );
    // The thread's parsers were reset and still work.
    let options = ChunkOptions {
        max_chars: 3500,
        ..ChunkOptions::default()
    };
    let fine = chunk_source(
        "ok.py",
        Language::Python,
        "def f():\n    return 1\n",
        &options,
    );
    assert!(fine.error.is_none());
    assert_eq!(fine.chunks.len(), 1);
}

#[test]
fn every_file_type_maps_to_a_language_with_a_tier() {
    let types: Vec<_> = Language::file_types().collect();
    assert!(types
        .iter()
        .any(|(pattern, language)| pattern == ".pl" && *language == Language::Perl));
    assert!(types.iter().any(|(pattern, _)| pattern == "Makefile"));
    for (pattern, language) in types {
        assert_eq!(
            language.tier() == crate::lang::Tier::Ast,
            super::supports(language),
            "{pattern}: a tier-1 language must have a grammar and only those"
        );
    }
}

#[test]
fn rust_inline_modules_carry_their_visibility_in_the_header() {
    let source =
        "mod ext {\n    pub trait StdError {\n        fn context(self) -> u8;\n    }\n}\n\n\
                  pub mod api {\n    pub fn open() -> u8 {\n        1\n    }\n}\n\n\
                  pub(crate) mod shared {\n    pub fn close() -> u8 {\n        2\n    }\n}\n";
    let file = chunk_source(
        "src/lib.rs",
        Language::Rust,
        source,
        &ChunkOptions::default(),
    );
    let header_of = |symbol: &str| {
        file.chunks
            .iter()
            .find(|c| c.symbol == symbol)
            .unwrap_or_else(|| panic!("{symbol} chunked"))
            .header
            .clone()
    };
    assert_eq!(
        header_of("StdError"),
        "// Context: trait StdError > mod ext (src/lib.rs)\n"
    );
    assert_eq!(header_of("open"), "// Context: pub mod api (src/lib.rs)\n");
    assert_eq!(
        header_of("close"),
        "// Context: pub(crate) mod shared (src/lib.rs)\n"
    );
    // The qualified name is the module's name, whatever its visibility.
    let open = file.chunks.iter().find(|c| c.symbol == "open").unwrap();
    assert_eq!(open.fqn, "api.open");
}

#[test]
fn items_inside_macro_invocations_are_chunked() {
    let source = "use crate::task::JoinHandle;\n\
                  \n\
                  cfg_rt! {\n\
                  \x20   /// Spawns a new asynchronous task.\n\
                  \x20   #[track_caller]\n\
                  \x20   pub fn spawn<F>(future: F) -> JoinHandle<F::Output> {\n\
                  \x20       spawn_inner(future, None)\n\
                  \x20   }\n\
                  \n\
                  \x20   pub(crate) struct Spawner {\n\
                  \x20       id: u64,\n\
                  \x20   }\n\
                  }\n\
                  \n\
                  mod inner {\n\
                  \x20   cfg_net!(\n\
                  \x20       pub fn bind() {}\n\
                  \x20   );\n\
                  }\n\
                  \n\
                  macro_rules! cfg_rt {\n\
                  \x20   ($($item:item)*) => { $( #[cfg(feature = \"rt\")] $item )* }\n\
                  }\n\
                  \n\
                  vec_of! { 1, 2, 3 }\n";
    let file = chunk_source("spawn.rs", Language::Rust, source, &ChunkOptions::default());
    assert!(file.syntax_errors.is_empty(), "{:?}", file.syntax_errors);
    let spawn = file
        .chunks
        .iter()
        .find(|c| c.symbol == "spawn")
        .expect("spawn chunked");
    assert_eq!((spawn.start_line, spawn.end_line), (4, 8));
    assert!(spawn
        .code
        .trim_start()
        .starts_with("/// Spawns a new asynchronous task."));
    let spawner = file
        .chunks
        .iter()
        .find(|c| c.symbol == "Spawner")
        .expect("Spawner");
    assert_eq!((spawner.start_line, spawner.end_line), (10, 12));
    let bind = file
        .chunks
        .iter()
        .find(|c| c.symbol == "bind")
        .expect("bind in mod inner");
    assert_eq!(bind.fqn, "inner.bind");
    assert!(file
        .chunks
        .iter()
        .any(|c| c.kind == "macro" && c.symbol == "cfg_rt"));
    // A macro that holds no items stays code, as written.
    assert!(file
        .chunks
        .iter()
        .any(|c| c.code.contains("vec_of! { 1, 2, 3 }")));
}

#[test]
fn an_object_at_the_end_of_chained_assignments_holds_methods() {
    let source = "const proto = module.exports = {\n\
                  \x20 inspect () {\n\
                  \x20   return this.toJSON()\n\
                  \x20 },\n\
                  \n\
                  \x20 onerror (err) {\n\
                  \x20   if (err == null) return\n\
                  \x20 }\n\
                  }\n\
                  module.exports.helpers = exports.helpers = {\n\
                  \x20 escape (text) { return text }\n\
                  }\n";
    let file = chunk_source(
        "context.js",
        Language::JavaScript,
        source,
        &ChunkOptions::default(),
    );
    let onerror = file
        .chunks
        .iter()
        .find(|c| c.symbol == "onerror")
        .expect("onerror chunked");
    assert_eq!((onerror.start_line, onerror.end_line), (6, 8));
    assert_eq!(onerror.fqn, "proto.onerror");
    assert!(file.chunks.iter().any(|c| c.symbol == "inspect"));
    let escape = file
        .chunks
        .iter()
        .find(|c| c.symbol == "escape")
        .expect("escape chunked");
    assert_eq!(escape.fqn, "module.exports.helpers.escape");
}

#[test]
fn generic_call_signatures_on_their_own_lines_keep_the_file_whole() {
    // tree-sitter-typescript reads the second signature's `<` as part of the first one's
    // return type; without the reparse the class and function after it were one error.
    let source = "export interface CreateHandlers<E> {\n\
                  \x20 <I>(handler1: H<I>): [H<I>]\n\
                  \n\
                  \x20 // two handlers\n\
                  \x20 <\n\
                  \x20   I extends Input = {},\n\
                  \x20 >(handler1: H<I>, handler2: H<I>): [H<I>, H<I>]\n\
                  }\n\
                  \n\
                  export class Factory {\n\
                  \x20 createApp() {\n\
                  \x20   return new Hono()\n\
                  \x20 }\n\
                  }\n\
                  \n\
                  export const createFactory = () => new Factory()\n";
    for language in [Language::TypeScript, Language::Tsx] {
        let file = chunk_source("factory.ts", language, source, &ChunkOptions::default());
        assert!(file.syntax_errors.is_empty(), "{:?}", file.syntax_errors);
        let spans: Vec<(&str, u32, u32)> = file
            .chunks
            .iter()
            .map(|c| (c.symbol.as_str(), c.start_line, c.end_line))
            .collect();
        for wanted in [
            ("CreateHandlers", 1, 8),
            ("Factory", 10, 14),
            ("createApp", 11, 13),
            ("createFactory", 16, 16),
        ] {
            assert!(spans.contains(&wanted), "{wanted:?} not in {spans:?}");
        }
        // The chunk shows the file as written, not the text that was parsed.
        let interface = &file.chunks[0];
        assert!(interface.code.contains("]\n\n  // two handlers\n  <\n"));
    }
}

#[test]
fn a_blanked_macro_after_a_declaration_without_its_semicolon_stays_in_the_class() {
    // Found by fuzzing: the macro is blanked for the reparse, the declaration ends at `)`,
    // and the macro's bytes belong to no node of the class body.
    let source = "class SINK_API sink {\n\
                  public:\n\
                  \x20   void swap(sink &other) SINK_NOEXCEP\n\
                  namespace sinks {\n\
                  int f() { return 1; }\n\
                  }\n\
                  \x20   int level() const;\n\
                  };\n";
    let file = chunk_source("sink.hpp", Language::Cpp, source, &ChunkOptions::default());
    let class = file
        .chunks
        .iter()
        .find(|c| c.kind == "class")
        .expect("class chunked");
    assert!(
        class.code.contains("void swap(sink &other) SINK_NOEXCEP"),
        "{}",
        class.code
    );
    if let Err(error) = super::fuzz::covered(&file, source, 3500) {
        panic!("{error:?}\n{}", render(&file));
    }
}

#[test]
fn a_header_part_inside_a_parse_error_among_the_members_stays_in_the_class() {
    // Found by fuzzing: garbage after a record's name parses as an ERROR member holding a
    // keyword name; the name read as a header part, but the header ends where that member
    // starts, so the word was in no chunk.
    for source in [
        "(defrecord Task ]qz [id title]\n  Describable\n  (describe [this] id))\n",
        "(defrecord Task [id title] ]qz\n  Describable\n  (describe [this] id))\n",
    ] {
        let file = chunk_source(
            "task.clj",
            Language::Clojure,
            source,
            &ChunkOptions::default(),
        );
        let class = file
            .chunks
            .iter()
            .find(|c| c.kind == "class")
            .expect("record chunked");
        assert_eq!(class.symbol, "Task");
        assert!(class.code.contains("qz"), "{}", class.code);
        assert!(class.code.contains("[id title]"), "{}", class.code);
        if let Err(error) = super::fuzz::covered(&file, source, 3500) {
            panic!("{error:?}\n{}", render(&file));
        }
    }
}

#[test]
fn a_class_assigned_to_module_exports_is_a_class() {
    let source = "module.exports = class Application extends Emitter {\n\
                  \x20 constructor () {\n\
                  \x20   super()\n\
                  \x20 }\n\
                  \n\
                  \x20 listen (...args) {\n\
                  \x20   return 1\n\
                  \x20 }\n\
                  }\n\
                  exports.Helper = class {\n\
                  \x20 run () {}\n\
                  }\n";
    let file = chunk_source(
        "application.js",
        Language::JavaScript,
        source,
        &ChunkOptions::default(),
    );
    let class = file
        .chunks
        .iter()
        .find(|c| c.kind == "class" && c.symbol == "Application");
    assert_eq!(class.map(|c| (c.start_line, c.end_line)), Some((1, 9)));
    let listen = file
        .chunks
        .iter()
        .find(|c| c.symbol == "listen")
        .expect("listen");
    assert_eq!(listen.fqn, "Application.listen");
    let helper = file.chunks.iter().find(|c| c.symbol == "run").expect("run");
    assert_eq!(helper.fqn, "exports.Helper.run");
}

#[test]
fn component_scripts_keep_the_files_line_numbers() {
    let vue = "<template>\n  <p>{{ count(1) }}</p>\n</template>\n\n<!--\n<script>\nfunction hidden() {}\n</script>\n-->\n<script setup lang=\"ts\">\nfunction count(n: number): number {\n  return n + 1;\n}\n</script>\n\n<style scoped>\np { color: red; }\n</style>\n";
    let file = chunk_source(
        "src/Count.vue",
        Language::Vue,
        vue,
        &ChunkOptions::default(),
    );
    assert!(file.syntax_errors.is_empty(), "{:?}", file.syntax_errors);
    assert_well_formed(&file, vue, 3500);
    let spans: Vec<(&str, &str, u32, u32)> = file
        .chunks
        .iter()
        .map(|c| (c.id.as_str(), c.kind, c.start_line, c.end_line))
        .collect();
    assert_eq!(
        spans,
        [
            ("src/Count.vue::<template>", "template", 1, 9),
            ("src/Count.vue::count", "function", 10, 13),
            ("src/Count.vue::<style>", "style", 16, 18),
        ]
    );
    let count = &file.chunks[1];
    assert_eq!(count.header, "// Context: module Count (src/Count.vue)\n");
    assert!(count
        .code
        .starts_with("<script setup lang=\"ts\">\nfunction count(n: number)"));
    assert!(file.chunks.iter().all(|c| c.language == Language::Vue));

    // Two scripts, TSX, an unclosed last one: ids stay unique, nothing is lost.
    let svelte = "<script context=\"module\">\n  export const a = 1;\n</script>\n<script lang=\"tsx\">\n  const b = <i>{a}</i>;\n  export let c = 2;\n\n<p>{b}</p>\n";
    let file = chunk_source(
        "Two.svelte",
        Language::Svelte,
        svelte,
        &ChunkOptions::default(),
    );
    assert!(file.error.is_none());
    assert_well_formed(&file, svelte, 3500);
    let ids: Vec<&str> = file.chunks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["Two.svelte::<module>", "Two.svelte::<module>#2"]);
    assert!(file.chunks[1].code.contains("<p>{b}</p>"));
}

#[test]
fn hostile_components() {
    // Thousands of script blocks: each would cost a pass over the file; only a few are parsed.
    let many = "<script>let a = 1;</script>\n".repeat(20_000);
    // An unclosed tag, an unclosed comment, a script inside a comment, a self-closing script.
    let broken = "<template>\n<p>\n<!-- <script>\n<script src=\"x.js\" />\n<script lang='ts'>\nconst a: number = 1;\n<style";
    for (path, language, source) in [
        ("Many.svelte", Language::Svelte, many.as_str()),
        ("Broken.vue", Language::Vue, broken),
    ] {
        let file = chunk_source(path, language, source, &ChunkOptions::default());
        assert!(file.error.is_none(), "{path}: {:?}", file.error);
        assert!(!file.chunks.is_empty(), "{path}");
        assert_well_formed(&file, source, 3500);
    }
}

#[test]
fn fuzzing_findings_stay_fixed() {
    // Each input is a shrunk case the fuzzer (`fuzz.rs`) found, with a word that was lost.
    let cases: &[(&str, Language, &str, &str)] = &[
        // A comment after a parse error on its line was dropped with the error's span.
        ("a.py", Language::Python, "~# note\n", "note"),
        ("a.graphql", Language::GraphQl, "># note\n", "note"),
        // `done` (a Bash closing keyword) after code on its line was dropped as trivial.
        (
            "a.sol",
            Language::Solidity,
            "receive() estruct Task {\n    address owner;\n    bool done;\n}\n",
            "done",
        ),
        // A header part after a parse error among a record's header parts was in no chunk.
        (
            "a.clj",
            Language::Clojure,
            "(defrecord Task [id title]\0\0\n  Describable\n  (describe [this] id))\n",
            "Describable",
        ),
        // A class whose first member starts mid-line lost the class keyword and name.
        (
            "a.rb",
            Language::Ruby,
            "module Admin\n  class U>serController < Base\n    def show\n      x\n    end\n  end\nend\n",
            "class U>",
        ),
        // `end` at the start of a line with more code after it was dropped as trivial.
        (
            "b.mli",
            Language::OCamlInterface,
            "module Store : sig\n  val add : t -> unit\nend*\nmodule type P = sig\n  val p : int\nend\n",
            "end",
        ),
        // An operator the parser left at the top, outside any node.
        ("a.swift", Language::Swift, "% ? \n", "%"),
        // A malformed closing tag took what followed it on its line.
        (
            "a.vue",
            Language::Vue,
            "<script>\nlet x = 1;\n</script<> let tail = 2;\n<template><p/></template>\n",
            "tail",
        ),
        // A line holding only a vertical tab became a chunk with blank code.
        (
            "a.mli",
            Language::OCamlInterface,
            "module Store : sig\n  val add : t -> unit\nend\n\x0b\nmodule type P = sig\n  val p : int\nend\n",
            "val add",
        ),
        // A backslash the grammar skips as a line continuation, before the root's first
        // node, was in no chunk (Ruby, Elixir).
        ("a.rb", Language::Ruby, "\\f=d8 ?x\n", "\\f=d8"),
        ("a.ex", Language::Elixir, "\\\r@:,x\n", "\\"),
        // A closing tag in another case (`</scripT>`) closes the block, as it does in HTML,
        // and is no more code than `</script>`.
        (
            "a.vue",
            Language::Vue,
            "<script>\nlet x = 1;\n</scripT>\n<template><p/></template>\n",
            "let x",
        ),
        // A member cut short (`cache.`): the `.` is a parse error after the method, in the
        // class chunk; the word is read across the two.
        (
            "a.scala",
            Language::Scala,
            "class S {\n  def evict(id: String): Unit = cache.\n",
            "cache",
        ),
    ];
    // Runs of comment openers (`/*/*/`: a comment, `*`, a comment, ...) on one huge line
    // inside an object or a component's script: its parts are cut at chars, and the last
    // piece starts the method after it, whose summary the class chunk lists after its part.
    let openers = "/*".repeat(400);
    let object = format!(
        "export default {{\n  methods: {{\n    load() {{ x(); }},\n    r{openers}emove: function (id) {{\n      y(id);\n    }},\n  }},\n}};\n"
    );
    let component = format!("<script>\n{object}</script>\n");
    let cases: Vec<(&str, Language, &str, &str)> = cases
        .iter()
        .copied()
        .chain([
            ("a.js", Language::JavaScript, object.as_str(), "emove"),
            ("a.ts", Language::TypeScript, object.as_str(), "emove"),
            ("a.vue", Language::Vue, component.as_str(), "emove"),
        ])
        .collect();
    for (path, language, source, word) in &cases {
        for max_chars in [3500, 120] {
            let options = ChunkOptions {
                max_chars,
                ..ChunkOptions::default()
            };
            let file = chunk_source(path, *language, source, &options);
            assert!(
                file.chunks.iter().any(|chunk| chunk.code.contains(word)),
                "{path}: {word:?} in no chunk:\n{}",
                render(&file)
            );
            if let Err(error) = super::fuzz::covered(&file, source, max_chars) {
                panic!("{path}: {error}\n{}", render(&file));
            }
        }
    }
}

#[test]
fn a_file_out_of_time_is_chunked_as_plain_lines() {
    // A budget already spent: the parse is cancelled (or the walk stops) however small the
    // file, which stands for a file a grammar would take minutes over.
    let source: String = (0..400)
        .map(|i| format!("def f{i}(x):\n    return x + {i}\n\n"))
        .collect();
    for budget in [Duration::ZERO, Duration::from_micros(200)] {
        let options = ChunkOptions {
            max_chars: 500,
            time_budget: budget,
        };
        let started = Instant::now();
        let file = chunk_source("slow.py", Language::Python, &source, &options);
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(file.error.is_none());
        if budget.is_zero() || file.syntax_errors.iter().any(|e| e.contains("time budget")) {
            assert_eq!(
                file.syntax_errors,
                [format!(
                    "not parsed within the time budget ({:.1} s): chunked as plain lines",
                    budget.as_secs_f64()
                )]
            );
            assert!(file.chunks.iter().all(|chunk| chunk.kind == "module"));
            assert!(file.chunks.len() > 10);
        }
        super::fuzz::covered(&file, &source, 500).unwrap();
    }
    // Components fall back the same way, and a generous budget changes nothing.
    let vue = "<template>\n  <p>{{ x }}</p>\n</template>\n<script>\nexport default { data() { return { x: 1 } } }\n</script>\n";
    let options = ChunkOptions {
        time_budget: Duration::ZERO,
        ..ChunkOptions::default()
    };
    let file = chunk_source("a.vue", Language::Vue, vue, &options);
    assert!(file.syntax_errors[0].contains("time budget"));
    super::fuzz::covered(&file, vue, 3500).unwrap();
    let file = chunk_source("a.vue", Language::Vue, vue, &ChunkOptions::default());
    assert!(file.syntax_errors.is_empty());
    assert!(file.chunks.iter().any(|chunk| chunk.kind != "module"));
}

/// Found by the long fuzzing run: TypeScript with some 150,000 nested `<div>` type arguments
/// on one line (780 KB) overflowed an 8 MB stack inside tree-sitter, in the recursion of
/// `stack_node_release` (`src/stack.c`), which aborts the process. Chunking runs on threads
/// with deep stacks, whatever thread (here one of 8 MB) asks for it.
#[test]
fn deep_type_arguments_no_longer_overflow_the_stack() {
    let source = format!("let x = {};\n", "<div>".repeat(160_000));
    let file = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            // The fuzzing run's budget: the overflow came well within it.
            let options = ChunkOptions {
                time_budget: std::time::Duration::from_secs(2),
                ..ChunkOptions::default()
            };
            chunk_source("deep.ts", Language::TypeScript, &source, &options)
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(file.error.is_none());
    assert!(!file.chunks.is_empty());
}

/// Found by the long fuzzing run: F# with an 80 KB line of `{` parses in a tenth of a second
/// into one node of 80,000 children, over which the references query took 20 s (tree-sitter
/// looks at every later sibling of each node it visits). The query stops at the deadline;
/// the file keeps its chunks and says that its references are missing.
#[test]
fn a_references_query_out_of_time_stops_at_the_budget() {
    let source = format!("namespace {}\n", "{".repeat(80_000));
    // The fuzzing run's budget: the parse takes a tenth of it.
    let options = ChunkOptions {
        max_chars: 600,
        time_budget: Duration::from_secs(2),
    };
    let started = Instant::now();
    let file = chunk_source("wide.fs", Language::FSharp, &source, &options);
    let elapsed = started.elapsed();
    // Loose: a busy machine must not fail it; the hang it guards against took 20 s.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert!(file.error.is_none());
    assert!(!file.chunks.is_empty());
    assert!(
        file.syntax_errors
            .contains(&"references not extracted within the time budget (2.0 s)".to_string()),
        "{:?}",
        file.syntax_errors
    );
    assert!(file.chunks.iter().all(|chunk| chunk.references.is_empty()));
    assert!(file.out_of_time());
    // A file with syntax errors alone did not run out of time.
    let broken = chunk_source(
        "Broken.fs",
        Language::FSharp,
        "let f x =\n  (x +\n",
        &options,
    );
    assert!(!broken.syntax_errors.is_empty() && !broken.out_of_time());
}

/// Found by the long fuzzing run: Java with 8,000 `let x = ` on one line parses into a tree
/// 8,000 deep, and looking up each reference's parent from the root took seconds. One walk
/// finds them all now: the references fit in the budget.
#[test]
fn references_in_a_deep_tree_take_linear_time() {
    let source = format!(
        "class A {{\n  void f() {{\n    int y = {}1;\n    g(y);\n  }}\n}}\n",
        "let x = ".repeat(8_000)
    );
    let options = ChunkOptions {
        max_chars: 600,
        time_budget: Duration::from_secs(5),
    };
    let file = chunk_source("Deep.java", Language::Java, &source, &options);
    assert!(
        !file.syntax_errors.iter().any(|e| e.contains("time budget")),
        "{:?}",
        file.syntax_errors
    );
    assert!(file
        .chunks
        .iter()
        .any(|chunk| chunk.references.iter().any(|r| r.name == "g")));
}

/// Found by the long fuzzing run: 3,289 `{-` then as many `-}` inside a Java annotation split
/// the parse stack, and one hundred parse operations (tree-sitter's interval between progress
/// checks) took up to 1.7 s: the file ran 2.5 s past its budget. The vendored tree-sitter
/// (`rust/vendor/tree-sitter/NOTICE`) checks after each operation while the stack is split.
#[test]
fn a_split_parse_stack_stops_at_the_budget() {
    let source = format!(
        "public class UserController {{\n    @GetMappi{}{}ng(\"/{{id}}\")\n    public User get(String id) {{\n        return null;\n    }}\n}}\n",
        "{-".repeat(3_289),
        "-}".repeat(3_289)
    );
    let budget = Duration::from_millis(300);
    let options = ChunkOptions {
        max_chars: 600,
        time_budget: budget,
    };
    // The best of three, so that a busy machine does not fail it.
    let overrun = (0..3)
        .map(|_| {
            let started = Instant::now();
            let file = chunk_source("UserController.java", Language::Java, &source, &options);
            assert!(file.syntax_errors[0].contains("time budget"));
            super::fuzz::covered(&file, &source, 600).unwrap();
            started.elapsed().saturating_sub(budget)
        })
        .min()
        .unwrap();
    // Loose for busy machines: without the vendored check it ran 2.5 s past.
    assert!(
        overrun < Duration::from_millis(1500),
        "{overrun:?} past the budget"
    );
}

/// Found by the long fuzzing run: a Clojure record of thousands of forms on one line (74 KB)
/// took 16 s, every form reading the record's forms from the start to learn whether it came
/// before the first method. It reads at most a few dozen now: 10,000 forms took 25.7 s and
/// fit well within the budget.
#[test]
fn a_record_of_many_forms_is_chunked_in_linear_time() {
    let source = format!(
        "(ns a)\n(defrecord R {}[a b]\n  P\n  (m [this] a))\n",
        "x ".repeat(10_000)
    );
    let options = ChunkOptions {
        max_chars: 600,
        time_budget: Duration::from_secs(5),
    };
    let file = chunk_source("r.clj", Language::Clojure, &source, &options);
    assert!(
        !file.syntax_errors.iter().any(|e| e.contains("time budget")),
        "{:?}",
        file.syntax_errors
    );
    assert!(file.chunks.iter().any(|chunk| chunk.symbol == "m"));
    super::fuzz::covered(&file, &source, 600).unwrap();
}

#[test]
fn a_ruby_module_that_defines_methods_is_read_as_a_class() {
    // `Sidekiq::Job`: a mixin whose opening line is followed at once by a nested module went
    // to that module's first method, and the chunk named `Sidekiq.Job` held only the loose
    // lines between its methods (`attr_accessor :jid`, lines away from its definition).
    let ruby = "module Sidekiq\n  # Include this module in your job class.\n  module Job\n\
                \x20   module Options\n      def self.included(base)\n        base.extend(base)\n\
                \x20     end\n    end\n\n    attr_accessor :jid\n\n    def logger\n      \
                Sidekiq.logger\n    end\n  end\nend\n";
    let file = chunk_source("job.rb", Language::Ruby, ruby, &ChunkOptions::default());
    assert_well_formed(&file, ruby, 3500);
    let job = file
        .chunks
        .iter()
        .find(|c| c.fqn == "Sidekiq.Job" && c.symbol == "Job")
        .expect("a chunk for the module");
    // From its comment and opening line (and the namespace's, handed to its first member, as
    // a class's would be) to its `end`: its loose code and a line per method.
    assert_eq!((job.kind, job.start_line, job.end_line), ("module", 1, 15));
    assert!(
        job.code.contains("module Job") && job.code.contains("attr_accessor :jid"),
        "{}",
        job.code
    );
    assert!(job.code.contains("def logger"), "{}", job.code);
    // The methods are chunks of their own; the namespace around them has no chunk.
    let symbols: Vec<&str> = file.chunks.iter().map(|c| c.symbol.as_str()).collect();
    assert!(
        symbols.contains(&"included") && symbols.contains(&"logger"),
        "{symbols:?}"
    );
    assert!(
        !file.chunks.iter().any(|c| c.symbol == "Sidekiq"),
        "{symbols:?}"
    );
}

#[test]
fn a_doc_comment_under_a_namespace_line_documents_the_first_member() {
    // The namespace's opening line joins the `require` run before it; the comment under it
    // (outside the module's body node in Ruby) went with it, away from the class it documents.
    let ruby = "require \"x\"\n\nmodule Sidekiq\n  # Pushes jobs to Redis.\n  class Client\n\
                \x20   def push(item)\n      item\n    end\n  end\nend\n";
    let file = chunk_source("client.rb", Language::Ruby, ruby, &ChunkOptions::default());
    assert_well_formed(&file, ruby, 3500);
    let spans: Vec<(&str, u32, u32)> = file
        .chunks
        .iter()
        .map(|c| (c.kind, c.start_line, c.end_line))
        .collect();
    assert_eq!(
        spans,
        [("module", 1, 3), ("class", 4, 9), ("method", 6, 8)],
        "{spans:?}"
    );
    // Code, not a comment, between the opening line and the first member stays in the run.
    let php = "<?php\nuse A;\nnamespace App;\n\nconst X = 1;\nclass C {}\n";
    let file = chunk_source("c.php", Language::Php, php, &ChunkOptions::default());
    assert_well_formed(&file, php, 3500);
}

#[test]
fn a_class_methods_in_class_self_have_their_own_scope() {
    let ruby = "class Client\n  def push(item)\n    raw(item)\n  end\n\n  class << self\n    def push(item)\n      new.push(item)\n    end\n  end\nend\n";
    let file = chunk_source("client.rb", Language::Ruby, ruby, &ChunkOptions::default());
    assert_well_formed(&file, ruby, 3500);
    let pushes: Vec<(u32, &str, &str)> = file
        .chunks
        .iter()
        .filter(|c| c.symbol == "push")
        .map(|c| (c.start_line, c.fqn.as_str(), c.header.as_str()))
        .collect();
    assert_eq!(pushes.len(), 2, "{pushes:?}");
    // The same qualified name; the context tells them apart.
    assert_eq!((pushes[0].1, pushes[1].1), ("Client.push", "Client.push"));
    assert!(
        pushes[0].2.starts_with("# Context: class Client"),
        "{pushes:?}"
    );
    assert!(
        pushes[1]
            .2
            .starts_with("# Context: class << self > class Client"),
        "{pushes:?}"
    );
    // The class chunk still summarises both.
    let class = file.chunks.iter().find(|c| c.kind == "class").unwrap();
    assert_eq!(
        class.code.matches("def push(item)").count(),
        2,
        "{}",
        class.code
    );
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

#[test]
fn test_suites_and_cases_are_named_by_their_titles() {
    let js = "const assert = require('assert')\n\n\
              describe('router', () => {\n\
              \x20 beforeEach(() => { reset() })\n\n\
              \x20 it('matches a path', () => {\n    assert.ok(match('/a'))\n  })\n\n\
              \x20 test.each([[1], [2]])('adds %i', (n) => {\n    assert.ok(n)\n  })\n\
              })\n\n\
              test.only(`handles ${kind} errors`, async t => {\n  t.plan(1)\n})\n";
    let file = chunk_source(
        "router.test.js",
        Language::JavaScript,
        js,
        &ChunkOptions::default(),
    );
    let tests: Vec<(&str, &str)> = file
        .chunks
        .iter()
        .filter(|c| c.kind == "test")
        .map(|c| (c.symbol.as_str(), c.fqn.as_str()))
        .collect();
    assert_eq!(
        tests,
        [
            ("matches a path", "router.matches a path"),
            ("adds %i", "router.adds %i"),
            ("handles ${kind} errors", "handles ${kind} errors"),
        ]
    );
    let ruby = "describe Sidekiq::Client do\n  context \"when empty\" do\n    it \"pushes a job\" do\n\
                \x20     expect(push).to be_truthy\n    end\n  end\n\n  it(\"handles nil\") { expect(nil).to be_nil }\nend\n";
    let file = chunk_source(
        "client_spec.rb",
        Language::Ruby,
        ruby,
        &ChunkOptions::default(),
    );
    let tests: Vec<&str> = file
        .chunks
        .iter()
        .filter(|c| c.kind == "test")
        .map(|c| c.fqn.as_str())
        .collect();
    assert_eq!(
        tests,
        [
            "Sidekiq::Client.when empty.pushes a job",
            "Sidekiq::Client.handles nil"
        ]
    );
    // A call that is no test framework's stays code.
    let app = "app.get('/users', (req, res) => {\n  res.send(users)\n})\n";
    let file = chunk_source(
        "app.js",
        Language::JavaScript,
        app,
        &ChunkOptions::default(),
    );
    assert!(file.chunks.iter().all(|c| c.kind == "module"));
}

#[test]
fn functions_inside_wrapping_functions_are_chunks() {
    let umd = ";(function (root, factory) {\n  root.lib = factory()\n})(this, function () {\n\
               \x20 'use strict'\n\n  function parse(text) {\n    return text.split(',')\n  }\n\n\
               \x20 return { parse: parse }\n})\n\n\
               $(function () {\n  function init() {\n    bind()\n  }\n  init()\n})\n";
    let file = chunk_source(
        "lib.js",
        Language::JavaScript,
        umd,
        &ChunkOptions::default(),
    );
    let functions: Vec<(&str, u32, u32)> = file
        .chunks
        .iter()
        .filter(|c| c.kind == "function")
        .map(|c| (c.symbol.as_str(), c.start_line, c.end_line))
        .collect();
    assert_eq!(functions, [("parse", 6, 8), ("init", 14, 16)]);
    let lua = "local M = {}\n\ndo\n  local cache = {}\n  function M.get(k)\n    return cache[k]\n  end\nend\n\nreturn M\n";
    let file = chunk_source("cache.lua", Language::Lua, lua, &ChunkOptions::default());
    assert!(file
        .chunks
        .iter()
        .any(|c| c.symbol == "M.get" || c.fqn == "M.get"));
}

#[test]
fn function_like_macros_of_a_few_lines_are_chunks() {
    let source = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\n\
                  #define LIBM_DD(name) \\\n\
                  static double f_ ## name(double x) { \\\n\
                  \x20 return name(x); \\\n\
                  }\n\n\
                  int use(void) { return MAX(1, 2); }\n";
    let file = chunk_source("math.c", Language::C, source, &ChunkOptions::default());
    let macros: Vec<(&str, u32, u32)> = file
        .chunks
        .iter()
        .filter(|c| c.kind == "macro")
        .map(|c| (c.symbol.as_str(), c.start_line, c.end_line))
        .collect();
    assert_eq!(macros, [("LIBM_DD", 3, 6)]);
    assert!(file.chunks.iter().any(|c| c.symbol == "use"));
}

#[test]
fn a_header_that_reads_as_cpp_gives_cpp_chunks() {
    let cpp = "namespace log {\nclass sink {\npublic:\n    void flush() { n_ = 0; }\nprivate:\n    int n_;\n};\n}\n";
    let file = chunk_source("sink.h", Language::C, cpp, &ChunkOptions::default());
    assert!(file.chunks.iter().any(|c| c.symbol == "flush"));
    assert!(file.chunks.iter().all(|c| c.language == Language::Cpp));
    let c = "struct point { int x; int y; };\n\nint norm(struct point p) { return p.x * p.x; }\n";
    let file = chunk_source("point.h", Language::C, c, &ChunkOptions::default());
    assert!(file.chunks.iter().all(|c| c.language == Language::C));
}
