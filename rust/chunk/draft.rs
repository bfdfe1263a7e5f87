//! A chunk before ids, headers and size limits: what the walk (`driver.rs`) hands to the
//! renderer (`render.rs`).

use tree_sitter::Node;

/// Where a chunk's code comes from.
pub(super) enum Body<'t> {
    /// A source range; split at the statements of `body` (symbols) or at `cuts` (modules).
    Range {
        start: usize,
        end: usize,
        body: Option<Node<'t>>,
        cuts: Vec<usize>,
    },
    /// Assembled text (class-level chunks), with the source line of each of its lines.
    Assembled { text: String, lines: Vec<u32> },
    /// A class whose members are still being read.
    Pending,
}

/// A chunk before ids, headers and size limits.
pub(super) struct Draft<'t> {
    pub(super) kind: &'static str,
    pub(super) symbol: String,
    pub(super) fqn: String,
    pub(super) base_id: String,
    pub(super) context: String,
    pub(super) decorators: String,
    /// Byte range of the signature, for part headers.
    pub(super) signature: (usize, usize),
    pub(super) body: Body<'t>,
    pub(super) start_line: u32,
    pub(super) end_line: u32,
    /// Oversized module runs become several chunks rather than parts.
    pub(super) parts: bool,
}
