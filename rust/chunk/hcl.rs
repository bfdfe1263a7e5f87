//! HCL and Terraform: each top-level block is a chunk named as Terraform addresses it
//! (`aws_s3_bucket.attachments`, `data.aws_caller_identity.current`, `module.database`,
//! `var.region`); top-level attributes (`.tfvars`) are module code.

use tree_sitter::Node;

use super::spec::{node_text, Context, Role, Spec, Symbol};
use super::text::Source;

pub(crate) static SPEC: Spec = Spec {
    comment: "#",
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

fn classify<'t>(node: Node<'t>, source: &Source, context: Context) -> Role<'t> {
    match node.kind() {
        "body" if context.scope_name.is_none() => Role::Transparent,
        "block" => block(node, source),
        "ERROR" => Role::Transparent,
        _ => Role::Code,
    }
}

fn block<'t>(node: Node<'t>, source: &Source) -> Role<'t> {
    let mut cursor = node.walk();
    let mut block_type = String::new();
    let mut labels: Vec<String> = Vec::new();
    let mut body = None;
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "identifier" if block_type.is_empty() => block_type = node_text(child, source),
            "identifier" => labels.push(node_text(child, source)),
            "string_lit" => labels.push(node_text(child, source).trim_matches('"').to_string()),
            "body" => body = Some(child),
            _ => {}
        }
    }
    let (kind, prefix) = match block_type.as_str() {
        "resource" => ("resource", None),
        "data" => ("data", Some("data")),
        "module" => ("module_call", Some("module")),
        "variable" => ("variable", Some("var")),
        "output" => ("output", Some("output")),
        "provider" => ("provider", Some("provider")),
        "locals" => ("locals", Some("locals")),
        "terraform" => ("terraform", Some("terraform")),
        _ => ("block", Some(block_type.as_str())),
    };
    let name = prefix
        .into_iter()
        .map(str::to_string)
        .chain(labels)
        .collect::<Vec<_>>()
        .join(".");
    let name = if name.is_empty() {
        "<anonymous>".to_string()
    } else {
        name
    };
    Symbol::role(kind, name, body)
}
