//! Hostile inputs for the chunker in every grammar: how they are made, what the chunker must
//! do with each, and a fixed-seed run that CI runs (`cargo test --lib`). The long run is
//! `examples/fuzz_chunker.rs` (`benches/fuzz/run.py`), built with the `fuzz` feature.
//!
//! **Inputs.** For each language the table chunks (`Language::all()` filtered by
//! `supports`), starting from the real sample files under `tests/fixtures/`: random bytes
//! (uniform, or drawn from the punctuation and letters code is made of); a sample mutated by
//! bit flips, splices of its own text, deletions, truncations and inserted invalid UTF-8;
//! deep nesting (a bracket, a keyword or a piece of the sample repeated up to 10,000 times);
//! and huge lines (a piece of the sample repeated, with no newline, to hundreds of KB or MBs).
//!
//! **Properties**, checked on `chunk_text`, the chunker *without* `isolated`'s
//! `catch_unwind`, so that a panic is found rather than turned into a file's error:
//!
//! - no panic;
//! - no hang: the file is done within its time budget plus the plain-lines fallback's time
//!   (`MAX_OVERRUN`); a file that runs out of budget is chunked as plain lines and says so;
//! - coverage: either the file is reported (`error` set), or every line holding more than
//!   whitespace, brackets, separators and closing keywords (`is_trivial`) lies in the line
//!   range of some chunk, and each of its words is in the code of a chunk over it, whole or
//!   in pieces where two chunks meet (words: split at whitespace, brackets and separators, which a chunk boundary may cut
//!   off, and at control characters, which some grammars skip as whitespace; closing
//!   keywords, trivial alone, may be left out);
//! - well-formed chunks: `1 <= start_line <= end_line <= lines`, `text == header + code`, a
//!   header ending in a newline, code that is not blank, unique ids, and the size limit
//!   (only a header longer than three quarters of it may push a chunk over).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::text::{char_len, is_closer, is_trivial, CLOSERS};
use super::{chunk_text, hash, normalize, spec_for, supports, ChunkOptions, FileChunks};
use crate::lang::Language;

/// How long a file may take beyond its budget: the plain-lines fallback after a cancelled
/// parse, and the clock checks' granularity.
pub const MAX_OVERRUN: Duration = Duration::from_secs(2);

/// Every language the chunker parses, in the table's order.
pub fn languages() -> Vec<Language> {
    let mut languages: Vec<Language> = Vec::new();
    for language in Language::all().filter(|language| supports(*language)) {
        if !languages.contains(&language) {
            languages.push(language);
        }
    }
    languages
}

/// A real file to mutate: its path (for the chunks' ids) and bytes.
#[derive(Clone, Debug)]
pub struct Sample {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// The sample files of `language` under `tests/fixtures/`, sorted by path.
pub fn samples(language: Language) -> Vec<Sample> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found: Vec<PathBuf> = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(directory) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if Language::from_path(&path) == Some(language)
                && !path.extension().is_some_and(|e| e == "snap")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(&path).ok()?;
            let relative = path.strip_prefix(&root).ok()?;
            Some(Sample {
                path: relative.to_string_lossy().replace('\\', "/"),
                bytes,
            })
        })
        .collect()
}

/// How big generated inputs may get.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most random bytes in a random input.
    pub random_bytes: usize,
    /// Most repetitions of a nesting opener.
    pub depth: usize,
    /// Most bytes of one huge line.
    pub line_bytes: usize,
}

impl Limits {
    /// What the CI run uses: deep nesting at the full 10,000, lines of up to 32 KB.
    pub const SHORT: Limits = Limits {
        random_bytes: 1024,
        depth: 10_000,
        line_bytes: 32 * 1024,
    };
}

/// A position in the input, as a fraction of its length (`u32::MAX` is the end), so that an
/// edit stays valid whatever came before it.
type At = u32;

fn position(at: At, len: usize) -> usize {
    ((at as u64 * len as u64) / u32::MAX as u64) as usize
}

