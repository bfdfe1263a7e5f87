//! JavaScript, TypeScript and TSX: functions, classes, methods, named arrow functions and
//! function expressions, function-valued property assignments, namespaces and TS types.

use tree_sitter::Node;

use super::spec::{
    child_of_kind, name_of, node_text, Container, Context, Role, Spec, Symbol, TITLE_CHARS,
};
use super::text::{collapse, Source};

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify,
    leading: &["comment", "decorator"],
    decorators: &["decorator"],
    decorator_holders: &[],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[
        "if_statement",
        "statement_block",
        "else_clause",
        "try_statement",
        "catch_clause",
        "finally_clause",
        // Wrapping functions: IIFEs, UMD and AMD factories, `$(function () { ... })`.
        "expression_statement",
        "call_expression",
        "parenthesized_expression",
        "unary_expression",
        "arguments",
        "function_expression",
        "arrow_function",
    ],
};

const FUNCTIONS: &[&str] = &[
    "arrow_function",
    "function_expression",
    "function",
    "generator_function",
];

const DECLARATIONS: &[&str] = &[
    "class_declaration",
    "abstract_class_declaration",
    "function_declaration",
    "generator_function_declaration",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "module",
    "internal_module",
    "lexical_declaration",
    "variable_declaration",
];

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "export_statement" => {
            if let Some(declaration) = node.child_by_field_name("declaration") {
                return Role::Wrap(declaration);
            }
            match node.child_by_field_name("value") {
                Some(value) => value_role(value, "default".to_string(), "function", source),
                None => Role::Code,
            }
        }
        "ambient_declaration" => child_of_kind(node, DECLARATIONS).map_or(Role::Code, Role::Wrap),
        "expression_statement" => match node.named_child(0) {
            Some(child) if child.kind() == "internal_module" => Role::Wrap(child),
            Some(child) if child.kind() == "assignment_expression" => assignment(child, source),
            Some(child) if child.kind() == "call_expression" => test_call(child, source),
            _ => Role::Code,
        },
        "function_declaration" | "generator_function_declaration" => Symbol::role(
            "function",
            name_of(node, source),
            node.child_by_field_name("body"),
        ),
        "class_declaration" | "abstract_class_declaration" | "class" => Container::class(
            "class",
            "class",
            name_of(node, source),
            node.child_by_field_name("body"),
        ),
        "interface_declaration" => Symbol::role(
            "interface",
            name_of(node, source),
            node.child_by_field_name("body"),
        ),
        "type_alias_declaration" => Symbol::role("type", name_of(node, source), None),
        "function_signature" | "method_signature" => Role::Overload(name_of(node, source)),
        "enum_declaration" => Symbol::role(
            "enum",
            name_of(node, source),
            node.child_by_field_name("body"),
        ),
        "internal_module" => namespace_role(
            "namespace",
            name_of(node, source),
            node.child_by_field_name("body"),
        ),
        "module" => namespace_role(
            "module",
            name_of(node, source).trim_matches(['"', '\'']).to_string(),
            node.child_by_field_name("body"),
        ),
        "method_definition" => {
            let name = name_of(node, source);
            let kind = if name == "constructor" {
                "constructor"
            } else {
                "method"
            };
            Symbol::role(kind, name, node.child_by_field_name("body"))
        }
        "public_field_definition" | "field_definition" => {
            let name = node
                .child_by_field_name("name")
                .or_else(|| node.child_by_field_name("property"))
                .map(|n| node_text(n, source));
            match (name, node.child_by_field_name("value")) {
                (Some(name), Some(value)) if function_of(value).is_some() => value_role(
                    value,
                    name,
                    if context.in_class {
                        "method"
                    } else {
                        "function"
                    },
                    source,
                ),
                _ => Role::Code,
            }
        }
        "lexical_declaration" | "variable_declaration" => declaration(node, source),
        "pair" => {
            let (Some(key), Some(value)) = (
                node.child_by_field_name("key"),
                node.child_by_field_name("value"),
            ) else {
                return Role::Code;
            };
            let name = node_text(key, source).trim_matches(['"', '\'']).to_string();
            value_role(value, name, "method", source)
        }
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// Test frameworks' suites and cases (Jest, Mocha, Vitest, Jasmine, `node:test`):
/// `describe('router', () => { ... })` is a namespace named by its title, `it('matches a
/// path', ...)` and `test(...)` are test chunks; `.only`, `.skip` and `.each(table)` variants
/// too. Other calls are code.
fn test_call<'t>(call: Node<'t>, source: &Source) -> Role<'t> {
    let Some(mut callee) = call.child_by_field_name("function") else {
        return Role::Code;
    };
    // `test.each([...])('adds %i', fn)`: the callee is itself a call.
    if callee.kind() == "call_expression" {
        match callee.child_by_field_name("function") {
            Some(inner) => callee = inner,
            None => return Role::Code,
        }
    }
    // `describe.only`, `it.skip`, `test.each`: the framework's word is the object.
    while callee.kind() == "member_expression" {
        match callee.child_by_field_name("object") {
            Some(object) => callee = object,
            None => return Role::Code,
        }
    }
    if callee.kind() != "identifier" {
        return Role::Code;
    }
    let word = node_text(callee, source);
    let Some(arguments) = call.child_by_field_name("arguments") else {
        return Role::Code;
    };
    let mut cursor = arguments.walk();
    let values: Vec<Node<'t>> = arguments.named_children(&mut cursor).collect();
    let (Some(title), Some(function)) = (
        values
            .first()
            .filter(|v| matches!(v.kind(), "string" | "template_string")),
        values.iter().find_map(|v| function_of(*v)),
    ) else {
        return Role::Code;
    };
    let name = collapse(
        node_text(*title, source).trim_matches(['"', '\'', '`']),
        TITLE_CHARS,
    );
    let body = function.child_by_field_name("body");
    match word.as_str() {
        "describe" | "context" | "suite" | "fdescribe" | "xdescribe" => {
            Container::namespace("describe", name, body)
        }
        "it" | "test" | "specify" | "fit" | "xit" | "xtest" => Role::Symbol(Symbol {
            kind: "test",
            name,
            qualifier: None,
            scopes: Vec::new(),
            body,
            label: None,
        }),
        _ => Role::Code,
    }
}

