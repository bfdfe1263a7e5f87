//! Rust items written inside macro invocations (`cfg_rt! { pub fn spawn() {} }`, tokio's
//! `cfg_*!` wrappers and the like): tree-sitter sees only a token tree there, so the items
//! would be invisible. A macro invocation in item position whose body parses as items alone
//! is unwrapped: its `name! {` and closing `}` become spaces (same length, same lines) and the
//! text is parsed again. The chunker then slices chunk text from the original source, so
//! every chunk shows the file as written; only the lines that hold nothing but the macro's
//! head or closing delimiter are in no chunk.

use tree_sitter::{Node, Tree};

/// Item kinds that make a macro body worth unwrapping.
const ITEMS: &[&str] = &[
    "function_item",
    "struct_item",
    "enum_item",
    "union_item",
    "impl_item",
    "trait_item",
    "mod_item",
    "type_item",
    "const_item",
    "static_item",
    "macro_definition",
];

/// How deep macros nested in unwrapped macros are unwrapped.
const MAX_ROUNDS: usize = 3;

/// `text` with the item-holding macro invocations of `tree` unwrapped, or None when it has
/// none. `parse` parses Rust source.
pub(crate) fn unwrap_item_macros(
    text: &str,
    tree: Tree,
    parse: impl Fn(&str) -> Option<Tree>,
) -> Option<(String, Tree)> {
    let mut current: Option<(String, Tree)> = None;
    for _ in 0..MAX_ROUNDS {
        let (source, parsed) = match &current {
            Some((source, parsed)) => (source.as_str(), parsed),
            None => (text, &tree),
        };
        let mut ranges = Vec::new();
        collect(parsed.root_node(), source, &parse, &mut ranges);
        if ranges.is_empty() {
            break;
        }
        let mut bytes = source.as_bytes().to_vec();
        for (start, end) in ranges {
            for byte in &mut bytes[start..end] {
                if *byte != b'\n' {
                    *byte = b' ';
                }
            }
        }
        // Only ASCII punctuation and identifier bytes were blanked: still UTF-8.
        let unwrapped = String::from_utf8(bytes).ok()?;
        let reparsed = parse(&unwrapped)?;
        current = Some((unwrapped, reparsed));
    }
    current
}

/// The byte ranges to blank: each unwrappable invocation's head (`cfg_rt! {`) and its
/// closing delimiter (with a trailing `;`).
fn collect(
    node: Node,
    source: &str,
    parse: &impl Fn(&str) -> Option<Tree>,
    ranges: &mut Vec<(usize, usize)>,
) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "macro_invocation" => {
                if let Some((head, tail)) = unwrappable(child, source, parse) {
                    ranges.push(head);
                    ranges.push(tail);
                }
            }
            "mod_item" => {
                if let Some(body) = child.child_by_field_name("body") {
                    collect(body, source, parse, ranges);
                }
            }
            "expression_statement" => collect(child, source, parse, ranges),
            _ => {}
        }
    }
}

fn unwrappable(
    invocation: Node,
    source: &str,
    parse: &impl Fn(&str) -> Option<Tree>,
) -> Option<((usize, usize), (usize, usize))> {
    let macro_name = invocation.child_by_field_name("macro")?;
    if &source[macro_name.start_byte()..macro_name.end_byte()] == "macro_rules" {
        return None;
    }
    let mut cursor = invocation.walk();
    let body = invocation
        .children(&mut cursor)
        .find(|child| child.kind() == "token_tree")?;
    let (open, close) = (body.start_byte(), body.end_byte());
    if close <= open + 1 || !matches!(source.as_bytes()[open], b'{' | b'(' | b'[') {
        return None;
    }
    let inner = &source[open + 1..close - 1];
    let parsed = parse(inner)?;
    let root = parsed.root_node();
    let mut cursor = root.walk();
    let has_items = root
        .named_children(&mut cursor)
        .any(|item| ITEMS.contains(&item.kind()));
    if root.has_error() || !has_items {
        return None;
    }
    let mut tail_end = close;
    if source[close..].starts_with(';') {
        tail_end += 1;
    }
    Some(((invocation.start_byte(), open + 1), (close - 1, tail_end)))
}
