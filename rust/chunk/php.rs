//! PHP: namespaces (block or to the end of the file), classes, interfaces, traits and enums
//! are scopes; functions and methods are chunks (`__construct` stays in the class chunk);
//! `#[Attributes]` go into the headers.

use tree_sitter::Node;

use super::spec::{name_of, Container, Context, Marker, Role, Spec, Symbol};
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
    conditionals: &[
        "if_statement",
        "compound_statement",
        "else_clause",
        "else_if_clause",
        "colon_block",
    ],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    let body = || node.child_by_field_name("body");
    let class = |kind: &'static str, keyword: &'static str| {
        Container::class(kind, keyword, name_of(node, source), body())
    };
    match node.kind() {
        "namespace_definition" => {
            let written = name_of(node, source);
            let name = written.replace('\\', ".");
            match body() {
                Some(body) => Role::Container(Container {
                    kind: "namespace",
                    keyword: "namespace",
                    name,
                    label: Some(format!("namespace {written}")),
                    body: Some(body),
                    class_like: false,
                }),
                None => Role::Marker(Marker {
                    label: format!("namespace {written}"),
                    name,
                    class_like: false,
                }),
            }
        }
        "class_declaration" => class("class", "class"),
        "interface_declaration" => class("interface", "interface"),
        "trait_declaration" => class("trait", "trait"),
        "enum_declaration" => class("enum", "enum"),
        "function_definition" => Symbol::role("function", name_of(node, source), body()),
        "method_declaration" => {
            let name = name_of(node, source);
            match body() {
                Some(body) if name == "__construct" => {
                    Symbol::role("constructor", name, Some(body))
                }
                Some(body) => Symbol::role("method", name, Some(body)),
                None => Role::Code,
            }
        }
        "compound_statement" | "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
