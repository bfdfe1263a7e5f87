//! Perl: `sub name { ... }` is a chunk (a forward declaration `sub name;` is code);
//! `package Name;` opens a scope for the statements after it, up to the next `package`, and
//! `package Name { ... }` is a scope around its block (with a class-level chunk). Subs of a package other than `main`
//! are methods. `#` comments right above a sub belong to it; POD stays code.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Container, Context, Marker, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "#",
    comment_end: "",
    classify,
    leading: &["comments"],
    decorators: &[],
    decorator_holders: &[],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: true,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "function_definition" => {
            let (Some(name), Some(body)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("body"),
            ) else {
                return Role::Code;
            };
            let kind = if context.in_class {
                "method"
            } else {
                "function"
            };
            Symbol::role(kind, node_text(name, source), Some(body))
        }
        "package_statement" => package(node, source),
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// `package Name;` (a marker) or `package Name { ... }` (a container); `main` holds
/// functions, any other package methods.
fn package<'t>(node: Node<'t>, source: &Source) -> Role<'t> {
    let Some(name) = child_of_kind(node, &["package_name"]) else {
        return Role::Code;
    };
    let name = node_text(name, source);
    let class_like = name != "main";
    let label = format!("package {name}");
    match node.child_by_field_name("body") {
        Some(body) => Role::Container(Container {
            kind: "package",
            keyword: "package",
            name,
            label: Some(label),
            body: Some(body),
            class_like,
        }),
        None => Role::Marker(Marker {
            name,
            label,
            class_like,
        }),
    }
}
