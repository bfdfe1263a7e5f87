//! SQL: `CREATE TABLE`, `VIEW`, `MATERIALIZED VIEW`, `FUNCTION`, `TRIGGER` and `TYPE` are
//! chunks named by their (schema-qualified) object; queries, inserts, indexes and the other
//! statements are module code, grouped in runs.

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "--",
    comment_end: "",
    classify,
    leading: &["comment", "marginalia"],
    decorators: &[],
    decorator_holders: &[],
    elision: "...",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    let kind = match node.kind() {
        "statement" => {
            return match node.named_child(0) {
                Some(inner) if node.named_child_count() == 1 => Role::Wrap(inner),
                _ => Role::Code,
            }
        }
        "create_table" => "table",
        "create_view" | "create_materialized_view" => "view",
        "create_function" => "function",
        "create_trigger" => "trigger",
        "create_type" => "type",
        "ERROR" => return Role::Transparent,
        _ => return Role::Code,
    };
    let name = child_of_kind(node, &["object_reference"])
        .or_else(|| child_of_kind(node, &["identifier"]))
        .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
    Symbol::role(kind, name, None)
}
