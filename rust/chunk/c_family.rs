//! C and C++: functions (out-of-class definitions qualified by their class), classes and
//! structs with methods (a class defined inside another one too), namespaces, enums, and
//! structs and typedefs with bodies. Preprocessor conditionals and `extern "C"` blocks are
//! looked through; text tree-sitter misreads is read again first (`c_reparse`).

use tree_sitter::Node;

use super::spec::{child_of_kind, node_text, Container, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "//",
    comment_end: "",
    classify,
    leading: &["comment", "identifier"],
    decorators: &[],
    decorator_holders: &[],
    elision: "{ ... }",
    merge_same_name: false,
    outer_first: false,
    trailing_docs: false,
    absolute_scopes: false,
    conditionals: &[],
};

/// How many lines a function-like macro needs to be a chunk of its own.
const MACRO_LINES: usize = 3;

const RECORDS: &[&str] = &[
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "class_specifier",
];

/// The records a class may define inside its body with a chunk of their own (a nested
/// enum stays in its class's chunk, as its fields do).
const NESTED_RECORDS: &[&str] = &["struct_specifier", "union_specifier", "class_specifier"];

/// C's and C++'s node kinds; Objective-C falls back to it.
pub(crate) fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "function_definition" => function(node, source, context),
        // A function-like macro of a few lines is code someone looks up by name (`#define
        // LIBM_DD(name) static jv f_ ## name(...) { ... }`); a one-liner stays with its
        // neighbours.
        "preproc_function_def"
            if node.end_position().row - node.start_position().row + 1 >= MACRO_LINES =>
        {
            let name = node
                .child_by_field_name("name")
                .map(|n| node_text(n, source))
                .unwrap_or_default();
            Symbol::role("macro", name, node.child_by_field_name("value"))
        }
        "template_declaration" => {
            let mut cursor = node.walk();
            let inner = node.named_children(&mut cursor).filter(|child| {
                matches!(
                    child.kind(),
                    "function_definition"
                        | "class_specifier"
                        | "struct_specifier"
                        | "template_declaration"
                )
            });
            inner.last().map_or(Role::Code, Role::Wrap)
        }
        // A class written inside another one: `class InnerIterator { ... };` in a class's
        // body is a member declaration whose type is the class.
        "field_declaration" => match node.child_by_field_name("type") {
            Some(record)
                if NESTED_RECORDS.contains(&record.kind())
                    && record.child_by_field_name("name").is_some()
                    && record.child_by_field_name("body").is_some()
                    && node.child_by_field_name("declarator").is_none() =>
            {
                Role::Wrap(record)
            }
            _ => Role::Code,
        },
        "class_specifier" => record(node, source, "class"),
        "struct_specifier" => record(node, source, "struct"),
        "union_specifier" => record(node, source, "union"),
        "enum_specifier" => match node.child_by_field_name("body") {
            Some(body) => Symbol::role("enum", type_name(node, source), Some(body)),
            None => Role::Code,
        },
        "type_definition" => {
            let ty = node.child_by_field_name("type");
            match ty
                .filter(|t| RECORDS.contains(&t.kind()) && t.child_by_field_name("body").is_some())
            {
                Some(ty) => {
                    let name = node
                        .child_by_field_name("declarator")
                        .map_or_else(|| type_name(ty, source), |d| node_text(d, source));
                    let kind = match ty.kind() {
                        "union_specifier" => "union",
                        "enum_specifier" => "enum",
                        _ => "struct",
                    };
                    Symbol::role(kind, name, ty.child_by_field_name("body"))
                }
                None => Role::Code,
            }
        }
        "namespace_definition" => {
            let name = node
                .child_by_field_name("name")
                .map(|n| node_text(n, source))
                .unwrap_or_default();
            Container::namespace("namespace", name, node.child_by_field_name("body"))
        }
        "linkage_specification"
        | "declaration_list"
        | "preproc_if"
        | "preproc_ifdef"
        | "preproc_else"
        | "preproc_elif"
        | "preproc_elifdef"
        | "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

