//! GraphQL: type, interface, enum, input, union, scalar and directive definitions (and their
//! extensions) are chunks, as are named operations and fragments. Descriptions are part of
//! the definition they describe.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Context, Role, Spec, Symbol};
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

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    let kind = match node.kind() {
        "document" => return Role::Transparent,
        "definition"
        | "type_system_definition"
        | "type_system_extension"
        | "type_definition"
        | "type_extension"
        | "executable_definition" => {
            return match node.named_child(0) {
                Some(inner) if node.named_child_count() == 1 => Role::Wrap(inner),
                _ => Role::Code,
            }
        }
        "object_type_definition" | "object_type_extension" => "type",
        "interface_type_definition" | "interface_type_extension" => "interface",
        "enum_type_definition" | "enum_type_extension" => "enum",
        "input_object_type_definition" | "input_object_type_extension" => "input",
        "union_type_definition" | "union_type_extension" => "union",
        "scalar_type_definition" | "scalar_type_extension" => "scalar",
        "directive_definition" => "directive",
        "fragment_definition" => "fragment",
        "operation_definition" => {
            match child_of_kind(node, &["operation_type"]).map(|t| node_text(t, source)) {
                Some(operation) if operation == "mutation" => "mutation",
                Some(operation) if operation == "subscription" => "subscription",
                _ => "query",
            }
        }
        "ERROR" => return Role::Transparent,
        _ => return Role::Code,
    };
    let name = child_of_kind(node, &["name"])
        .or_else(|| {
            child_of_kind(node, &["fragment_name"]).and_then(|f| child_of_kind(f, &["name"]))
        })
        .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
    let body = child_of_kind(
        node,
        &[
            "fields_definition",
            "enum_values_definition",
            "input_fields_definition",
            "selection_set",
        ],
    );
    Symbol::role(kind, name, body)
}
