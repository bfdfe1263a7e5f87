//! Swift: classes, structs, enums, actors, extensions and protocols are class-like;
//! functions, `init` (constructor, kept in the class chunk) and `deinit` are chunks.

use tree_sitter::Node;

use super::spec::{name_of, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify,
    leading: &["comment", "multiline_comment"],
    decorators: &["attribute"],
    decorator_holders: &["modifiers"],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let body = || node.child_by_field_name("body");
    match node.kind() {
        "class_declaration" => {
            let keyword = node
                .child_by_field_name("declaration_kind")
                .map(|k| node_text(k, source));
            let (kind, keyword) = match keyword.as_deref() {
                Some("struct") => ("struct", "struct"),
                Some("enum") => ("enum", "enum"),
                Some("extension") => ("extension", "extension"),
                Some("actor") => ("class", "actor"),
                _ => ("class", "class"),
            };
            Container::class(kind, keyword, name_of(node, source), body())
        }
        "protocol_declaration" => {
            Container::class("protocol", "protocol", name_of(node, source), body())
        }
        "function_declaration" => {
            let kind = if context.in_class {
                "method"
            } else {
                "function"
            };
            Symbol::role(kind, name_of(node, source), body())
        }
        "init_declaration" => Symbol::role("constructor", "init".to_string(), body()),
        "deinit_declaration" => Symbol::role("destructor", "deinit".to_string(), body()),
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
