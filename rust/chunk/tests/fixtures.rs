//! Golden snapshots of the fixtures, their coverage, and which languages have a grammar.

use std::path::{Path, PathBuf};

use super::*;

fn chunk_fixture(path: &str, full: &Path, language: Language) -> FileChunks {
    let source = std::fs::read_to_string(full).unwrap();
    chunk_source(path, language, &source, &ChunkOptions::default())
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
