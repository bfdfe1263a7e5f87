//! Julia: functions (`function f ... end` and `f(x) = ...`), macros, structs and abstract
//! and primitive types are chunks; `module` and `baremodule` are namespaces. A docstring
//! right above a definition belongs to it.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "#",
    comment_end: "",
    classify,
    leading: &["line_comment", "block_comment", "string_literal"],
    decorators: &[],
    decorator_holders: &[],
    elision: "... end",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    match node.kind() {
        "module_definition" => {
            let name = node
                .child_by_field_name("name")
                .map_or_else(String::new, |n| node_text(n, source));
            Container::namespace("module", name, Some(node))
        }
        "function_definition" => {
            let name = child_of_kind(node, &["signature"])
                .map_or_else(|| "<anonymous>".to_string(), |s| head_name(s, source));
            Symbol::role("function", name, None)
        }
        "macro_definition" => {
            let name = child_of_kind(node, &["signature"])
                .map_or_else(|| "<anonymous>".to_string(), |s| head_name(s, source));
            Symbol::role("macro", name, None)
        }
        "struct_definition" => Symbol::role("struct", type_name(node, source), None),
        "abstract_definition" | "primitive_definition" => {
            Symbol::role("type", type_name(node, source), None)
        }
        // `f(x) = ...`, `f(x)::T = ...`, `f(x) where T = ...`: a one-line function.
        "assignment" => match node.named_child(0) {
            Some(left) if is_call_head(left) => {
                Symbol::role("function", head_name(left, source), None)
            }
            _ => Role::Code,
        },
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

fn is_call_head(node: Node) -> bool {
    match node.kind() {
        "call_expression" => true,
        "where_expression" | "typed_expression" => node.named_child(0).is_some_and(is_call_head),
        _ => false,
    }
}

/// `add!` from `add!(store, task)`, `Base.show` from `Base.show(io, x) where T`.
fn head_name(node: Node, source: &Source) -> String {
    let text = node_text(node, source);
    let end = text.find(['(', '{']).unwrap_or(text.len());
    let name = text[..end].trim();
    if name.is_empty() {
        "<anonymous>".to_string()
    } else {
        name.to_string()
    }
}

/// `TaskStore` from `mutable struct TaskStore{T} <: AbstractStore`.
fn type_name(node: Node, source: &Source) -> String {
    let Some(head) = child_of_kind(node, &["type_head"]) else {
        return "<anonymous>".to_string();
    };
    let text = node_text(head, source);
    let end = text.find(['{', '<', ' ']).unwrap_or(text.len());
    text[..end].to_string()
}
