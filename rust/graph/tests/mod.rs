//! Reference extraction per language family, on small real snippets parsed by the grammars,
//! one file per group of languages; this module holds the helpers they share.

mod long_tail;
mod mainstream;
mod references;

use std::path::Path;

use super::*;
use crate::chunk::{chunk_source, ChunkOptions, FileChunks};

fn chunked(path: &str, source: &str) -> FileChunks {
    let language = Language::from_path(Path::new(path)).expect("a known extension");
    chunk_source(path, language, source, &ChunkOptions::default())
}

/// `(chunk symbol, name, kind)` for every reference in the file, in chunk order.
fn edges(path: &str, source: &str) -> Vec<(String, String, &'static str)> {
    chunked(path, source)
        .chunks
        .iter()
        .flat_map(|chunk| {
            chunk
                .references
                .iter()
                .map(|r| (chunk.symbol.clone(), r.name.clone(), r.kind))
        })
        .collect()
}

/// Assert that each `(symbol, name, kind)` is among the file's edges.
#[track_caller]
fn assert_edges(path: &str, source: &str, expected: &[(&str, &str, &str)]) {
    let found = edges(path, source);
    for (symbol, name, kind) in expected {
        assert!(
            found
                .iter()
                .any(|(s, n, k)| s == symbol && n == name && k == kind),
            "{path}: no {kind} of {name} in {symbol:?}; found {:?}",
            found
                .iter()
                .map(|(s, n, k)| format!("{s}:{n}:{k}"))
                .collect::<Vec<_>>()
        );
    }
}