/// A struct or class with methods is class-like; a plain data struct is a type chunk; a
/// template's declaration without a body is a chunk too (`template<typename T> struct
/// traits;`): a template that is only specialised has no other primary definition.
fn record<'t>(node: Node<'t>, source: &Source, keyword: &'static str) -> Role<'t> {
    let Some(body) = node.child_by_field_name("body") else {
        return if declares_a_template(node) {
            Symbol::role(keyword, type_name(node, source), None)
        } else {
            Role::Code
        };
    };
    let mut cursor = body.walk();
    let has_methods = body.named_children(&mut cursor).any(|member| {
        matches!(
            member.kind(),
            "function_definition" | "template_declaration"
        ) || (member.kind() == "field_declaration"
            && child_of_kind(member, &["function_declarator"]).is_some())
            || (member.kind() == "declaration"
                && child_of_kind(member, &["function_declarator"]).is_some())
    });
    let name = type_name(node, source);
    if keyword == "class" || has_methods {
        // A nested class defined outside its class (`class Base<D>::InnerIterator { ... }`,
        // a pimpl's `class Widget::Impl`) is named by its last segment, in its class's
        // scope: the container's name is dotted, as a namespace `Outer.Inner` is.
        Container::class(keyword, keyword, name.replace("::", "."), Some(body))
    } else {
        Symbol::role(keyword, name, Some(body))
    }
}

/// Whether a class or struct without a body is a template's own declaration: under
/// `template<...>`, named without template arguments (`struct traits<Matrix>;` declares a
/// specialisation, and a plain `class Foo;` is a forward declaration of a class defined
/// elsewhere).
fn declares_a_template(node: Node) -> bool {
    node.parent()
        .is_some_and(|parent| parent.kind() == "template_declaration")
        && node
            .child_by_field_name("name")
            .is_some_and(|name| name.kind() == "type_identifier")
}

/// A record's name without template arguments: `Matrix` for `Matrix<float>`, and for a
/// qualified name each segment so (`SparseCompressedBase::InnerIterator` for
/// `SparseCompressedBase<Derived>::InnerIterator`, where the arguments once cut the name
/// at its first `<`).
fn type_name(node: Node, source: &Source) -> String {
    node.child_by_field_name("name")
        .map(|n| without_template_arguments(&node_text(n, source)))
        .map(|name| name.split_whitespace().collect::<String>())
        .unwrap_or_else(|| "<anonymous>".to_string())
}

fn function<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    let body = node.child_by_field_name("body");
    if body.is_none() {
        // `= default`, `= delete`, `= 0`: a declaration, kept in its class chunk.
        return Role::Code;
    }
    let mut declarator = node.child_by_field_name("declarator");
    // Pointer and reference declarators wrap the function declarator.
    for _ in 0..16 {
        match declarator {
            Some(d) if d.kind() == "function_declarator" => break,
            Some(d) => {
                declarator = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))
            }
            None => break,
        }
    }
    let name_node = declarator.and_then(|d| d.child_by_field_name("declarator"));
    let full = name_node.map_or_else(|| "<anonymous>".to_string(), |n| node_text(n, source));
    let full = without_template_arguments(&full);
    let mut segments: Vec<&str> = full.split("::").map(str::trim).collect();
    let name = segments.pop().unwrap_or_default().to_string();
    // `::f` names the global scope: no segment.
    segments.retain(|segment| !segment.is_empty());
    // A class defined outside its own class has a dotted scope name (`Base.InnerIterator`).
    let owner = segments.last().copied().or(if context.in_class {
        context
            .scope_name
            .map(|scope| scope.rsplit('.').next().unwrap_or(scope))
    } else {
        None
    });
    let kind = if name.starts_with('~') {
        "destructor"
    } else if owner == Some(name.as_str()) {
        "constructor"
    } else if owner.is_some() {
        "method"
    } else {
        "function"
    };
    // An out-of-class definition (`geo::Circle::area`) reads like one inside its class: the
    // last segment is the class, the ones before it namespaces.
    let last = segments.len().saturating_sub(1);
    let scopes = segments
        .iter()
        .enumerate()
        .map(|(k, segment)| {
            let keyword = if k == last { "class" } else { "namespace" };
            (keyword, segment.to_string())
        })
        .collect();
    Role::Symbol(Symbol {
        kind,
        name,
        qualifier: None,
        scopes,
        body,
        label: None,
    })
}

/// `Box<T>::get` as `Box::get`: template arguments dropped from a qualified name, except in
/// an operator's name (`operator<`, `operator<=>`).
fn without_template_arguments(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        let word_start = out.is_empty() || out.ends_with([':', ' ', '~']);
        if depth == 0 && word_start && rest.starts_with("operator") {
            out.push_str(rest);
            break;
        }
        match c {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}