/// One change to a sample.
#[derive(Clone, Debug)]
pub enum Edit {
    /// Flip one bit of a byte.
    Flip { at: At, bit: u8 },
    /// Copy `len` bytes of the input from `from` to `to`.
    Splice { from: At, len: u16, to: At },
    /// Remove `len` bytes.
    Delete { at: At, len: u16 },
    /// Cut the input here.
    Truncate { at: At },
    /// Insert bytes (often invalid UTF-8, NUL, CR or a lone surrogate's encoding).
    Insert { at: At, bytes: Vec<u8> },
}

/// A generated input for one language.
#[derive(Clone, Debug)]
pub enum Shape {
    /// Random bytes, the sample not used.
    Random(Vec<u8>),
    /// The sample with edits applied in order.
    Mutated(Vec<Edit>),
    /// An opener repeated `depth` times at `at`, then the closer as often (when it has one).
    Nested {
        at: At,
        opener: Piece,
        depth: u16,
        close: bool,
    },
    /// A piece repeated with no newline to `bytes` bytes, at `at`.
    HugeLine { at: At, piece: Piece, bytes: u32 },
}

/// Text to repeat: a fixed opener/closer pair, or a piece of the sample.
#[derive(Clone, Debug)]
pub enum Piece {
    Pair(usize),
    Sample { from: At, len: u8 },
}

/// Openers and closers that nest in some grammar.
pub const PAIRS: &[(&str, &str)] = &[
    ("(", ")"),
    ("[", "]"),
    ("{", "}"),
    ("([{", "}])"),
    ("<div>", "</div>"),
    ("{#if a}", "{/if}"),
    ("\"${", "}\""),
    ("`${", "}`"),
    ("#{", "}"),
    ("/*", "*/"),
    ("(*", "*)"),
    ("{-", "-}"),
    ("begin\n", "end\n"),
    ("do\n", "end\n"),
    ("if x then\n", "end\n"),
    ("def f():\n", ""),
    ("class A {\n", "}\n"),
    ("namespace a {", "}"),
    ("module A\n", "end\n"),
    ("(defn f [] ", ")"),
    ("let x = ", " in x"),
    ("f(x, ", ")"),
    ("\\", ""),
    ("\"", ""),
    ("'", ""),
    ("-", ""),
    ("#", ""),
    ("<", ">"),
    ("@", ""),
    ("\t", ""),
];

/// One input: a language, a sample of it, and how the sample is turned into the input.
#[derive(Clone, Debug)]
pub struct Case {
    pub language: Language,
    pub sample: usize,
    pub shape: Shape,
}

impl Case {
    /// The file the case stands for.
    pub fn path<'a>(&self, samples: &'a [Sample]) -> &'a str {
        &samples[self.sample % samples.len()].path
    }

    /// What kind of input this is, in a word: `random`, `mutated`, `nested`, `huge-line`.
    pub fn kind(&self) -> &'static str {
        match self.shape {
            Shape::Random(_) => "random",
            Shape::Mutated(_) => "mutated",
            Shape::Nested { .. } => "nested",
            Shape::HugeLine { .. } => "huge-line",
        }
    }

    /// The input's bytes.
    pub fn bytes(&self, samples: &[Sample]) -> Vec<u8> {
        let sample = &samples[self.sample % samples.len()].bytes;
        match &self.shape {
            Shape::Random(bytes) => bytes.clone(),
            Shape::Mutated(edits) => {
                let mut bytes = sample.clone();
                for edit in edits {
                    apply(&mut bytes, edit);
                }
                bytes
            }
            Shape::Nested {
                at,
                opener,
                depth,
                close,
            } => {
                let (open, closing) = piece(sample, opener);
                let at = position(*at, sample.len());
                let mut bytes = Vec::with_capacity(sample.len() + open.len() * *depth as usize);
                bytes.extend_from_slice(&sample[..at]);
                for _ in 0..*depth {
                    bytes.extend_from_slice(&open);
                }
                if *close {
                    for _ in 0..*depth {
                        bytes.extend_from_slice(&closing);
                    }
                }
                bytes.extend_from_slice(&sample[at..]);
                bytes
            }
            Shape::HugeLine {
                at,
                piece: repeated,
                bytes: size,
            } => {
                let (mut line, _) = piece(sample, repeated);
                line.retain(|b| *b != b'\n' && *b != b'\r');
                if line.is_empty() {
                    line.push(b'x');
                }
                let at = position(*at, sample.len());
                let size = *size as usize;
                let mut bytes = Vec::with_capacity(sample.len() + size);
                bytes.extend_from_slice(&sample[..at]);
                while bytes.len() < at + size {
                    bytes.extend_from_slice(&line);
                }
                bytes.extend_from_slice(&sample[at..]);
                bytes
            }
        }
    }
}

