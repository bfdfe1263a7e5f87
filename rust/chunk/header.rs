//! The pieces of a chunk's header read from the source: a definition's decorators, its
//! signature, and a container's context label.

use tree_sitter::Node;

use super::group::Item;
use super::spec::{Container, Spec};
use super::text::{collapse, Source};

/// Caps on header pieces, in chars.
const MAX_LABEL: usize = 160;
const MAX_DECORATORS: usize = 300;
const MAX_SIGNATURE: usize = 200;

/// The decorators of an item, as written, and the byte where they end.
pub(super) fn decorators(spec: &Spec, source: &Source, item: &Item<'_>) -> (String, usize) {
    let mut texts: Vec<String> = Vec::new();
    let mut end = 0;
    let mut take = |node: Node, texts: &mut Vec<String>| {
        texts.push(collapse(
            source.slice(node.start_byte(), node.end_byte()),
            120,
        ));
        end = end.max(node.end_byte());
    };
    for node in &item.leading {
        if spec.decorators.contains(&node.kind()) {
            take(*node, &mut texts);
        }
    }
    let mut cursor = item.inner.walk();
    for holder in item.wrappers.iter().chain(std::iter::once(&item.inner)) {
        for child in holder.children(&mut cursor) {
            if child.start_byte() >= item.inner.end_byte() {
                break;
            }
            if spec.decorators.contains(&child.kind()) {
                take(child, &mut texts);
            } else if spec.decorator_holders.contains(&child.kind()) {
                let mut inner_cursor = child.walk();
                for grandchild in child.named_children(&mut inner_cursor) {
                    if spec.decorators.contains(&grandchild.kind()) {
                        take(grandchild, &mut texts);
                    }
                }
            }
        }
    }
    (collapse(&texts.join(" "), MAX_DECORATORS), end)
}

/// The byte range of an item's signature: after its decorators, up to its body.
pub(super) fn signature(
    source: &Source,
    item: &Item<'_>,
    decorators_end: usize,
    body: Option<Node<'_>>,
) -> (usize, usize) {
    let bytes = source.bytes();
    let mut start = item.node.start_byte().max(decorators_end);
    while start < bytes.len() && bytes[start].is_ascii_whitespace() {
        start += 1;
    }
    let mut end = match body {
        Some(body) if body.start_byte() > start => body.start_byte(),
        _ => source.line_end(start).min(item.end).max(start),
    };
    // Comments between the signature and the body (Python) are not signature.
    let mut cursor = item.inner.walk();
    for child in item.inner.children(&mut cursor) {
        if child.start_byte() >= end {
            break;
        }
        if child.start_byte() > start && child.kind().contains("comment") {
            end = child.start_byte();
            break;
        }
    }
    (start, end)
}

/// The signature in `range` on one line, capped.
pub(super) fn signature_text(source: &Source, range: (usize, usize)) -> String {
    collapse(source.slice(range.0, range.1), MAX_SIGNATURE)
}

/// A container's context label: `keyword name` (or the table's own), with a class's
/// decorators.
pub(super) fn container_label(container: &Container<'_>, decorators: &str) -> String {
    let mut label = match &container.label {
        Some(label) => label.clone(),
        None if container.name.is_empty() => container.keyword.to_string(),
        None => format!("{} {}", container.keyword, container.name),
    };
    if container.class_like && !decorators.is_empty() {
        label.push(' ');
        label.push_str(decorators);
    }
    collapse(&label, MAX_LABEL)
}
