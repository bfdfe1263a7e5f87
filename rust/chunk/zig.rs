//! Zig: functions and tests are chunks; `const T = struct { ... }` (and enum, union, opaque)
//! containers are class-like, and so is a generic type: a function that returns `type` by
//! returning a container (`fn Server(comptime H: type) type { return struct { ... }; }`), whose
//! methods are `Server.listen` like any other struct's.

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
    conditionals: &[],
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
            if let Some(container) = returned_container(node, source) {
                let (kind, keyword) = container_kind(container);
                return Container::class(kind, keyword, name_of(node, source), Some(container));
            }
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
            let (kind, keyword) = container_kind(container);
            Container::class(kind, keyword, name, Some(container))
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// The chunk kind and context keyword of a container declaration.
fn container_kind(container: Node) -> (&'static str, &'static str) {
    match container.kind() {
        "enum_declaration" => ("enum", "enum"),
        "union_declaration" => ("union", "union"),
        "opaque_declaration" => ("struct", "opaque"),
        _ => ("struct", "struct"),
    }
}

/// The container a generic type function returns: `fn List(comptime T: type) type { ...
/// return struct { ... }; }`, the `return` a statement of the function's own body.
fn returned_container<'t>(function: Node<'t>, source: &Source) -> Option<Node<'t>> {
    let returns = function.child_by_field_name("type")?;
    if node_text(returns, source) != "type" {
        return None;
    }
    let body = function.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let statements: Vec<Node<'t>> = body.named_children(&mut cursor).collect();
    statements.into_iter().rev().find_map(|statement| {
        let returned = child_of_kind(statement, &["return_expression"])?;
        child_of_kind(returned, CONTAINERS)
    })
}