fn piece(sample: &[u8], piece: &Piece) -> (Vec<u8>, Vec<u8>) {
    match piece {
        Piece::Pair(index) => {
            let (open, close) = PAIRS[index % PAIRS.len()];
            (open.as_bytes().to_vec(), close.as_bytes().to_vec())
        }
        Piece::Sample { from, len } => {
            let from = position(*from, sample.len());
            let end = (from + *len as usize + 1).min(sample.len());
            (sample[from..end].to_vec(), Vec::new())
        }
    }
}

fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    let len = bytes.len();
    match edit {
        Edit::Flip { at, bit } => {
            if len > 0 {
                bytes[position(*at, len - 1)] ^= 1 << (bit % 8);
            }
        }
        Edit::Splice {
            from,
            len: count,
            to,
        } => {
            let from = position(*from, len);
            let end = (from + *count as usize).min(len);
            let copied = bytes[from..end].to_vec();
            let to = position(*to, len);
            bytes.splice(to..to, copied);
        }
        Edit::Delete { at, len: count } => {
            let at = position(*at, len);
            let end = (at + *count as usize).min(len);
            bytes.drain(at..end);
        }
        Edit::Truncate { at } => bytes.truncate(position(*at, len)),
        Edit::Insert {
            at,
            bytes: inserted,
        } => {
            let at = position(*at, len);
            bytes.splice(at..at, inserted.iter().copied());
        }
    }
}

/// Bytes code is made of, for random inputs that get past a grammar's first token.
const CODE_BYTES: &[u8] = b" \n\n\t(){}[]<>;:,.=+-*/\\\"'`#@$%&|!?^~_abcdefxyzABCZ0189\r";

fn random_bytes(limits: Limits) -> impl Strategy<Value = Vec<u8>> {
    let most = limits.random_bytes.max(1);
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..most),
        proptest::collection::vec(proptest::sample::select(CODE_BYTES), 0..most),
    ]
}

fn inserted_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // Invalid UTF-8: stray continuation bytes, truncated sequences, overlongs, surrogates.
        proptest::sample::select(vec![
            b"\x80".to_vec(),
            b"\xff\xfe".to_vec(),
            b"\xc3".to_vec(),
            b"\xe2\x82".to_vec(),
            b"\xc0\xaf".to_vec(),
            b"\xed\xa0\x80".to_vec(),
            b"\xf4\x90\x80\x80".to_vec(),
            b"\0".to_vec(),
            b"\r".to_vec(),
            b"\r\n".to_vec(),
            "\u{feff}".as_bytes().to_vec(),
            "\u{2028}".as_bytes().to_vec(),
            "é".as_bytes().to_vec(),
            "🦀".as_bytes().to_vec(),
        ]),
        proptest::collection::vec(any::<u8>(), 1..16),
        proptest::collection::vec(proptest::sample::select(CODE_BYTES), 1..16),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<u32>(), any::<u8>()).prop_map(|(at, bit)| Edit::Flip { at, bit }),
        3 => (any::<u32>(), 0..2048u16, any::<u32>())
            .prop_map(|(from, len, to)| Edit::Splice { from, len, to }),
        2 => (any::<u32>(), 0..512u16).prop_map(|(at, len)| Edit::Delete { at, len }),
        1 => any::<u32>().prop_map(|at| Edit::Truncate { at }),
        3 => (any::<u32>(), inserted_bytes()).prop_map(|(at, bytes)| Edit::Insert { at, bytes }),
    ]
}

