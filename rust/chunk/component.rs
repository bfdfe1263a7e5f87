//! Vue and Svelte single-file components.
//!
//! Each top-level `<script>` block is chunked with the JavaScript table, parsed as
//! JavaScript, TypeScript (`lang="ts"`) or TSX (`lang="tsx"`) from a copy of the file in
//! which everything else is blanked: offsets and line numbers stay the file's own. The
//! opening tag joins the block's first chunk. Each `<style>` block becomes `<style>` chunks
//! and the rest (the template, Svelte's markup, custom blocks) `<template>` chunks, cut at
//! lines when too big. Blocks are found by their tags at the start of a line, outside
//! `<!-- -->` comments, as formatters write them; past `MAX_SCRIPTS` script blocks (only a
//! hostile file has them) the rest is template text.

use std::collections::HashMap;

use super::driver::{Chunker, OutOfTime};
use super::ecmascript;
use super::errors::syntax_errors;
use super::scopes::module_name;
use super::split;
use super::text::{char_len, Source};
use super::types::FileChunks;
use crate::graph;
use crate::lang::Language;
use crate::parse::{parse, Deadline, ParseFailure};
use crate::records::Chunk;

/// Script blocks parsed per file; more stay template text. A component has one or two, and
/// each costs a pass over the whole file.
const MAX_SCRIPTS: usize = 8;

/// A `<script>` or `<style>` element.
struct Block {
    /// The script's grammar; `None` for a style block.
    script: Option<Language>,
    /// From `<` of the opening tag to past `>` of the closing one.
    outer: (usize, usize),
    /// The content between the tags.
    inner: (usize, usize),
}

/// Chunk a component file's `text` (BOM and CRLF already gone) into `result`; `Err` when
/// `deadline` passes first.
pub(super) fn chunk(
    path: &str,
    language: Language,
    text: &str,
    max_chars: usize,
    deadline: Deadline,
    result: &mut FileChunks,
) -> Result<(), OutOfTime> {
    let max_chars = max_chars.max(64);
    let blocks = blocks(text);
    let source = Source::new(text);
    // Each chunk with the group its id was numbered in: a script block, or itself.
    let mut chunks: Vec<(usize, Chunk)> = Vec::new();
    // Byte ranges that script chunks hold; the rest is template or style.
    let mut claimed: Vec<(usize, usize)> = Vec::new();
    let scripts = blocks.iter().enumerate().filter_map(|(index, block)| {
        let script_language = block.script?;
        let (start, end) = block.inner;
        (!text[start..end].trim().is_empty()).then_some((index, block, script_language))
    });
    for (index, block, script_language) in scripts.take(MAX_SCRIPTS) {
        let (start, end) = block.inner;
        let masked = mask(text, start, end);
        let tree = match parse(script_language, &masked, deadline) {
            Ok(tree) => tree,
            Err(ParseFailure::OutOfTime) => return Err(OutOfTime),
            Err(ParseFailure::Failed(error)) => {
                result.error = Some(error);
                return Ok(());
            }
        };
        let masked_source = Source::new(&masked);
        let root = tree.root_node();
        if root.has_error() {
            result
                .syntax_errors
                .extend(syntax_errors(root, &masked_source));
        }
        let mut chunker =
            Chunker::new(&ecmascript::SPEC, &masked_source, path, language, max_chars);
        chunker.walk(root, deadline)?;
        let mut script_chunks = chunker.finish();
        match graph::references(script_language, root, &masked, 0, deadline) {
            Some(references) => graph::assign(&mut script_chunks, references),
            None => result.syntax_errors.push(deadline.references_overrun()),
        }
        let absorbed = absorb_opening_tag(&mut script_chunks, &source, block, max_chars);
        claimed.push((if absorbed { block.outer.0 } else { start }, block.outer.1));
        chunks.extend(script_chunks.into_iter().map(|chunk| (index, chunk)));
    }
    let stem = module_name(path);
    let header = format!("// Context: module {stem} ({path})\n");
    let mut cursor = 0;
    for (start, end) in claimed.iter().copied().chain([(text.len(), text.len())]) {
        regions(text, cursor, start, &blocks, |kind, a, b| {
            for chunk in region_chunks(&source, kind, a, b, &header, path, language, max_chars) {
                chunks.push((blocks.len() + chunks.len(), chunk));
            }
        });
        cursor = end;
    }
    chunks.sort_by_key(|(_, chunk)| chunk.start_line);
    renumber(&mut chunks);
    result.chunks = chunks.into_iter().map(|(_, chunk)| chunk).collect();
    Ok(())
}

