//! Haskell: functions (equations merged, type signature attached), data types, newtypes and
//! type synonyms are chunks; type classes and instances are class-like.

use tree_sitter::Node;

use super::spec::{name_of, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "--",
    comment_end: "",
    classify,
    leading: &["comment", "haddock", "signature", "pragma"],
    decorators: &[],
    decorator_holders: &[],
    elision: "= ...",
    merge_same_name: true,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "function" | "bind" => {
            if node.child_by_field_name("name").is_none() {
                return Role::Code;
            }
            let kind = if context.in_class {
                "method"
            } else {
                "function"
            };
            Symbol::role(
                kind,
                name_of(node, source),
                node.child_by_field_name("match"),
            )
        }
        "data_type" | "newtype" | "type_synomym" | "type_family" => {
            Symbol::role("type", name_of(node, source), None)
        }
        "class" => Container::class(
            "class",
            "class",
            name_of(node, source),
            node.child_by_field_name("declarations"),
        ),
        "instance" => {
            let name = name_of(node, source);
            let label = match node.child_by_field_name("patterns") {
                Some(patterns) => format!("{name} {}", node_text(patterns, source)),
                None => name,
            };
            Container::class(
                "instance",
                "instance",
                label,
                node.child_by_field_name("declarations"),
            )
        }
        "declarations" | "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