/// A TypeScript namespace (or `declare module`) that defines functions or values itself reads
/// as a class does: one chunk with its doc comment, opening line, loose code and a line per
/// member, where `Validation` is found by its name. One of types, classes and namespaces only
/// gives context.
fn namespace_role<'t>(keyword: &'static str, name: String, body: Option<Node<'t>>) -> Role<'t> {
    if body.is_some_and(defines_values) {
        Container::class("namespace", keyword, name, body)
    } else {
        Container::namespace(keyword, name, body)
    }
}

/// Whether a namespace's body declares a function or a value among its own statements
/// (exported or not).
fn defines_values(body: Node) -> bool {
    let mut cursor = body.walk();
    let found = body.named_children(&mut cursor).any(|child| {
        let declared = match child.kind() {
            "export_statement" => child.child_by_field_name("declaration"),
            _ => Some(child),
        };
        declared.is_some_and(|d| {
            matches!(
                d.kind(),
                "function_declaration"
                    | "generator_function_declaration"
                    | "function_signature"
                    | "lexical_declaration"
                    | "variable_declaration"
            )
        })
    });
    found
}
fn value_role<'t>(value: Node<'t>, name: String, kind: &'static str, source: &Source) -> Role<'t> {
    if value.kind() == "object" {
        return if holds_functions(value, 3) {
            Container::class("object", "object", name, Some(value))
        } else {
            Role::Code
        };
    }
    if matches!(value.kind(), "class" | "class_declaration") {
        let name = value
            .child_by_field_name("name")
            .map_or(name, |n| node_text(n, source));
        return Container::class("class", "class", name, value.child_by_field_name("body"));
    }
    match function_of(value) {
        Some(function) => {
            let name = function
                .child_by_field_name("name")
                .filter(|_| name == "default")
                .map_or(name, |n| node_text(n, source));
            Symbol::role(kind, name, function.child_by_field_name("body"))
        }
        None => Role::Code,
    }
}

