//! Snapshot, coverage, stability and hostile-input tests for the chunker, one file per
//! concern; this module holds the helpers they share.
//!
//! Golden files: every fixture under `tests/fixtures/chunk/<language>/` has a `.snap` next to
//! it; `UPDATE_SNAPSHOTS=1 cargo test --lib chunk` rewrites them.
//!
//! The files reach the chunker's items through the glob import below, its `fuzz` and `text`
//! modules included (`super::fuzz::covered`, `super::text::floor_char`).

mod c_family;
mod c_macros;
mod ecmascript;
mod fixtures;
mod fuzzing;
mod hostile;
mod ruby;
mod rust_lang;
mod structure;
mod tools;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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
