//! Ruby: classes are class-like (`initialize` is the constructor), modules are namespaces,
//! `def` and `def self.` methods are chunks.

use tree_sitter::Node;

use super::spec::{name_of, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "#",
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
};

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let body = || node.child_by_field_name("body");
    match node.kind() {
        "class" => Container::class("class", "class", name_of(node, source), body()),
        "module" => Container::namespace("module", name_of(node, source), body()),
        "method" => {
            let name = name_of(node, source);
            let kind = match (context.in_class, name.as_str()) {
                (true, "initialize") => "constructor",
                (true, _) => "method",
                (false, _) => "function",
            };
            Symbol::role(kind, name, body())
        }
        "singleton_method" => Symbol::role("method", name_of(node, source), body()),
        "singleton_class" | "body_statement" | "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