/// Whether an object literal has methods, directly or `depth` objects down
/// (`export default { methods: { save() {} } }`).
fn holds_functions(object: Node, depth: usize) -> bool {
    let mut cursor = object.walk();
    let members: Vec<Node> = object.named_children(&mut cursor).collect();
    members.into_iter().any(|member| match member.kind() {
        "method_definition" => true,
        "pair" => member.child_by_field_name("value").is_some_and(|value| {
            function_of(value).is_some()
                || (depth > 1 && value.kind() == "object" && holds_functions(value, depth - 1))
        }),
        _ => false,
    })
}

/// The function a value is, or wraps in a call (`React.memo(() => ...)`, `forwardRef(...)`).
fn function_of(value: Node<'_>) -> Option<Node<'_>> {
    if FUNCTIONS.contains(&value.kind()) {
        return Some(value);
    }
    if value.kind() == "call_expression" {
        let arguments = value.child_by_field_name("arguments")?;
        return child_of_kind(arguments, FUNCTIONS);
    }
    None
}

/// The value at the end of a chain of assignments: the object of `const proto = module.exports
/// = { ... }` and of `module.exports = exports = { ... }`.
fn assigned_value(value: Node<'_>) -> Node<'_> {
    let mut value = value;
    while value.kind() == "assignment_expression" {
        match value.child_by_field_name("right") {
            Some(right) => value = right,
            None => break,
        }
    }
    value
}

/// `const f = ...` with a function or class value; other declarations are plain code.
fn declaration<'t>(node: Node<'t>, source: &Source) -> Role<'t> {
    let mut cursor = node.walk();
    let declarators: Vec<Node<'t>> = node
        .named_children(&mut cursor)
        .filter(|child| child.kind() == "variable_declarator")
        .collect();
    for declarator in declarators {
        let (Some(name), Some(value)) = (
            declarator.child_by_field_name("name"),
            declarator.child_by_field_name("value").map(assigned_value),
        ) else {
            continue;
        };
        if name.kind() != "identifier" {
            continue;
        }
        let is_object = value.kind() == "object" && holds_functions(value, 3);
        if function_of(value).is_some() || value.kind() == "class" || is_object {
            return value_role(value, node_text(name, source), "function", source);
        }
    }
    Role::Code
}

/// `obj.f = function () {}`, `module.exports.f = () => {}`, `Foo.prototype.bar = ...`.
fn assignment<'t>(node: Node<'t>, source: &Source) -> Role<'t> {
    let (Some(left), Some(right)) = (
        node.child_by_field_name("left"),
        node.child_by_field_name("right").map(assigned_value),
    ) else {
        return Role::Code;
    };
    if matches!(right.kind(), "object" | "class") {
        // `module.exports = class Application {}`: the class's own name wins.
        let name = node_text(left, source).replace(' ', "");
        return value_role(right, name, "function", source);
    }
    let Some(function) = function_of(right) else {
        return Role::Code;
    };
    let body = function.child_by_field_name("body");
    match left.kind() {
        "identifier" => Symbol::role("function", node_text(left, source), body),
        "member_expression" => {
            let (Some(object), Some(property)) = (
                left.child_by_field_name("object"),
                left.child_by_field_name("property"),
            ) else {
                return Role::Code;
            };
            if object.kind() == "this" {
                return Role::Code;
            }
            Role::Symbol(Symbol {
                kind: "function",
                name: node_text(property, source),
                qualifier: Some(node_text(object, source).replace(' ', "")),
                scopes: Vec::new(),
                body,
                label: None,
            })
        }
        _ => Role::Code,
    }
}