/// Number same-id chunks across groups in file order (`<module>`, `<module>#2`, ...), as the
/// driver numbers them within one; the parts of a split symbol keep their `#partN`.
fn renumber(chunks: &mut [(usize, Chunk)]) {
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut assigned: HashMap<(usize, String, u32), u32> = HashMap::new();
    for (group, chunk) in chunks.iter_mut() {
        let (id, part) = split_suffix(&chunk.id, "#part");
        let (base, ordinal) = split_suffix(id, "#");
        let ordinal = ordinal.and_then(|n| n.parse().ok()).unwrap_or(1);
        let key = (*group, base.to_string(), ordinal);
        let renumbered = *assigned.entry(key).or_insert_with(|| {
            let count = counts.entry(base.to_string()).or_insert(0);
            *count += 1;
            *count
        });
        let mut id = base.to_string();
        if renumbered > 1 {
            id.push_str(&format!("#{renumbered}"));
        }
        if let Some(part) = part {
            id.push_str(&format!("#part{part}"));
        }
        chunk.id = id;
    }
}

/// `("x", Some("2"))` for `x{marker}2`; the id unchanged when it has no such numeric suffix.
fn split_suffix<'a>(id: &'a str, marker: &str) -> (&'a str, Option<&'a str>) {
    match id.rfind(marker) {
        Some(at)
            if id.len() > at + marker.len()
                && id[at + marker.len()..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            (&id[..at], Some(&id[at + marker.len()..]))
        }
        _ => (id, None),
    }
}

/// Split `[start, end)` of unclaimed text at the style blocks inside it.
fn regions(
    text: &str,
    start: usize,
    end: usize,
    blocks: &[Block],
    mut emit: impl FnMut(&'static str, usize, usize),
) {
    let mut cursor = start;
    for block in blocks.iter().filter(|b| b.script.is_none()) {
        let (a, b) = block.outer;
        if a < cursor || b > end {
            continue;
        }
        emit("template", cursor, a);
        emit("style", a, b);
        cursor = b;
    }
    if cursor < end {
        emit("template", cursor, end.min(text.len()));
    }
}

/// Template or style chunks of `[start, end)`, cut at lines to fit `max_chars`.
#[allow(clippy::too_many_arguments)]
fn region_chunks(
    source: &Source,
    kind: &'static str,
    start: usize,
    end: usize,
    header: &str,
    path: &str,
    language: Language,
    max_chars: usize,
) -> Vec<Chunk> {
    let text = source.slice(start, end);
    let budget = max_chars
        .saturating_sub(char_len(header))
        .max(max_chars / 4);
    split::pack(text, &[], budget, budget)
        .into_iter()
        .filter_map(|(a, b)| {
            let piece = &text[a..b];
            let skipped = piece.len() - piece.trim_start().len();
            let code = piece.trim();
            if code.is_empty() {
                return None;
            }
            let first = start + a + skipped;
            Some(Chunk {
                id: format!("{path}::<{kind}>"),
                path: path.to_string(),
                language,
                kind,
                symbol: String::new(),
                fqn: String::new(),
                start_line: (source.line_of(first) + 1) as u32,
                end_line: (source.last_line_of(first, first + code.len()) + 1) as u32,
                header: header.to_string(),
                code: code.to_string(),
                text: [header, code].concat(),
                references: Vec::new(),
            })
        })
        .collect()
}

/// Put the block's opening tag (`<script setup lang="ts">`) in front of its first chunk,
/// when only blank lines lie between and the chunk stays within `max_chars`.
fn absorb_opening_tag(
    chunks: &mut [Chunk],
    source: &Source,
    block: &Block,
    max_chars: usize,
) -> bool {
    let Some(first) = chunks.iter_mut().min_by_key(|chunk| chunk.start_line) else {
        return false;
    };
    let tag_start = block.outer.0;
    let tag_line = source.line_of(tag_start) as u32 + 1;
    let first_line_start = source.start_of_line(first.start_line as usize - 1);
    let between = source.slice(block.inner.0, first_line_start);
    if !between.trim().is_empty() || tag_line >= first.start_line {
        return false;
    }
    let tag = source.slice(tag_start, block.inner.0).trim_end();
    let code = format!("{tag}\n{}", first.code);
    if char_len(&first.header) + char_len(&code) > max_chars {
        return false;
    }
    first.text = [first.header.as_str(), code.as_str()].concat();
    first.code = code;
    first.start_line = tag_line;
    true
}

/// `text` with every byte outside `[start, end)` blanked, newlines kept.
fn mask(text: &str, start: usize, end: usize) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for (index, byte) in bytes.iter_mut().enumerate() {
        if (index < start || index >= end) && *byte != b'\n' {
            *byte = b' ';
        }
    }
    // Only whole characters were blanked (the bounds sit next to `>` and `<`).
    String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// The first closing tag `</name>` (any case, blanks before `>`) from `start`: where it
/// starts and ends. A `</script` that goes on otherwise (`</script<>`) closes nothing: it
/// would swallow what follows it on its line.
fn closing_tag(bytes: &[u8], start: usize, closing: &[u8]) -> Option<(usize, usize)> {
    let mut from = start;
    while let Some(at) = find_ignore_case(&bytes[from..], closing) {
        let close = from + at;
        let mut end = close + closing.len();
        while end < bytes.len() && bytes[end].is_ascii_whitespace() {
            end += 1;
        }
        if bytes.get(end) == Some(&b'>') {
            return Some((close, end + 1));
        }
        from = close + closing.len();
    }
    None
}

/// The `<script>` and `<style>` elements that open at the start of a line.
fn blocks(text: &str) -> Vec<Block> {
    let bytes = text.as_bytes();
    let mut blocks = Vec::new();
    let mut pos = 0;
    let mut in_comment = false;
    while pos < bytes.len() {
        let line_end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |at| pos + at);
        let line = &bytes[pos..line_end];
        if in_comment {
            in_comment = find(line, b"-->").is_none();
            pos = line_end + 1;
            continue;
        }
        let element = [&b"script"[..], &b"style"[..]]
            .into_iter()
            .find(|name| opens(line, name));
        if let Some(name) = element {
            let Some(tag_end) = tag_end(bytes, pos) else {
                break;
            };
            let attributes = &text[pos + 1 + name.len()..tag_end];
            let inner_start = tag_end + 1;
            let self_closing = attributes.trim_end().ends_with('/');
            let (inner_end, outer_end) = if self_closing {
                (inner_start, inner_start)
            } else {
                let mut closing = Vec::with_capacity(name.len() + 2);
                closing.extend_from_slice(b"</");
                closing.extend_from_slice(name);
                match closing_tag(bytes, inner_start, &closing) {
                    Some((close, outer_end)) => (close, outer_end),
                    None => (bytes.len(), bytes.len()),
                }
            };
            blocks.push(Block {
                script: (name == b"script").then(|| script_language(attributes)),
                outer: (pos, outer_end),
                inner: (inner_start, inner_end),
            });
            pos = memchr::memchr(b'\n', &bytes[outer_end.min(bytes.len())..])
                .map_or(bytes.len(), |at| outer_end + at + 1);
            continue;
        }
        if let Some(open) = find(line, b"<!--") {
            in_comment = find(&line[open..], b"-->").is_none();
        }
        pos = line_end + 1;
    }
    blocks
}

