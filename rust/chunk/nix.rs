//! Nix: the file's outer function, `let` and attribute sets are looked through; a binding
//! whose value is a function, or spans several lines (a derivation, a module option), is a
//! chunk named by its attribute path; one-line bindings are module code, grouped in runs.

use tree_sitter::Node;

use super::spec::{node_text, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "#",
    comment_end: "",
    classify,
    leading: &["comment"],
    decorators: &[],
    decorator_holders: &[],
    elision: "...",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    match node.kind() {
        "function_expression"
        | "let_expression"
        | "with_expression"
        | "attrset_expression"
        | "rec_attrset_expression"
        | "let_attrset_expression"
        | "binding_set"
        | "parenthesized_expression"
        | "ERROR" => Role::Transparent,
        "binding" => {
            let (Some(path), Some(value)) = (
                node.child_by_field_name("attrpath"),
                node.child_by_field_name("expression"),
            ) else {
                return Role::Code;
            };
            let kind = if value.kind() == "function_expression" {
                "function"
            } else if source.line_of(value.start_byte())
                < source.last_line_of(value.start_byte(), value.end_byte())
            {
                "attribute"
            } else {
                return Role::Code;
            };
            let body = matches!(
                value.kind(),
                "attrset_expression" | "rec_attrset_expression"
            )
            .then(|| value.named_child(0))
            .flatten();
            Symbol::role(kind, node_text(path, source), body)
        }
        _ => Role::Code,
    }
}
