//! How hostile inputs are made: the languages, their sample files, and the proptest
//! strategies that turn a sample into random bytes, a mutation, deep nesting or a huge line.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use crate::chunk::supports;
use crate::lang::Language;

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
