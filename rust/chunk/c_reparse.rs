//! C and C++ text that tree-sitter misreads, read again.
//!
//! A `.h` header may be C or C++; the C grammar reads a C++ header's classes as errors, so a
//! header with errors is parsed as C++ too, and that tree is kept when it has fewer errors.
//!
//! A file that parses with errors is parsed again with its attribute-like macros blanked
//! (`c_macros`), and if errors remain, once more with its conditionals that split a
//! declaration straightened too (`c_conditionals`). Each edit overwrites text with text of
//! the same length, so every node keeps its line and column; a new tree is kept only when it
//! has fewer errors. The chunker slices chunk text from the original source, so every chunk
//! shows the file as written.

use std::ops::ControlFlow;

use tree_sitter::Tree;

use super::c_conditionals::split_conditionals;
use super::c_macros::{attribute_macros, blank_macros};
use crate::lang::Language;
use crate::parse::{error_weight, for_each_error, reparse_edited};

/// The tree of a `.h` header and the grammar it is in: `tree` (parsed as C) when it has no
/// errors; otherwise the one with the fewest errors of the C and C++ trees, each read again
/// when that reads better (`straighten`), C on a tie. `parse` parses text in a grammar.
pub(crate) fn header_tree(
    text: &str,
    tree: Tree,
    parse: impl Fn(Language, &str) -> Option<Tree>,
) -> (Tree, Language) {
    if !tree.root_node().has_error() {
        return (tree, Language::C);
    }
    let best_of = |tree: Tree, grammar: Language| {
        straighten(text, &tree, |source| parse(grammar, source)).unwrap_or(tree)
    };
    let c = best_of(tree, Language::C);
    if !c.root_node().has_error() {
        return (c, Language::C);
    }
    match parse(Language::Cpp, text).map(|cpp| best_of(cpp, Language::Cpp)) {
        Some(cpp) if error_weight(cpp.root_node()) < error_weight(c.root_node()) => {
            (cpp, Language::Cpp)
        }
        _ => (c, Language::C),
    }
}

/// A tree of `text` read better, when `tree` has errors: with its attribute-like macros
/// blanked, then with the conditionals that split a declaration near a remaining parse error
/// straightened too (`c_conditionals`); the one with the fewest errors, when fewer than
/// `tree`'s. None otherwise. `parse` parses the file's language.
pub(crate) fn straighten(
    text: &str,
    tree: &Tree,
    parse: impl Fn(&str) -> Option<Tree>,
) -> Option<Tree> {
    if !tree.root_node().has_error() {
        return None;
    }
    let macros = attribute_macros(text);
    let with_macros = reparse_edited(text, tree, &parse, |bytes| {
        blank_macros(bytes, &macros);
        !macros.is_empty()
    });
    let best = with_macros.as_ref().unwrap_or(tree);
    if !best.root_node().has_error() {
        return with_macros;
    }
    let errors = error_ranges(best);
    let conditionals = split_conditionals(text, |extent| {
        errors
            .iter()
            .any(|error| error.start <= extent.end && extent.start <= error.end)
    });
    let straightened = reparse_edited(text, best, &parse, |bytes| {
        blank_macros(bytes, &macros);
        for range in &conditionals {
            blank(&mut bytes[range.clone()]);
        }
        !conditionals.is_empty()
    });
    straightened.or(with_macros)
}

/// The byte ranges of `tree`'s ERROR and MISSING nodes.
fn error_ranges(tree: &Tree) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    for_each_error(tree.root_node(), |node| {
        ranges.push(node.start_byte()..node.end_byte());
        ControlFlow::Continue(())
    });
    ranges
}

/// Spaces over `bytes`, their newlines kept so every line keeps its number.
fn blank(bytes: &mut [u8]) {
    for byte in bytes.iter_mut().filter(|byte| **byte != b'\n') {
        *byte = b' ';
    }
}
