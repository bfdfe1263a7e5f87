//! Go: the package is the scope; functions, methods (qualified by their receiver type) and
//! type declarations are chunks. Context reads `package auth > func Authenticate`.

use tree_sitter::Node;

use super::spec::{name_of, node_text, Context, Marker, Role, Spec, Symbol};
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
    outer_first: true,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn classify<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    match node.kind() {
        "package_clause" => match node.named_child(0) {
            Some(name) => {
                let name = node_text(name, source);
                Role::Marker(Marker {
                    label: format!("package {name}"),
                    name,
                    class_like: false,
                })
            }
            None => Role::Code,
        },
        "function_declaration" => {
            let name = name_of(node, source);
            Role::Symbol(Symbol {
                kind: "function",
                label: Some(format!("func {name}")),
                name,
                qualifier: None,
                scopes: Vec::new(),
                body: node.child_by_field_name("body"),
            })
        }
        "method_declaration" => {
            let name = name_of(node, source);
            let receiver = node.child_by_field_name("receiver");
            let receiver_text = receiver.map(|r| node_text(r, source)).unwrap_or_default();
            Role::Symbol(Symbol {
                kind: "method",
                label: Some(format!("method {receiver_text} {name}")),
                name,
                qualifier: receiver.and_then(|r| receiver_type(r, source)),
                scopes: Vec::new(),
                body: node.child_by_field_name("body"),
            })
        }
        "type_declaration" => {
            let mut cursor = node.walk();
            let specs: Vec<Node<'t>> = node
                .named_children(&mut cursor)
                .filter(|child| matches!(child.kind(), "type_spec" | "type_alias"))
                .collect();
            match specs.as_slice() {
                [only] => Role::Wrap(*only),
                _ => Role::Transparent,
            }
        }
        "type_spec" | "type_alias" => {
            let name = name_of(node, source);
            let ty = node.child_by_field_name("type");
            let kind = match ty.map(|t| t.kind()) {
                Some("struct_type") => "struct",
                Some("interface_type") => "interface",
                _ => "type",
            };
            let body = ty.map(|t| {
                let mut cursor = t.walk();
                let list = t
                    .named_children(&mut cursor)
                    .find(|c| c.kind() == "field_declaration_list");
                list.unwrap_or(t)
            });
            Role::Symbol(Symbol {
                kind,
                label: Some(format!("type {name}")),
                name,
                qualifier: None,
                scopes: Vec::new(),
                body,
            })
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// `Server` from `(s *Server)` or `(s Server[T])`.
fn receiver_type(receiver: Node, source: &Source) -> Option<String> {
    let mut cursor = receiver.walk();
    let parameter = receiver.named_children(&mut cursor).next()?;
    let ty = parameter.child_by_field_name("type")?;
    let text = node_text(ty, source);
    let text = text.trim_start_matches('*');
    let name = text.split(['[', ' ']).next().unwrap_or(text);
    (!name.is_empty()).then(|| name.to_string())
}
