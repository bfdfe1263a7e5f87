//! Hostile inputs: minified bundles, deep nesting, odd encodings, truncated and invalid files.

use std::fmt::Write as _;

use super::*;

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
