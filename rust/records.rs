//! The records the chunker fills and the graph reads: a chunk, and the names it references.

use crate::lang::Language;

/// One chunk: a symbol, a class-level summary, or a run of module-level code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Stable: `"{path}::{fqn}"`, `"{path}::{fqn}::class"`, `"{path}::<module>"`; `#2` for
    /// same-id siblings, `#part2` for the parts of a split symbol.
    pub id: String,
    /// The file's path as given.
    pub path: String,
    pub language: Language,
    /// "function", "method", "class", "interface", "struct", "enum", "trait", "impl",
    /// "module", "type", ...
    pub kind: &'static str,
    /// Short name; empty for module-level code.
    pub symbol: String,
    /// Scope names and the symbol, joined with `.`.
    pub fqn: String,
    /// First line of the code, 1-based.
    pub start_line: u32,
    /// Last line of the code, 1-based, inclusive.
    pub end_line: u32,
    /// Context lines in the language's comment syntax, each ending in `\n`.
    pub header: String,
    /// The source of the chunk (dedented; a class-level chunk elides method bodies).
    pub code: String,
    /// `header + code`: what gets embedded.
    pub text: String,
    /// The names this chunk calls, imports, inherits or mentions as types, sorted
    /// (`crate::graph`).
    pub references: Vec<Reference>,
}

/// A name a chunk refers to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reference {
    /// The referenced name as written, without its qualifier ("authenticate").
    pub name: String,
    /// "call", "import", "type" or "inherit".
    pub kind: &'static str,
    /// 1-based line of the reference.
    pub line: u32,
    /// What the name was reached through, as written: the module path of an import
    /// ("sharc" for `sharc.graph`), the receiver of a call (`self`, `os.path`, `Store`; `…`
    /// for a longer expression); empty for a bare name.
    pub qualifier: String,
}