fn opener() -> impl Strategy<Value = Piece> {
    prop_oneof![
        (0..PAIRS.len()).prop_map(Piece::Pair),
        (any::<u32>(), 0..24u8).prop_map(|(from, len)| Piece::Sample { from, len }),
    ]
}

fn shape(limits: Limits) -> impl Strategy<Value = Shape> {
    let depth = limits.depth.clamp(1, u16::MAX as usize) as u16;
    let line = limits.line_bytes.clamp(1, u32::MAX as usize) as u32;
    prop_oneof![
        3 => random_bytes(limits).prop_map(Shape::Random),
        10 => proptest::collection::vec(edit(), 1..8).prop_map(Shape::Mutated),
        1 => (any::<u32>(), opener(), prop_oneof![1..=64u16, 1..=depth], any::<bool>())
            .prop_map(|(at, opener, depth, close)| Shape::Nested { at, opener, depth, close }),
        1 => (any::<u32>(), opener(), prop_oneof![1..=4096u32, 1..=line])
            .prop_map(|(at, piece, bytes)| Shape::HugeLine { at, piece, bytes }),
    ]
}

/// Inputs for `language`, drawn from its `sample_count` samples.
pub fn cases(
    language: Language,
    sample_count: usize,
    limits: Limits,
) -> impl Strategy<Value = Case> {
    (0..sample_count.max(1), shape(limits)).prop_map(move |(sample, shape)| Case {
        language,
        sample,
        shape,
    })
}

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

#[cfg(test)]
mod tests {
    use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};

    use super::*;

    /// Write a failing input under `target/fuzz-failures/`, named like its sample; says where.
    fn save(case: &Case, samples: &[Sample]) -> String {
        let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
        let name = case.path(samples).replace('/', "-");
        let path = directory.join(name);
        match std::fs::create_dir_all(&directory)
            .and_then(|()| std::fs::write(&path, case.bytes(samples)))
        {
            Ok(()) => format!("\n(the input is in {})", path.display()),
            Err(_) => String::new(),
        }
    }

    /// The CI run's seed; the long run takes its own.
    const SEED: u64 = 0x5AA2C_F022;
    /// Inputs per language in CI: a few seconds for all of them.
    const CASES_PER_LANGUAGE: u32 = 40;

    /// A small budget: F# and Scala take seconds over some 40 KB inputs (the long run
    /// reports them), and CI should not.
    fn options() -> ChunkOptions {
        ChunkOptions {
            max_chars: 600,
            time_budget: Duration::from_millis(500),
        }
    }

    /// Run the fixed-seed cases of every language; a failure is shrunk to a small input.
    #[test]
    fn fixed_seed_hostile_inputs_in_every_language() {
        let languages = languages();
        assert!(languages.len() >= 35, "{} languages", languages.len());
        let mut failures = Vec::new();
        for (index, language) in languages.into_iter().enumerate() {
            let samples = samples(language);
            assert!(!samples.is_empty(), "no sample for {language:?}");
            let mut runner = TestRunner::new(Config {
                cases: CASES_PER_LANGUAGE,
                rng_seed: RngSeed::Fixed(SEED + index as u64),
                failure_persistence: None,
                max_shrink_iters: 2000,
                ..Config::default()
            });
            let outcome = runner.run(&cases(language, samples.len(), Limits::SHORT), |case| {
                let bytes = case.bytes(&samples);
                check(case.path(&samples), language, &bytes, &options())
                    .map(|_| ())
                    .map_err(|failure| TestCaseError::fail(format!("{failure:?}")))
            });
            if let Err(error) = outcome {
                let saved = match &error {
                    TestError::Fail(_, case) => save(case, &samples),
                    TestError::Abort(_) => String::new(),
                };
                failures.push(format!("{language:?}: {error}{saved}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}
