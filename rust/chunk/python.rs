//! Python: functions, methods (`__init__` is the constructor), classes; decorators wrap.

use tree_sitter::Node;

use super::spec::{name_of, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "#",
    comment_end: "",
    classify,
    leading: &["comment"],
    decorators: &["decorator"],
    decorator_holders: &[],
    elision: "...",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[
        "if_statement",
        "elif_clause",
        "else_clause",
        "try_statement",
        "except_clause",
        "finally_clause",
        "block",
    ],
};

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "decorated_definition" => node
            .child_by_field_name("definition")
            .map_or(Role::Code, Role::Wrap),
        "function_definition" => {
            let name = name_of(node, source);
            let kind = match (context.in_class, name.as_str()) {
                (true, "__init__") => "constructor",
                (true, _) => "method",
                (false, _) => "function",
            };
            Symbol::role(kind, name, node.child_by_field_name("body"))
        }
        "class_definition" => Container::class(
            "class",
            "class",
            name_of(node, source),
            node.child_by_field_name("body"),
        ),
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
