//! TypeScript text that tree-sitter misreads, read again.
//!
//! Overloaded generic call signatures in an interface or object type, one per line without a
//! `;` between them (tree-sitter-typescript issue 335):
//!
//! ```ts
//! interface CreateHandlers<E> {
//!   <I>(handler: H<I>): [H<I>]
//!   <
//!     I extends Input = {},
//!   >(handler1: H<I>, handler2: H<I>): [H<I>, H<I>]
//! }
//! ```
//!
//! The grammar reads the `<` that opens the second signature as continuing the first one's
//! return type; the interface ends there and everything after it in the file (classes,
//! functions) falls into one error. TypeScript itself ends the member at the line break.
//! When a file parses with errors, the first indentation character of every line that opens
//! a call signature with `<` after a line that ends a type is overwritten with `;` (the
//! separator the grammar wants, and the same length, so every node keeps its line) and the
//! text is parsed again; the new tree is kept only when it has fewer errors. The chunker
//! slices chunk text from the original source, so every chunk shows the file as written.

use tree_sitter::Tree;

use crate::parse::reparse_edited;

/// A tree with `;` before the call signatures that follow a type, when `tree` has errors and
/// that text parses with fewer; None otherwise. `parse` parses the file's language.
pub(crate) fn separate_call_signatures(
    text: &str,
    tree: &Tree,
    parse: impl Fn(&str) -> Option<Tree>,
) -> Option<Tree> {
    reparse_edited(text, tree, parse, |bytes| {
        let separators = signature_starts(text);
        for &offset in &separators {
            bytes[offset] = b';';
        }
        !separators.is_empty()
    })
}

/// The offsets of the first indentation byte (a space or a tab) of each line that starts with
/// `<` right after a code line that ends a type (`)`, `]`, `}`, `>`, a name), blank lines and
/// `//` comment lines between them skipped.
fn signature_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut previous_end: Option<u8> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.trim();
        // An ASCII indentation byte to overwrite: the text stays UTF-8.
        let indented = matches!(line.as_bytes().first(), Some(b' ' | b'\t'));
        if code.starts_with('<') && indented && previous_end.is_some_and(ends_a_type) {
            starts.push(offset);
        }
        if !code.is_empty() && !code.starts_with("//") {
            previous_end = code.bytes().last();
        }
        offset += line.len();
    }
    starts
}

/// Whether a line ending in `last` can end a type: a closing bracket or a name, not an
/// operator or an opening bracket that the next line continues.
fn ends_a_type(last: u8) -> bool {
    matches!(last, b')' | b']' | b'}' | b'>') || last.is_ascii_alphanumeric() || last == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn separated_lines(text: &str) -> Vec<usize> {
        signature_starts(text)
            .into_iter()
            .map(|offset| text[..offset].matches('\n').count() + 1)
            .collect()
    }

    #[test]
    fn signatures_after_a_type_are_separated() {
        let text = "interface X {\n  <I>(h: H<I>): [H<I>]\n\n  // two\n  <\n    I,\n  >(h: H<I>): R\n  <I>(h: I): void\n}\n";
        assert_eq!(separated_lines(text), vec![5, 8]);
    }

    #[test]
    fn continuations_and_unindented_lines_are_left_alone() {
        // After an operator, an opening bracket or `=` the `<` continues the line above.
        let text = "type A = B |\n  <T>() => T\nconst f = (\n  <T,>(x: T) => x\n)\n<T>() => 1\n";
        assert!(separated_lines(text).is_empty());
    }
}
