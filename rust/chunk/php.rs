//! php: placeholder.

use tree_sitter::Node;

use super::spec::{Context, Role, Spec};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
    classify,
    leading: &[],
    decorators: &[],
    decorator_holders: &[],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
};

fn classify<'t>(_node: Node<'t>, _source: &Source, _context: Context) -> Role<'t> {
    Role::Code
}
