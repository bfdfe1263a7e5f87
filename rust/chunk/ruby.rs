//! Ruby: classes are class-like (`initialize` is the constructor), and so are modules that
//! define methods themselves (mixins); modules of modules and classes only are namespaces,
//! `def` and `def self.` methods are chunks. The methods of a class's `class << self` block
//! are the class's, in a scope of their own whose context says `class << self`: Ruby's
//! `Client#push` (an instance method) is then told from `Client.push` (a class method), which
//! share a name.

use tree_sitter::Node;

use super::spec::{name_of, Container, Context, Marker, Role, Spec, Symbol, TITLE_CHARS};
use super::text::{collapse, Source};

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
    conditionals: &[
        "if", "unless", "then", "else", "elsif", "begin", "rescue", "ensure",
    ],
};

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let body = || node.child_by_field_name("body");
    match node.kind() {
        "class" => Container::class("class", "class", name_of(node, source), body()),
        // A module that defines methods itself is a mixin, read as a class is: one chunk with
        // its opening line, its loose code and a line per method, where `Sidekiq::Job` is
        // found whole. A module of modules and classes only is a namespace.
        "module" if body().is_some_and(defines_methods) => {
            Container::class("module", "module", name_of(node, source), body())
        }
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
        "singleton_class" | "body_statement" | "block_body" | "ERROR" => Role::Transparent,
        "call" => spec_call(node, source),
        _ => Role::Code,
    }
}

/// Whether a module's body defines a method among its own statements (`def`, `def self.`),
/// or in its `class << self` block: `ActiveSupport::Notifications` is a module whose functions
/// (`publish`, `subscribe`) are all defined there.
fn defines_methods(body: Node) -> bool {
    let mut cursor = body.walk();
    let found = body
        .named_children(&mut cursor)
        .any(|child| match child.kind() {
            "method" | "singleton_method" => true,
            "singleton_class" => child
                .child_by_field_name("body")
                .is_some_and(defines_methods),
            _ => false,
        });
    found
}

/// RSpec's and minitest/spec's groups and examples: `describe Client do` and `context "when
/// empty" do` are namespaces named by their title, `it "pushes a job" do` and `specify` are
/// test chunks (`RSpec.describe` too). Other calls are code.
fn spec_call<'t>(node: Node<'t>, source: &Source) -> Role<'t> {
    let (Some(method), Some(block)) = (
        node.child_by_field_name("method"),
        node.child_by_field_name("block"),
    ) else {
        return Role::Code;
    };
    let word = source.slice(method.start_byte(), method.end_byte());
    let title = node
        .child_by_field_name("arguments")
        .and_then(|arguments| arguments.named_child(0))
        .map(|first| {
            let text = source.slice(first.start_byte(), first.end_byte());
            collapse(text.trim_matches(['"', '\'']), TITLE_CHARS)
        });
    match (word, title) {
        (
            "describe" | "context" | "feature" | "shared_examples" | "shared_context",
            Some(title),
        ) => Container::namespace("describe", title, Some(block)),
        ("it" | "specify" | "scenario" | "example", Some(title)) => Role::Symbol(Symbol {
            kind: "test",
            name: title,
            qualifier: None,
            scopes: Vec::new(),
            body: Some(block),
            label: None,
        }),
        _ => Role::Code,
    }
}
