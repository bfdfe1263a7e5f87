//! C#: namespaces (block and file-scoped), classes, structs, interfaces and records are
//! scopes; methods, operators, destructors and enums are chunks; `[Attributes]` go into
//! the headers.

use tree_sitter::Node;

use super::spec::{name_of, node_text, Container, Context, Marker, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify,
    leading: &["comment"],
    decorators: &["attribute_list"],
    decorator_holders: &[],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    let body = || node.child_by_field_name("body");
    let class = |kind: &'static str, keyword: &'static str| {
        Container::class(kind, keyword, name_of(node, source), body())
    };
    match node.kind() {
        "namespace_declaration" => Container::namespace("namespace", name_of(node, source), body()),
        "file_scoped_namespace_declaration" => {
            let name = name_of(node, source);
            Role::Marker(Marker {
                label: format!("namespace {name}"),
                name,
                class_like: false,
            })
        }
        "class_declaration" => class("class", "class"),
        "struct_declaration" => class("struct", "struct"),
        "interface_declaration" => class("interface", "interface"),
        "record_declaration" | "record_struct_declaration" => class("record", "record"),
        "enum_declaration" => Symbol::role("enum", name_of(node, source), body()),
        "method_declaration" | "local_function_statement" => match body() {
            Some(body) => Symbol::role("method", name_of(node, source), Some(body)),
            None => Role::Code,
        },
        "operator_declaration" | "conversion_operator_declaration" => {
            let name = node
                .child_by_field_name("operator")
                .or_else(|| node.child_by_field_name("type"))
                .map(|op| format!("operator {}", node_text(op, source)))
                .unwrap_or_else(|| "operator".to_string());
            Symbol::role("method", name, body())
        }
        "constructor_declaration" => Symbol::role("constructor", name_of(node, source), body()),
        "destructor_declaration" => {
            Symbol::role("destructor", format!("~{}", name_of(node, source)), body())
        }
        "declaration_list" | "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
