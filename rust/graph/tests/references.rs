//! What every reference carries: queries that compile, order, bounds, qualifiers, import paths.

use std::path::Path;

use super::*;

#[test]
fn every_query_compiles() {
    for language in Language::all() {
        if let Err(error) = compile(language) {
            panic!("{error}");
        }
        if crate::chunk::supports(language) && !matches!(language, Language::Vue | Language::Svelte)
        {
            assert!(
                compile(language).unwrap().is_some(),
                "{} has a grammar but no references query",
                language.name()
            );
        }
    }
}

#[test]
fn references_are_sorted_deduplicated_and_bounded_to_lines_in_chunks() {
    let source = "def a():\n    b(); b()\n    c()\n";
    let file = chunked("m.py", source);
    let names: Vec<(&str, u32)> = file.chunks[0]
        .references
        .iter()
        .map(|r| (r.name.as_str(), r.line))
        .collect();
    assert_eq!(names, [("b", 2), ("c", 3)]);
}

#[test]
fn import_paths_split_into_qualifier_and_name() {
    assert_eq!(split_path("sharc.graph"), ("sharc", "graph"));
    assert_eq!(
        split_path("std::collections::HashMap"),
        ("std::collections", "HashMap")
    );
    assert_eq!(split_path("App\\Models\\User"), ("App\\Models", "User"));
    assert_eq!(split_path("plain"), ("", "plain"));
    assert_eq!(
        split_file_path("./utils/helpers.js"),
        ("./utils", "helpers")
    );
    assert_eq!(
        split_file_path("github.com/acme/store"),
        ("github.com/acme", "store")
    );
    assert_eq!(split_file_path("stdio.h"), ("", "stdio"));
}

/// `SHARC_DUMP=path cargo test --lib dump_tree -- --nocapture --ignored` prints a file's tree.
#[test]
#[ignore]
fn dump_tree() {
    let path = std::env::var("SHARC_DUMP").unwrap();
    let language = Language::from_path(Path::new(&path)).unwrap();
    let source = std::fs::read_to_string(&path).unwrap();
    let tree = crate::parse::parse_for_tests(language, &source);
    println!("{}", tree.root_node().to_sexp());
}

#[test]
fn calls_through_a_receiver_keep_it_as_their_qualifier() {
    let file = chunked(
        "app/run.py",
        "def run(store):\n    store.load(1)\n    self.save()\n    load(2)\n    make(a, b).close()\n",
    );
    let found: Vec<(&str, &str)> = file.chunks[0]
        .references
        .iter()
        .map(|r| (r.name.as_str(), r.qualifier.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("load", "store"),
            ("save", "self"),
            ("load", ""),
            ("close", "…"),
            ("make", "")
        ]
    );
    let java = chunked(
        "A.java",
        "class A { void f() { repo.find(1); helper(); } }\n",
    );
    let calls: Vec<(&str, &str)> = java
        .chunks
        .iter()
        .flat_map(|c| c.references.iter())
        .filter(|r| r.kind == "call")
        .map(|r| (r.name.as_str(), r.qualifier.as_str()))
        .collect();
    assert_eq!(calls, [("find", "repo"), ("helper", "")]);
}
