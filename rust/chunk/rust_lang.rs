//! Rust: functions, methods in impls and traits, structs, enums, unions, type aliases and
//! macros; impls and traits are class-like, `mod` blocks are namespaces. Attributes and doc
//! comments above an item belong to it.

use tree_sitter::Node;

use super::spec::{child_of_kind, name_of, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify,
    leading: &["line_comment", "block_comment", "attribute_item"],
    decorators: &["attribute_item"],
    decorator_holders: &[],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let body = || node.child_by_field_name("body");
    match node.kind() {
        "function_item" => {
            let is_method = context.in_class
                && node
                    .child_by_field_name("parameters")
                    .and_then(|p| child_of_kind(p, &["self_parameter"]))
                    .is_some();
            let kind = if is_method { "method" } else { "function" };
            Symbol::role(kind, name_of(node, source), body())
        }
        "struct_item" => Symbol::role("struct", name_of(node, source), body()),
        "enum_item" => Symbol::role("enum", name_of(node, source), body()),
        "union_item" => Symbol::role("union", name_of(node, source), body()),
        "type_item" => Symbol::role("type", name_of(node, source), None),
        "macro_definition" => Symbol::role("macro", name_of(node, source), None),
        "trait_item" => Container::class("trait", "trait", name_of(node, source), body()),
        "impl_item" => impl_role(node, source),
        "mod_item" => match body() {
            Some(body) => mod_role(node, source, body),
            None => Role::Code,
        },
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// An inline `mod` block, a namespace labelled with its visibility as written (`pub mod
/// ext`, `pub(crate) mod ext`; a private one plain `mod ext`): a `pub` item inside a
/// private module is private to the module around it, and the ranking reads that from the
/// header of the item's chunk.
fn mod_role<'t>(node: Node<'t>, source: &Source, body: Node<'t>) -> Role<'t> {
    let name = name_of(node, source);
    let label = child_of_kind(node, &["visibility_modifier"])
        .map(|visibility| format!("{} mod {name}", node_text(visibility, source)));
    Role::Container(Container {
        kind: "namespace",
        keyword: "mod",
        name,
        label,
        body: Some(body),
        class_like: false,
    })
}

/// `impl Display for Wrapper<T>`: label as written, FQN segment `Wrapper.Display`.
fn impl_role<'t>(node: Node<'t>, source: &Source) -> Role<'t> {
    let Some(ty) = node.child_by_field_name("type") else {
        return Role::Code;
    };
    let type_text = node_text(ty, source);
    let trait_node = node.child_by_field_name("trait");
    let (name, label) = match trait_node {
        Some(trait_node) => {
            let trait_text = node_text(trait_node, source);
            (
                format!("{}.{}", base_name(&type_text), base_name(&trait_text)),
                format!("impl {trait_text} for {type_text}"),
            )
        }
        None => (base_name(&type_text), format!("impl {type_text}")),
    };
    Role::Container(Container {
        kind: "impl",
        keyword: "impl",
        name,
        label: Some(label),
        body: node.child_by_field_name("body"),
        class_like: true,
    })
}

/// `Wrapper` from `crate::x::Wrapper<T>` or `&'a Wrapper`.
fn base_name(text: &str) -> String {
    let text = text.split('<').next().unwrap_or(text);
    let text = text.rsplit("::").next().unwrap_or(text);
    text.trim_start_matches(['&', '\''])
        .split_whitespace()
        .last()
        .unwrap_or(text)
        .to_string()
}