/// Whether `line` starts with `<name` followed by a space, `>` or `/`, in any case.
fn opens(line: &[u8], name: &[u8]) -> bool {
    line.len() > name.len() + 1
        && line[0] == b'<'
        && line[1..=name.len()].eq_ignore_ascii_case(name)
        && matches!(line[name.len() + 1], b' ' | b'\t' | b'\r' | b'>' | b'/')
}

/// The `>` that ends the tag opening at `start`, skipping quoted attribute values.
fn tag_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut quote = None;
    for (offset, &byte) in bytes[start..].iter().enumerate() {
        match (quote, byte) {
            (None, b'"' | b'\'') => quote = Some(byte),
            (Some(open), _) if byte == open => quote = None,
            (None, b'>') => return Some(start + offset),
            _ => {}
        }
    }
    None
}

/// JavaScript, or TypeScript / TSX as the `lang` attribute says.
fn script_language(attributes: &str) -> Language {
    let lower = attributes.to_ascii_lowercase();
    let value = lower.find("lang").and_then(|at| {
        let rest = lower[at + 4..].trim_start().strip_prefix('=')?.trim_start();
        let rest = rest.trim_start_matches(['"', '\'']);
        let end = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        Some(rest[..end].to_string())
    });
    match value.as_deref() {
        Some("ts" | "typescript") => Language::TypeScript,
        Some("tsx") => Language::Tsx,
        _ => Language::JavaScript,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// The first `needle` (ASCII) in `haystack`, in any case.
fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = memchr::memchr(needle[0], &haystack[from..]) {
        let at = from + at;
        if haystack.len() - at >= needle.len()
            && haystack[at..at + needle.len()].eq_ignore_ascii_case(needle)
        {
            return Some(at);
        }
        from = at + 1;
    }
    None
}
