//! Ruby: classes are class-like (`initialize` is the constructor), modules are namespaces,
//! `def` and `def self.` methods are chunks. The methods of a class's `class << self` block
//! are the class's, in a scope of their own whose context says `class << self`: Ruby's
//! `Client#push` (an instance method) is then told from `Client.push` (a class method), which
//! share a name.

use tree_sitter::Node;

use super::spec::{name_of, Container, Context, Marker, Role, Spec, Symbol};
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
    conditionals: &["if", "unless", "then", "else", "elsif", "begin", "rescue", "ensure"],
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
        // In a class only: a module's `class << self` holds its functions, no instance
        // methods to tell them from, and a scope there would cut its loose code in pieces.
        "self"
            if context.in_class
                && context
                    .parent
                    .is_some_and(|p| p.kind() == "singleton_class") =>
        {
            Role::Marker(Marker {
                name: String::new(),
                label: "class << self".to_string(),
                class_like: true,
            })
        }
        "singleton_class" | "body_statement" | "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
