//! Protocol Buffers: messages, enums and services are chunks (a service with its rpcs, a
//! message with its nested types); `package` names the scope of the rest of the file.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Context, Marker, Role, Spec, Symbol};
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
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    let named = |kind: &'static str, name_kind: &str, body: Option<Node<'t>>| {
        let name = child_of_kind(node, &[name_kind])
            .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
        Symbol::role(kind, name, body)
    };
    match node.kind() {
        "message" => named(
            "message",
            "message_name",
            child_of_kind(node, &["message_body"]),
        ),
        "enum" => named("enum", "enum_name", child_of_kind(node, &["enum_body"])),
        "service" => named("service", "service_name", Some(node)),
        "extend" => named("extend", "full_ident", None),
        "package" => match child_of_kind(node, &["full_ident"]) {
            Some(name) => {
                let name = node_text(name, source);
                Role::Marker(Marker {
                    label: format!("package {name}"),
                    name,
                    class_like: false,
                })
            }
            None => Role::Code,
        },
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
