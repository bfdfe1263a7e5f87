//! Elixir: `defmodule`, `defprotocol`, `defimpl` and ExUnit `describe` are namespaces; `def`,
//! `defp`, `defmacro` and `test` are chunks, multi-clause functions merged into one. `@doc`,
//! `@spec` and other attributes right above a definition belong to it.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "#",
    comment_end: "",
    classify,
    leading: &["comment", "unary_operator"],
    decorators: &[],
    decorator_holders: &[],
    elision: "do ... end",
    merge_same_name: true,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &["call", "do_block", "else_block"],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    if node.kind() == "ERROR" {
        return Role::Transparent;
    }
    if node.kind() != "call" {
        return Role::Code;
    }
    let Some(target) = node.child_by_field_name("target") else {
        return Role::Code;
    };
    let keyword = source.slice(target.start_byte(), target.end_byte());
    let arguments = child_of_kind(node, &["arguments"]);
    let first = arguments.and_then(|a| a.named_child(0));
    let body = child_of_kind(node, &["do_block"]);
    match keyword {
        "defmodule" | "defprotocol" | "defimpl" => {
            let name = first.map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            Container::namespace(keyword_static(keyword), name, body)
        }
        "describe" => {
            let name = first.map_or_else(String::new, |n| string_value(n, source));
            Container::namespace("describe", name, body)
        }
        "def" | "defp" | "defmacro" | "defmacrop" | "defguard" | "defguardp" | "defdelegate" => {
            let name = first.map_or_else(
                || "<anonymous>".to_string(),
                |head| function_name(head, source),
            );
            let kind = if keyword.starts_with("defmacro") {
                "macro"
            } else {
                "function"
            };
            Symbol::role(kind, name, body)
        }
        "test" => {
            let name = first.map_or_else(String::new, |n| string_value(n, source));
            Role::Symbol(Symbol {
                kind: "test",
                name,
                qualifier: Some("test".to_string()),
                scopes: Vec::new(),
                body,
                label: None,
            })
        }
        _ => Role::Code,
    }
}

fn keyword_static(keyword: &str) -> &'static str {
    match keyword {
        "defprotocol" => "defprotocol",
        "defimpl" => "defimpl",
        _ => "defmodule",
    }
}

/// `f` from `f(x)`, `f(x) when x > 0`, or a bare `f`.
fn function_name(head: Node, source: &Source) -> String {
    let mut head = head;
    // `f(x) when guard` is a binary operator whose left side is the call.
    while head.kind() == "binary_operator" {
        match head.child_by_field_name("left") {
            Some(left) => head = left,
            None => break,
        }
    }
    match head.kind() {
        "call" => head
            .child_by_field_name("target")
            .map_or_else(|| node_text(head, source), |t| node_text(t, source)),
        _ => node_text(head, source),
    }
}

fn string_value(node: Node, source: &Source) -> String {
    node_text(node, source).trim_matches('"').to_string()
}
