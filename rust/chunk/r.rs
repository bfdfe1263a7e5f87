//! R: `name <- function(...)` (and `=`, `<<-`, `->`) is a chunk; `setMethod`, `setGeneric`
//! and `setValidity` calls are chunks named by their generic (qualified by the class); R6
//! (`R6Class`), reference (`setRefClass`) and S4 (`setClass`) classes give context to their
//! `name = function(...)` members, which are methods. Roxygen `#'` comments belong to what follows.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "#",
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

const CLASS_MAKERS: &[&str] = &["R6Class", "setRefClass", "setClass"];

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "binary_operator" => assignment(node, source, context),
        "call" => match callee(node, source).as_deref() {
            Some("setMethod" | "setGeneric" | "setValidity" | "setReplaceMethod") => {
                let arguments = node.child_by_field_name("arguments");
                let mut strings = arguments
                    .into_iter()
                    .flat_map(|a| string_arguments(a, source))
                    .take(2);
                let name = strings.next().unwrap_or_else(|| "<anonymous>".to_string());
                let kind = if callee(node, source).as_deref() == Some("setGeneric") {
                    "function"
                } else {
                    "method"
                };
                Role::Symbol(Symbol {
                    kind,
                    name,
                    qualifier: strings.next(),
                    scopes: Vec::new(),
                    body: arguments,
                    label: None,
                })
            }
            // `list(...)` of members inside a class definition.
            Some("list") if context.scope_name.is_some() => Role::Transparent,
            _ => Role::Code,
        },
        "arguments" if context.scope_name.is_some() => Role::Transparent,
        "argument" if context.scope_name.is_some() => {
            let value = node.child_by_field_name("value");
            match (node.child_by_field_name("name"), value) {
                (Some(name), Some(value)) if value.kind() == "function_definition" => {
                    let name = node_text(name, source);
                    let kind = if matches!(name.as_str(), "initialize" | "new") {
                        "constructor"
                    } else {
                        "method"
                    };
                    Symbol::role(kind, name, value.child_by_field_name("body"))
                }
                (_, Some(value))
                    if value.kind() == "call"
                        && callee(value, source).as_deref() == Some("list") =>
                {
                    Role::Transparent
                }
                _ => Role::Code,
            }
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// `f <- function(...)`, `Class <- R6Class("Class", ...)`.
fn assignment<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let (Some(lhs), Some(rhs)) = (
        node.child_by_field_name("lhs"),
        node.child_by_field_name("rhs"),
    ) else {
        return Role::Code;
    };
    let operator = node
        .child_by_field_name("operator")
        .map_or("", |o| source.slice(o.start_byte(), o.end_byte()));
    let (name, value) = match operator {
        "<-" | "<<-" | "=" | ":=" => (lhs, rhs),
        "->" | "->>" => (rhs, lhs),
        _ => return Role::Code,
    };
    let name_text = node_text(name, source)
        .trim_matches(['"', '`', '\''])
        .to_string();
    match value.kind() {
        "function_definition" => {
            let kind = if context.scope_name.is_some() {
                "method"
            } else {
                "function"
            };
            Symbol::role(kind, name_text, value.child_by_field_name("body"))
        }
        "call"
            if callee(value, source)
                .is_some_and(|called| CLASS_MAKERS.contains(&called.as_str())) =>
        {
            // Namespace-like: its fields and the `list(` lines around the methods stay
            // code as written, the methods are chunks in its scope.
            Role::Container(Container {
                kind: "class",
                keyword: "class",
                name: name_text,
                label: None,
                body: value.child_by_field_name("arguments"),
                class_like: false,
            })
        }
        _ => Role::Code,
    }
}

/// The called function's name, without its package (`R6::R6Class` is `R6Class`).
fn callee(call: Node, source: &Source) -> Option<String> {
    let function = call.child_by_field_name("function")?;
    let function = match function.kind() {
        "namespace_operator" => function.child_by_field_name("rhs")?,
        _ => function,
    };
    (function.kind() == "identifier").then(|| node_text(function, source))
}

/// The unnamed string arguments of a call, unquoted, in order.
fn string_arguments<'t>(
    arguments: Node<'t>,
    source: &'t Source,
) -> impl Iterator<Item = String> + 't {
    let mut cursor = arguments.walk();
    let values: Vec<Node<'t>> = arguments
        .named_children(&mut cursor)
        .filter(|argument| argument.child_by_field_name("name").is_none())
        .filter_map(|argument| argument.child_by_field_name("value"))
        .filter(|value| value.kind() == "string")
        .collect();
    values.into_iter().map(move |value| {
        child_of_kind(value, &["string_content"])
            .map_or_else(String::new, |content| node_text(content, source))
    })
}
