//! Objective-C: an `@implementation` is class-like, its methods are chunks named by their
//! selector (`addTaskWithTitle:`); `@interface` and `@protocol` declarations are chunks of
//! their own. Everything C (functions, structs, preprocessor conditionals) is read as C.

use tree_sitter::Node;

use super::c_family;
use super::spec::{node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify,
    leading: &["comment"],
    decorators: &[],
    decorator_holders: &[],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

/// Children of an `@implementation` that belong to its opening, not its members: the
/// names on its first line and the instance variables' block.
const HEADER_PARTS: &[&str] = &[
    "identifier",
    "instance_variables",
    "generic_arguments",
    "parameterized_arguments",
    "attribute_specifier",
    "attribute_declaration",
    "availability_attribute_specifier",
    "ms_declspec_modifier",
    "storage_class_specifier",
    "type_qualifier",
];

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "class_implementation" => {
            let (name, label) = class_name(node, source);
            Role::Container(Container {
                kind: "class",
                keyword: "implementation",
                name,
                label: Some(format!("implementation {label}")),
                body: Some(node),
                class_like: true,
            })
        }
        "class_interface" => Symbol::role("interface", class_name(node, source).1, None),
        "protocol_declaration" => {
            let name = first_identifier(node, source);
            Symbol::role("protocol", name, None)
        }
        "implementation_definition" => match node.named_child(0) {
            Some(inner) if node.named_child_count() == 1 => Role::Wrap(inner),
            _ => Role::Code,
        },
        "method_definition" => {
            let body = super::spec::child_of_kind(node, &["compound_statement"]);
            Symbol::role("method", selector(node, source), body)
        }
        kind if HEADER_PARTS.contains(&kind)
            && node
                .parent()
                .is_some_and(|parent| parent.kind() == "class_implementation") =>
        {
            Role::Header
        }
        _ => c_family::classify(node, source, context),
    }
}

/// The class name, and the name with its category (`Task (Sorting)`) for the label.
fn class_name(node: Node, source: &Source) -> (String, String) {
    let name = first_identifier(node, source);
    match node.child_by_field_name("category") {
        Some(category) => {
            let label = format!("{name} ({})", node_text(category, source));
            (name, label)
        }
        None => (name.clone(), name),
    }
}

fn first_identifier(node: Node, source: &Source) -> String {
    super::spec::child_of_kind(node, &["identifier"])
        .map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source))
}

/// `store:didAddTask:` from `- (void)store:(id)store didAddTask:(Task *)task`.
fn selector(node: Node, source: &Source) -> String {
    let mut name = String::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "identifier" => name.push_str(&node_text(child, source)),
            "method_parameter" => name.push(':'),
            "keyword_declarator" => {
                // `label:(type)name`, the label optional.
                let mut inner = child.walk();
                let names: Vec<Node> = child
                    .named_children(&mut inner)
                    .filter(|n| n.kind() == "identifier")
                    .collect();
                if names.len() > 1 {
                    name.push_str(&node_text(names[0], source));
                }
                name.push(':');
            }
            "compound_statement" => break,
            _ => {}
        }
    }
    if name.is_empty() {
        "<anonymous>".to_string()
    } else {
        name
    }
}
