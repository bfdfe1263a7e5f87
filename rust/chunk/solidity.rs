//! Solidity: contracts, interfaces and libraries are class-like; functions, modifiers,
//! `receive`/`fallback`, structs, enums, events and errors are chunks; constructors stay in
//! the contract chunk. NatSpec `///` comments belong to what follows.

use tree_sitter::Node;

use super::spec::{name_of, node_text, Container, Context, Role, Spec, Symbol};
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

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let body = || node.child_by_field_name("body");
    let class =
        |keyword: &'static str| Container::class(keyword, keyword, name_of(node, source), body());
    match node.kind() {
        "contract_declaration" => class("contract"),
        "interface_declaration" => class("interface"),
        "library_declaration" => class("library"),
        "function_definition" => match body() {
            Some(body) => {
                let kind = if context.in_class {
                    "method"
                } else {
                    "function"
                };
                Symbol::role(kind, name_of(node, source), Some(body))
            }
            // An interface's or abstract contract's declaration: kept in its class chunk.
            None => Role::Code,
        },
        "modifier_definition" => Symbol::role("modifier", name_of(node, source), body()),
        "constructor_definition" => Symbol::role("constructor", "constructor".to_string(), body()),
        "fallback_receive_definition" => {
            let name = node_text(node, source);
            let name = if name.starts_with("receive") {
                "receive"
            } else {
                "fallback"
            };
            Symbol::role("method", name.to_string(), body())
        }
        "struct_declaration" => Symbol::role("struct", name_of(node, source), None),
        "enum_declaration" => Symbol::role("enum", name_of(node, source), None),
        "event_definition" | "error_declaration" | "user_defined_type_definition" => {
            let kind = match node.kind() {
                "event_definition" => "event",
                "error_declaration" => "error",
                _ => "type",
            };
            Symbol::role(kind, name_of(node, source), None)
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
