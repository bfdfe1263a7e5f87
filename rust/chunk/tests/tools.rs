//! Manual runs, ignored by default: show one file's chunks, measure throughput, chunk a corpus.

use std::path::{Path, PathBuf};

use super::*;

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

/// `BENCH_DIR=/usr/lib/python3.11 BENCH_EXT=py cargo test --release --lib chunk::tests::tools::throughput -- --ignored --nocapture`
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

/// `CORPUS_DIR=/some/tree cargo test --release --lib chunk::tests::tools::corpus -- --ignored`:
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
