//! Bash: function definitions are chunks; the rest of the script is module code.

use tree_sitter::Node;

use super::spec::{name_of, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "#",
    comment_end: "",
    classify,
    leading: &["comment"],
    decorators: &[],
    decorator_holders: &[],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &["if_statement", "elif_clause", "else_clause"],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    match node.kind() {
        "function_definition" => Symbol::role(
            "function",
            name_of(node, source),
            node.child_by_field_name("body"),
        ),
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
