//! Lua: `function M.f()`, `function M:m()`, `local function f()` and `local f = function()`
//! are chunks, qualified by their table.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "--",
    comment_end: "",
    classify,
    leading: &["comment"],
    decorators: &[],
    decorator_holders: &[],
    elision: "... end",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[
        "if_statement",
        "block",
        "else_statement",
        "elseif_statement",
        "do_statement",
    ],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    match node.kind() {
        "function_declaration" => {
            let body = node.child_by_field_name("body");
            let Some(name) = node.child_by_field_name("name") else {
                return Role::Code;
            };
            let (table, short) = match name.kind() {
                "dot_index_expression" => (
                    name.child_by_field_name("table"),
                    name.child_by_field_name("field"),
                ),
                "method_index_expression" => (
                    name.child_by_field_name("table"),
                    name.child_by_field_name("method"),
                ),
                _ => (None, Some(name)),
            };
            let Some(short) = short else {
                return Role::Code;
            };
            Role::Symbol(Symbol {
                kind: if name.kind() == "method_index_expression" {
                    "method"
                } else {
                    "function"
                },
                name: node_text(short, source),
                qualifier: table.map(|t| node_text(t, source)),
                scopes: Vec::new(),
                body,
                label: None,
            })
        }
        "variable_declaration" => match child_of_kind(node, &["assignment_statement"]) {
            Some(assignment) => assigned_function(assignment, source),
            None => Role::Code,
        },
        "assignment_statement" => assigned_function(node, source),
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// `f = function() ... end` with one name and one function value.
fn assigned_function<'t>(node: Node<'t>, source: &Source) -> Role<'t> {
    let names = child_of_kind(node, &["variable_list"]);
    let values = child_of_kind(node, &["expression_list"]);
    let (Some(names), Some(values)) = (names, values) else {
        return Role::Code;
    };
    let (Some(name), Some(value)) = (names.named_child(0), values.named_child(0)) else {
        return Role::Code;
    };
    if value.kind() != "function_definition" {
        return Role::Code;
    }
    let body = value.child_by_field_name("body");
    match name.kind() {
        "dot_index_expression" | "method_index_expression" => {
            let table = name.child_by_field_name("table");
            let field = name
                .child_by_field_name("field")
                .or_else(|| name.child_by_field_name("method"));
            match field {
                Some(field) => Role::Symbol(Symbol {
                    kind: "function",
                    name: node_text(field, source),
                    qualifier: table.map(|t| node_text(t, source)),
                    scopes: Vec::new(),
                    body,
                    label: None,
                }),
                None => Role::Code,
            }
        }
        _ => Symbol::role("function", node_text(name, source), body),
    }
}
