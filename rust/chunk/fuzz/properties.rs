//! What the chunker must do with each hostile input: no panic, no hang, every line covered
//! and well-formed chunks.

use std::time::{Duration, Instant};

use crate::chunk::text::{char_len, is_closer, is_trivial, CLOSERS};
use crate::chunk::{chunk_text, hash, normalize, spec_for, ChunkOptions, FileChunks};
use crate::lang::Language;

/// How long a file may take beyond its budget: the plain-lines fallback after a cancelled
/// parse, and the clock checks' granularity.
pub const MAX_OVERRUN: Duration = Duration::from_secs(2);

/// What went wrong with one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The chunker panicked (found by the caller, which catches it).
    Panic(String),
    /// The file took longer than its budget plus `MAX_OVERRUN`.
    Hang(Duration),
    /// A line in no chunk, or a malformed chunk.
    Coverage(String),
}

/// What one input came to, when it broke no property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Chunked from the tree.
    Chunked,
    /// Out of time: chunked as plain lines, or from the tree without references; the overrun
    /// reported.
    PlainLines,
    /// No chunks, and the file says why (`error`).
    Reported,
}

/// Chunk `bytes` as the file at `path` with the inner chunker (no `catch_unwind`: a panic
/// unwinds to the caller) and check the properties.
pub fn check(
    path: &str,
    language: Language,
    bytes: &[u8],
    options: &ChunkOptions,
) -> Result<Verdict, Failure> {
    let text = String::from_utf8_lossy(bytes);
    let started = Instant::now();
    let file = chunk_text(path, language, &text, hash(bytes), options);
    let elapsed = started.elapsed();
    if elapsed > options.time_budget + MAX_OVERRUN {
        return Err(Failure::Hang(elapsed));
    }
    if file.error.is_some() {
        return Ok(Verdict::Reported);
    }
    covered(&file, &text, options.max_chars).map_err(Failure::Coverage)?;
    let plain = file
        .syntax_errors
        .iter()
        .any(|error| error.contains("time budget"));
    Ok(if plain {
        Verdict::PlainLines
    } else {
        Verdict::Chunked
    })
}

/// Whether `c` separates words: whitespace, brackets and separators (which a chunk boundary
/// may cut off), control characters and zero-width spaces (which some grammars skip).
fn separates(c: char) -> bool {
    c.is_whitespace() || c.is_control() || "{}()[];,:\u{feff}\u{200b}".contains(c)
}

/// `text` without separators: where a line's words are looked for.
fn essence(text: &str) -> String {
    text.chars().filter(|c| !separates(*c)).collect()
}

/// The words of `line` that must be in some chunk: closing keywords aside (alone they are
/// trivial, and dropped), and closing tags and directives wherever they are in a word
/// (`<</script>`: a component's closing tag is no script's). In a component, tags separate
/// words.
fn words(line: &str, language: Language) -> Vec<String> {
    let mut line = line.to_string();
    for closer in CLOSERS
        .iter()
        .filter(|c| !c.starts_with(char::is_alphanumeric))
    {
        line = if closer.starts_with("</") {
            replace_ignoring_case(&line, closer)
        } else {
            line.replace(closer, " ")
        };
    }
    if matches!(language, Language::Vue | Language::Svelte) {
        // A tag and the script after it on its line are in different chunks.
        line = line.replace(['<', '>'], " ");
    }
    line.split(separates)
        .filter(|word| !word.is_empty() && !is_closer(word))
        .map(str::to_string)
        .collect()
}

/// `text` with each `needle` (ASCII), in any case, replaced by a space: a closing tag is one
/// in any case (`is_closer`).
fn replace_ignoring_case(text: &str, needle: &str) -> String {
    // ASCII lowercasing keeps every byte where it was.
    let lower = text.to_ascii_lowercase();
    let needle = needle.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (at, _) in lower.match_indices(&needle) {
        out.push_str(&text[from..at]);
        out.push(' ');
        from = at + needle.len();
    }
    out.push_str(&text[from..]);
    out
}

