//! Java, Kotlin and Scala: classes, interfaces, enums, records, objects and traits are
//! class-like; methods are chunks; constructors stay in the class chunk. Annotations (in
//! `modifiers` for Java and Kotlin, direct children for Scala) go into the headers.

use tree_sitter::Node;

use super::spec::{
    child_of_kind, name_of, node_text, Container, Context, Marker, Role, Spec, Symbol,
};
use super::text::Source;

pub(crate) static JAVA: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify: classify_java,
    leading: &["line_comment", "block_comment"],
    decorators: &["marker_annotation", "annotation"],
    decorator_holders: &["modifiers"],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

pub(crate) static KOTLIN: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify: classify_kotlin,
    leading: &[
        "line_comment",
        "block_comment",
        "comment",
        "multiline_comment",
    ],
    decorators: &["annotation"],
    decorator_holders: &["modifiers"],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

pub(crate) static SCALA: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify: classify_scala,
    leading: &["comment", "block_comment"],
    decorators: &["annotation"],
    decorator_holders: &["modifiers"],
    elision: "...",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

fn method_kind(context: Context, name: &str) -> &'static str {
    if !context.in_class {
        "function"
    } else if context.scope_name == Some(name) {
        "constructor"
    } else {
        "method"
    }
}

fn classify_java<'t>(node: Node<'t>, source: &Source, _context: Context) -> Role<'t> {
    let body = || node.child_by_field_name("body");
    let class = |kind: &'static str, keyword: &'static str| {
        Container::class(kind, keyword, name_of(node, source), body())
    };
    match node.kind() {
        "class_declaration" => class("class", "class"),
        "interface_declaration" => class("interface", "interface"),
        "enum_declaration" => class("enum", "enum"),
        "record_declaration" => class("record", "record"),
        "annotation_type_declaration" => class("annotation", "@interface"),
        "method_declaration" => match body() {
            Some(body) => Symbol::role("method", name_of(node, source), Some(body)),
            None => Role::Code,
        },
        "constructor_declaration" | "compact_constructor_declaration" => {
            Symbol::role("constructor", name_of(node, source), body())
        }
        "enum_body_declarations" | "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

fn classify_kotlin<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let class_body = || child_of_kind(node, &["class_body", "enum_class_body"]);
    match node.kind() {
        "class_declaration" => {
            let mut cursor = node.walk();
            let is_interface = node.children(&mut cursor).any(|c| c.kind() == "interface");
            let (kind, keyword) = if is_interface {
                ("interface", "interface")
            } else {
                ("class", "class")
            };
            Container::class(kind, keyword, name_of(node, source), class_body())
        }
        "object_declaration" => {
            Container::class("object", "object", name_of(node, source), class_body())
        }
        "companion_object" => {
            let name = node
                .child_by_field_name("name")
                .map_or_else(|| "Companion".to_string(), |_| name_of(node, source));
            Container::class("object", "companion object", name, class_body())
        }
        "function_declaration" => {
            let body = child_of_kind(node, &["function_body"]);
            if body.is_none() {
                return Role::Code;
            }
            let kind = if context.in_class {
                "method"
            } else {
                "function"
            };
            Symbol::role(kind, name_of(node, source), body)
        }
        "secondary_constructor" => Symbol::role(
            "constructor",
            context.scope_name.unwrap_or("constructor").to_string(),
            child_of_kind(node, &["block"]),
        ),
        "identifier" => broken_class(node, source),
        "class_member_declaration" | "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// The name in `class Name {` when the parser gave up on the declaration: its tokens lie
/// loose in an ERROR node, the members after them. The name opens the class's scope for the
/// rest of that node, so the members still read as its methods.
fn broken_class<'t>(node: Node<'t>, source: &Source) -> Role<'t> {
    let keyword = node.prev_sibling().map(|previous| previous.kind());
    let keyword = match keyword {
        Some(keyword @ ("class" | "interface" | "object")) => keyword,
        _ => return Role::Code,
    };
    if !opens_body(node) || node.parent().is_none_or(|parent| !parent.is_error()) {
        return Role::Code;
    }
    let name = node_text(node, source);
    Role::Marker(Marker {
        label: format!("{keyword} {name}"),
        name,
        class_like: true,
    })
}

/// Whether the class body's `{` follows `name`, past what may come between (type
/// parameters, primary constructor, supertypes, `where` constraints).
fn opens_body(name: Node) -> bool {
    const HEADER: &[&str] = &[
        "type_parameters",
        "primary_constructor",
        "class_parameters",
        "delegation_specifiers",
        "delegation_specifier",
        "type_constraints",
        "user_type",
        "constructor_invocation",
        "modifiers",
        "annotation",
    ];
    let mut next = name.next_sibling();
    for _ in 0..16 {
        let Some(sibling) = next else { break };
        match sibling.kind() {
            "{" => return true,
            "}" => return false,
            kind if sibling.is_named() && !HEADER.contains(&kind) => return false,
            _ => next = sibling.next_sibling(),
        }
    }
    false
}

fn classify_scala<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let body = || node.child_by_field_name("body");
    let class = |kind: &'static str, keyword: &'static str| {
        Container::class(kind, keyword, name_of(node, source), body())
    };
    match node.kind() {
        "class_definition" => class("class", "class"),
        "object_definition" => class("object", "object"),
        "trait_definition" => class("trait", "trait"),
        "enum_definition" => class("enum", "enum"),
        "package_clause" => match body() {
            Some(body) => Container::namespace("package", name_of(node, source), Some(body)),
            None => Role::Code,
        },
        "function_definition" => {
            let name = name_of(node, source);
            let kind = method_kind(context, &name);
            Symbol::role(kind, name, body())
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}
