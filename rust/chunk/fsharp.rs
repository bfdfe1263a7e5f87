//! F#: `let` functions and `member`s are chunks, union, record and abbreviation types too;
//! classes (`type T() = ...`) are class-like; namespaces and modules give context.
//! `[<Attributes>]` go into the headers.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify,
    leading: &["line_comment", "block_comment", "xml_doc", "attributes"],
    decorators: &["attributes"],
    decorator_holders: &[],
    elision: "...",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: true,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "namespace" | "named_module" => {
            let name = node
                .child_by_field_name("name")
                .map_or_else(String::new, |n| node_text(n, source));
            let keyword = if node.kind() == "namespace" {
                "namespace"
            } else {
                "module"
            };
            Container::namespace(keyword, name, Some(node))
        }
        "module_defn" => {
            let name = child_of_kind(node, &["identifier"])
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            Container::namespace("module", name, Some(node))
        }
        // A declaration in a module, a member of a class: wraps the definition, with its
        // attributes; one holding more is looked through.
        "declaration_expression" | "type_extension_elements" => {
            let mut cursor = node.walk();
            let mut definitions = node.named_children(&mut cursor).filter(|child| {
                !matches!(
                    child.kind(),
                    "attributes" | "xml_doc" | "line_comment" | "block_comment"
                )
            });
            match (definitions.next(), definitions.next()) {
                (Some(definition), None) => Role::Wrap(definition),
                _ => Role::Transparent,
            }
        }
        "function_or_value_defn" => match child_of_kind(node, &["function_declaration_left"]) {
            Some(left) => {
                let name = left
                    .named_child(0)
                    .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
                let kind = if context.in_class {
                    "method"
                } else {
                    "function"
                };
                Symbol::role(kind, name, node.child_by_field_name("body"))
            }
            None => Role::Code,
        },
        "member_defn" => match child_of_kind(node, &["method_or_prop_defn"]) {
            Some(definition) => {
                let name = definition
                    .child_by_field_name("name")
                    .map_or_else(|| "<anonymous>".to_string(), |n| member_name(n, source));
                // The expression after `=` is the body.
                let mut cursor = definition.walk();
                let children: Vec<Node> = definition.named_children(&mut cursor).collect();
                let body = children
                    .into_iter()
                    .rev()
                    .find(|child| !SPEC.leading.contains(&child.kind()))
                    .filter(|last| !matches!(last.kind(), "property_or_ident" | "paren_pattern"));
                Symbol::role("method", name, body)
            }
            // `new(...) = ...`: a constructor, kept in its class chunk.
            None if child_of_kind(node, &["additional_constr_defn"]).is_some() => {
                Symbol::role("constructor", "new".to_string(), None)
            }
            None => Role::Code,
        },
        "type_definition" => {
            let Some(definition) = node
                .named_children(&mut node.walk())
                .find(|child| child.kind().ends_with("_type_defn"))
            else {
                return Role::Code;
            };
            let name = child_of_kind(definition, &["type_name"])
                .and_then(|t| t.child_by_field_name("type_name"))
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            match definition.kind() {
                "anon_type_defn" | "interface_type_defn" => {
                    let kind = if definition.kind() == "anon_type_defn" {
                        "class"
                    } else {
                        "interface"
                    };
                    Container::class(kind, "type", name, Some(definition))
                }
                _ => Symbol::role("type", name, None),
            }
        }
        // The name and constructor arguments written among a class's members, the name of
        // a module among its declarations.
        "type_name" | "primary_constr_args" if context.in_class => Role::Header,
        "identifier" | "long_identifier"
            if node.parent().is_some_and(|parent| {
                matches!(parent.kind(), "module_defn" | "namespace" | "named_module")
            }) =>
        {
            Role::Header
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// `Add` from `this.Add`, `Create` from `static member Create`.
fn member_name(name: Node, source: &Source) -> String {
    name.child_by_field_name("method").map_or_else(
        || node_text(name, source),
        |method| node_text(method, source),
    )
}
