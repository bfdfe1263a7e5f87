//! Clojure: `defn`, `defn-`, `defmacro`, `defmulti`, `defmethod` and function-valued `def`s
//! are chunks, as are `defprotocol` and `definterface`; `defrecord` and `deftype` are
//! class-like, their method bodies chunks. `(ns ...)` names the scope of the rest of the file.

use tree_sitter::Node;

use super::spec::{node_text, Container, Context, Marker, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: ";;",
    comment_end: "",
    classify,
    leading: &["comment"],
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
        "list_lit" => form(node, source, context),
        "ERROR" => Role::Transparent,
        _ if context.in_class && before_first_method(node, context.parent) => Role::Header,
        _ => Role::Code,
    }
}

fn form<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let mut values = values(node);
    let head = values.next();
    let name = values.next();
    let Some(head) = head.filter(|h| h.kind() == "sym_lit") else {
        return Role::Code;
    };
    let symbol_name = |n: Option<Node>| {
        n.filter(|n| n.kind() == "sym_lit")
            .map(|n| sym_name(n, source))
            .unwrap_or_else(|| "<anonymous>".to_string())
    };
    if context.in_class {
        // `(describe [this] ...)` inside a record: a method.
        return Symbol::role("method", sym_name(head, source), Some(node));
    }
    match sym_name(head, source).as_str() {
        "ns" => {
            let name = symbol_name(name);
            Role::Marker(Marker {
                label: format!("ns {name}"),
                name,
                class_like: false,
            })
        }
        "defn" | "defn-" => Symbol::role("function", symbol_name(name), Some(node)),
        "defmacro" => Symbol::role("macro", symbol_name(name), Some(node)),
        "defmulti" | "defmethod" => Symbol::role("method", symbol_name(name), Some(node)),
        "defprotocol" | "definterface" => Symbol::role("interface", symbol_name(name), Some(node)),
        "defrecord" | "deftype" => {
            let keyword = if sym_name(head, source) == "defrecord" {
                "defrecord"
            } else {
                "deftype"
            };
            Container::class("class", keyword, symbol_name(name), Some(node))
        }
        "def" | "defonce" => match values.last() {
            Some(value) if value.kind() == "list_lit" && is_fn(value, source) => {
                Symbol::role("function", symbol_name(name), Some(node))
            }
            _ => Role::Code,
        },
        _ => Role::Code,
    }
}

/// The forms inside a list, comments and metadata left out.
fn values<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut cursor = node.walk();
    let values: Vec<Node<'t>> = node.children_by_field_name("value", &mut cursor).collect();
    values.into_iter()
}

fn sym_name(node: Node, source: &Source) -> String {
    node.child_by_field_name("name")
        .map_or_else(|| node_text(node, source), |name| node_text(name, source))
}

/// `(fn [x] ...)`.
fn is_fn(node: Node, source: &Source) -> bool {
    values(node)
        .next()
        .is_some_and(|head| head.kind() == "sym_lit" && sym_name(head, source) == "fn")
}

/// Most forms of a record's header (head, name, fields, protocols) read as its header.
const MAX_HEADER_FORMS: usize = 64;

/// The head, name, fields and protocol names of a `defrecord`, before its first method.
/// Each form of the record asks, so the forms are read only up to `node` or the first
/// method, and at most `MAX_HEADER_FORMS` of them: reading them all each time was quadratic
/// (a record of 10,000 forms on one line took 16 s). Forms past that many are code of the
/// record, as its members are.
fn before_first_method(node: Node, parent: Option<Node>) -> bool {
    let Some(parent) = parent.or_else(|| node.parent()) else {
        return false;
    };
    let mut cursor = parent.walk();
    let forms = parent.children_by_field_name("value", &mut cursor).skip(1);
    for (read, form) in forms.enumerate() {
        if form.kind() == "list_lit" {
            return node.start_byte() < form.start_byte();
        }
        if form.start_byte() >= node.start_byte() {
            return true;
        }
        if read + 1 == MAX_HEADER_FORMS {
            return false;
        }
    }
    true
}