/// Whether `word` can be read from the chunks' code `lines` (essences) in pieces, as a word
/// cut where chunks meet is: the end of one line, then whole lines (the middle parts of a
/// huge line), then the start of another. Read in order of the word, not of the chunks: a
/// class chunk lists its member summaries after the piece of a huge line that it holds, and
/// a parse error glued to a method (`cache.`) may be in the class chunk while the method
/// holds the rest.
fn assembled(word: &str, lines: &[String]) -> bool {
    let ends: Vec<usize> = word
        .char_indices()
        .map(|(at, _)| at)
        .skip(1)
        .chain([word.len()])
        .collect();
    // Where the second piece may start: after a first piece that ends some line.
    let mut pending: Vec<usize> = ends
        .iter()
        .copied()
        .filter(|&end| lines.iter().any(|line| line.ends_with(&word[..end])))
        .collect();
    let mut seen = std::collections::HashSet::new();
    while let Some(at) = pending.pop() {
        let rest = &word[at..];
        if rest.is_empty() || lines.iter().any(|line| line.starts_with(rest)) {
            return true;
        }
        if !seen.insert(at) {
            continue;
        }
        for line in lines {
            if !line.is_empty() && rest.starts_with(line.as_str()) {
                pending.push(at + line.len());
            }
        }
    }
    false
}

/// Every non-trivial line of `source` in some chunk, and the chunks well-formed.
pub(crate) fn covered(file: &FileChunks, source: &str, max_chars: usize) -> Result<(), String> {
    let comment = spec_for(file.language).map_or("//", |spec| spec.comment);
    let text = normalize(source);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut ids: Vec<&str> = Vec::with_capacity(file.chunks.len());
    // The chunks over each line, in output order.
    let mut over: Vec<Vec<usize>> = vec![Vec::new(); lines.len() + 1];
    for (index, chunk) in file.chunks.iter().enumerate() {
        let id = &chunk.id;
        if chunk.start_line < 1 || chunk.start_line > chunk.end_line {
            return Err(format!(
                "{id}: lines {}-{}",
                chunk.start_line, chunk.end_line
            ));
        }
        if chunk.end_line as usize > lines.len() {
            return Err(format!(
                "{id}: ends at line {} of {}",
                chunk.end_line,
                lines.len()
            ));
        }
        if chunk.text != format!("{}{}", chunk.header, chunk.code) {
            return Err(format!("{id}: text is not header + code"));
        }
        if !chunk.header.ends_with('\n') {
            return Err(format!("{id}: header without a final newline"));
        }
        if chunk.code.trim().is_empty() {
            return Err(format!("{id}: blank code"));
        }
        let header = char_len(&chunk.header);
        if char_len(&chunk.text) > max_chars
            && !(header > max_chars * 3 / 4 && char_len(&chunk.code) <= max_chars / 4)
        {
            return Err(format!(
                "{id}: {} chars, over {max_chars}",
                char_len(&chunk.text)
            ));
        }
        for line in chunk.start_line..=chunk.end_line {
            over[line as usize].push(index);
        }
        ids.push(id);
    }
    for (index, line) in lines.iter().enumerate() {
        if line.trim().is_empty() || is_trivial(line, comment) {
            continue;
        }
        let number = index + 1;
        let chunks = &over[number];
        if chunks.is_empty() {
            return Err(format!("line {number} is in no chunk: {:?}", clip(line)));
        }
        let codes: Vec<String> = chunks
            .iter()
            .map(|&k| essence(&file.chunks[k].code))
            .collect();
        // A word cut at a chunk boundary (a huge line split at chars) is whole in the
        // chunks' codes read one after the other, or in pieces from their lines.
        let joined = codes.concat();
        let code_lines: Vec<String> = chunks
            .iter()
            .flat_map(|&k| file.chunks[k].code.split('\n'))
            .map(essence)
            .filter(|line| !line.is_empty())
            .collect();
        let missing = words(line, file.language).into_iter().find(|word| {
            !codes.iter().any(|code| code.contains(word.as_str()))
                && !joined.contains(word.as_str())
                && !assembled(word, &code_lines)
        });
        if let Some(word) = missing {
            return Err(format!(
                "line {number}: {word:?} is not in the code of the chunks over it ({}): {:?}",
                chunks
                    .iter()
                    .map(|&k| file.chunks[k].id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                clip(line)
            ));
        }
    }
    ids.sort_unstable();
    if let Some(pair) = ids.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(format!("duplicate id {}", pair[0]));
    }
    Ok(())
}

fn clip(line: &str) -> String {
    line.chars().take(120).collect()
}
