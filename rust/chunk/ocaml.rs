//! OCaml, implementations (`.ml`) and interfaces (`.mli`): `let` bindings with parameters
//! or a function value are chunks (a `let rec ... and ...` group is one), as are type
//! definitions and module types; modules (`struct ... end`, `sig ... end`) are namespaces,
//! classes class-like with their methods as chunks. `val` declarations are plain code.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "(*",
    comment_end: " *)",
    classify,
    leading: &[
        "comment",
        "attribute",
        "item_attribute",
        "floating_attribute",
    ],
    decorators: &[],
    decorator_holders: &[],
    elision: "...",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "value_definition" => {
            let Some(binding) = child_of_kind(node, &["let_binding"]) else {
                return Role::Code;
            };
            let Some(pattern) = binding.child_by_field_name("pattern") else {
                return Role::Code;
            };
            let body = binding.child_by_field_name("body");
            let is_function = child_of_kind(binding, &["parameter"]).is_some()
                || body
                    .is_some_and(|b| matches!(b.kind(), "fun_expression" | "function_expression"));
            if pattern.kind() != "value_name" || !is_function {
                return Role::Code;
            }
            let kind = if context.in_class {
                "method"
            } else {
                "function"
            };
            Symbol::role(kind, node_text(pattern, source), body)
        }
        "type_definition" => {
            let name = child_of_kind(node, &["type_binding"])
                .and_then(|binding| binding.child_by_field_name("name"))
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            Symbol::role("type", name, None)
        }
        "module_type_definition" => {
            let name = child_of_kind(node, &["module_type_name"])
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            Symbol::role("interface", name, None)
        }
        "module_definition" => {
            let Some(binding) = child_of_kind(node, &["module_binding"]) else {
                return Role::Code;
            };
            let name = child_of_kind(binding, &["module_name"])
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            // `module M = struct ... end`, `module M : sig ... end`, `module F (X : S) = ...`.
            let members = binding
                .child_by_field_name("body")
                .filter(|body| body.kind() == "structure")
                .or_else(|| {
                    binding
                        .child_by_field_name("module_type")
                        .filter(|ty| ty.kind() == "signature")
                });
            match members {
                Some(members) => Container::namespace("module", name, Some(members)),
                None => Symbol::role("module", name, None),
            }
        }
        "class_definition" => {
            let Some(binding) = child_of_kind(node, &["class_binding"]) else {
                return Role::Code;
            };
            let name = child_of_kind(binding, &["class_name"])
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            let body = binding
                .child_by_field_name("body")
                .filter(|body| body.kind() == "object_expression");
            Container::class("class", "class", name, body)
        }
        "method_definition" => {
            let name = child_of_kind(node, &["method_name"])
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            Symbol::role("method", name, node.child_by_field_name("body"))
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
