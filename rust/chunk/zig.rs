//! Zig: functions and tests are chunks; `const T = struct { ... }` (and enum, union, opaque)
//! containers are class-like.

use tree_sitter::Node;

use super::spec::{child_of_kind, name_of, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
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
};

const CONTAINERS: &[&str] = &[
    "struct_declaration",
    "enum_declaration",
    "union_declaration",
    "opaque_declaration",
];

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "function_declaration" => {
            let kind = if context.in_class {
                "method"
            } else {
                "function"
            };
            Symbol::role(
                kind,
                name_of(node, source),
                node.child_by_field_name("body"),
            )
        }
        "test_declaration" => {
            let name = child_of_kind(node, &["string", "identifier"])
                .map_or_else(String::new, |n| {
                    node_text(n, source).trim_matches('"').to_string()
                });
            Role::Symbol(Symbol {
                kind: "test",
                name,
                qualifier: Some("test".to_string()),
                scopes: Vec::new(),
                body: child_of_kind(node, &["block"]),
                label: None,
            })
        }
        "variable_declaration" => {
            let Some(container) = child_of_kind(node, CONTAINERS) else {
                return Role::Code;
            };
            let name = child_of_kind(node, &["identifier"])
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            let (kind, keyword) = match container.kind() {
                "enum_declaration" => ("enum", "enum"),
                "union_declaration" => ("union", "union"),
                "opaque_declaration" => ("struct", "opaque"),
                _ => ("struct", "struct"),
            };
            Container::class(kind, keyword, name, Some(container))
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
