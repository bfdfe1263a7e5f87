//! Dart: classes, mixins, extensions, extension types and enums are class-like; functions,
//! methods, getters, setters and operators are chunks; constructors stay in the class chunk.
//! Annotations (`@override`) go into the headers, `///` comments belong to what follows.

use tree_sitter::Node;

use super::spec::{
    child_of_kind, field_text, name_of, node_text, Container, Context, Role, Spec, Symbol,
};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify,
    leading: &[
        "comment",
        "documentation_comment",
        "block_comment",
        "documentation_block_comment",
    ],
    decorators: &["annotation"],
    decorator_holders: &[],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

const CONSTRUCTORS: &[&str] = &[
    "constructor_signature",
    "constant_constructor_signature",
    "factory_constructor_signature",
    "redirecting_factory_constructor_signature",
];

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let class = |kind: &'static str, keyword: &'static str| {
        Container::class(
            kind,
            keyword,
            name_of(node, source),
            node.child_by_field_name("body"),
        )
    };
    match node.kind() {
        "class_declaration" => class("class", "class"),
        "mixin_application_class" => {
            let name = child_of_kind(node, &["identifier"])
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            Symbol::role("class", name, None)
        }
        "mixin_declaration" => class("mixin", "mixin"),
        "extension_declaration" => class("extension", "extension"),
        "extension_type_declaration" => class("extension", "extension type"),
        "enum_declaration" => class("enum", "enum"),
        "type_alias" => {
            let name = child_of_kind(node, &["type_identifier"])
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            Symbol::role("type", name, None)
        }
        "member_declaration" => child_of_kind(node, &["method_declaration", "declaration"])
            .map_or(Role::Code, Role::Wrap),
        "method_declaration"
        | "function_declaration"
        | "getter_declaration"
        | "setter_declaration" => {
            let Some(signature) = node.child_by_field_name("signature") else {
                return Role::Code;
            };
            // `method_signature` holds the real one: function, getter, constructor, ...
            let inner = if signature.kind() == "method_signature" {
                signature.named_child(0).unwrap_or(signature)
            } else {
                signature
            };
            let name = field_text(inner, "name", source)
                .or_else(|| operator_name(inner, source))
                .unwrap_or_else(|| "<anonymous>".to_string());
            let kind = if CONSTRUCTORS.contains(&inner.kind()) {
                "constructor"
            } else if context.in_class {
                "method"
            } else {
                "function"
            };
            Symbol::role(kind, name, node.child_by_field_name("body"))
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// `operator ==` for an operator signature.
fn operator_name(signature: Node, source: &Source) -> Option<String> {
    let operator = signature.child_by_field_name("operator")?;
    Some(format!("operator {}", node_text(operator, source)))
}
