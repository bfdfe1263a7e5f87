//! Erlang: a function is one chunk named `name/arity`, its clauses merged; records and
//! types are chunks. `-spec`, `-doc` and comments right above a function belong to it.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "%",
    comment_end: "",
    classify,
    leading: &["comment", "spec", "wild_attribute"],
    decorators: &[],
    decorator_holders: &[],
    elision: "-> ...",
    merge_same_name: true,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    match node.kind() {
        "fun_decl" => {
            let Some(clause) = node.child_by_field_name("clause") else {
                return Role::Code;
            };
            let name = clause
                .child_by_field_name("name")
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            let arity = clause.child_by_field_name("args").map_or(0, |args| {
                let mut cursor = args.walk();
                let count = args.children_by_field_name("args", &mut cursor).count();
                count
            });
            Symbol::role(
                "function",
                format!("{name}/{arity}"),
                clause.child_by_field_name("body"),
            )
        }
        "record_decl" => {
            let name = node
                .child_by_field_name("name")
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            Symbol::role("record", name, None)
        }
        "type_alias" | "opaque" => {
            let name = node
                .child_by_field_name("name")
                .or_else(|| child_of_kind(node, &["type_name"]))
                .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
            // `state()` names the type `state`.
            let name = name
                .split('(')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            Symbol::role("type", name, None)
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
