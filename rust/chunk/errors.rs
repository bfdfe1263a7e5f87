//! A tree's syntax errors as the notes `FileChunks::syntax_errors` reports.

use std::ops::ControlFlow;

use tree_sitter::Node;

use super::text::{collapse, Source};
use crate::parse::for_each_error;

/// At most this many syntax errors are reported per file.
const MAX_ERRORS: usize = 20;

/// ERROR and MISSING nodes as messages, at most `MAX_ERRORS`.
pub(super) fn syntax_errors(root: Node, source: &Source) -> Vec<String> {
    let mut errors = Vec::new();
    for_each_error(root, |node| {
        let line = source.line_of(node.start_byte()) + 1;
        errors.push(if node.is_missing() {
            format!("line {line}: missing `{}`", node.kind())
        } else {
            let near = collapse(source.slice(node.start_byte(), node.end_byte()), 40);
            format!("line {line}: syntax error near `{near}`")
        });
        if errors.len() >= MAX_ERRORS {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    errors
}
