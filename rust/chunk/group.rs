//! Grouping: the children of a node as items for the walk, each classified by the language
//! table, with the comments, attributes and decorators written right above it.

use tree_sitter::Node;

use super::scopes::Scopes;
use super::spec::{Role, Spec, Symbol};
use super::text::{is_trivial, Source};

/// How deep `holds_definitions` looks through nested conditionals and branch blocks
/// (`if` > `else` > block > `try` > block).
const CONDITIONAL_DEPTH: usize = 6;

/// One node to handle, with what attaches to it.
pub(super) struct Item<'t> {
    pub(super) role: Role<'t>,
    /// The node as it appears among its siblings (the outermost wrapper).
    pub(super) node: Node<'t>,
    /// The definition inside the wrappers.
    pub(super) inner: Node<'t>,
    /// Wrappers between `node` and `inner`, `node` first.
    pub(super) wrappers: Vec<Node<'t>>,
    /// Comments, attributes and decorators written just above.
    pub(super) leading: Vec<Node<'t>>,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) frame: usize,
}

impl<'t> Item<'t> {
    /// `node` as plain code.
    fn plain(node: Node<'t>, frame: usize) -> Item<'t> {
        Item {
            role: Role::Code,
            node,
            inner: node,
            wrappers: Vec::new(),
            leading: Vec::new(),
            start: node.start_byte(),
            end: node.end_byte(),
            frame,
        }
    }

    /// A container too deep to open: one symbol holding everything.
    pub(super) fn flatten(self) -> Item<'t> {
        let Role::Container(container) = self.role else {
            return self;
        };
        Item {
            role: Role::Symbol(Symbol {
                kind: container.kind,
                name: container.name,
                qualifier: None,
                scopes: Vec::new(),
                body: container.body,
                label: None,
            }),
            ..self
        }
    }
}

/// What grouping reads (the table, the source) and where it opens the scopes that markers
/// start (`package b;`).
pub(super) struct Grouper<'c, 's> {
    pub(super) spec: &'static Spec,
    pub(super) source: &'s Source<'s>,
    pub(super) scopes: &'c mut Scopes,
}

impl Grouper<'_, '_> {
    /// Classify the children of `parent` and attach leading comments and attributes.
    pub(super) fn group<'t>(
        &mut self,
        parent: Node<'t>,
        frame: usize,
        all_children: bool,
    ) -> Vec<Item<'t>> {
        let mut items: Vec<Item<'t>> = Vec::new();
        let mut leading: Vec<Node<'t>> = Vec::new();
        // A marker's scope runs to the next marker among the same siblings, which replaces
        // it (`package a; ... package b;`) rather than nesting in it.
        let base = frame;
        let mut frame = frame;
        // Asked once: `Node::parent` searches down from the root.
        let at_top = parent.parent().is_none();
        // A conditional's keywords (`if`, `else`, `do`, `then`) lead into nothing: they are
        // code between its definitions.
        let conditional = self.spec.conditionals.contains(&parent.kind());
        let mut cursor = parent.walk();
        let mut more = cursor.goto_first_child();
        while more {
            let child = cursor.node();
            more = cursor.goto_next_sibling();
            if child.start_byte() == child.end_byte() || !(all_children || child.is_named()) {
                continue;
            }
            let attachable = if child.is_named() {
                self.spec.leading.contains(&child.kind())
            } else {
                // Keywords such as `type (` or `#ifdef` lead into what follows; lone
                // punctuation belongs to nothing.
                let text = self.source.slice(child.start_byte(), child.end_byte());
                if !text.bytes().any(|b| b.is_ascii_alphanumeric()) {
                    // Inside a parse error a stray operator (`+` of a method cut short) is
                    // code all the same; so is one the parser left at the top (Swift's `%`).
                    if (parent.is_error() || at_top) && !is_trivial(text, self.spec.comment) {
                        flush_leading(&mut leading, &mut items, frame);
                        items.push(Item::plain(child, frame));
                    }
                    continue;
                }
                if conditional {
                    flush_leading(&mut leading, &mut items, frame);
                    items.push(Item::plain(child, frame));
                    continue;
                }
                true
            };
            if attachable {
                self.lead(child, &mut leading, &mut items, frame);
                continue;
            }
            let (mut role, inner, wrappers) = self.resolve(child, parent, frame);
            if matches!(role, Role::Header) {
                // The header ends where the first member starts: a header part after one
                // (a parse error among the header's parts) would be in no chunk. So would
                // one inside a transparent node (a parse error), which is itself a member.
                let in_transparent = all_children && !at_top;
                if items.is_empty() && !in_transparent {
                    continue;
                }
                role = Role::Code;
            }
            let attach = role.defines()
                && leading
                    .last()
                    .is_some_and(|last| self.adjacent(*last, child));
            if let Role::Marker(marker) = role {
                // The marker and what precedes it open the new scope. Inside a class (Ruby's
                // `class << self`) its members are still the class's, summarised in its chunk.
                frame = self
                    .scopes
                    .push(base, marker.name, marker.label, marker.class_like);
                self.scopes[frame].builder = self.scopes[base].builder;
                flush_leading(&mut leading, &mut items, frame);
                items.push(Item::plain(child, frame));
                continue;
            }
            if !attach {
                flush_leading(&mut leading, &mut items, frame);
            }
            if self.spec.merge_same_name && merge_same_name(&role, &leading, &mut items, child) {
                continue;
            }
            let mut start = leading
                .first()
                .map_or(child.start_byte(), |n| n.start_byte());
            if let Role::Symbol(symbol) = &role {
                start = absorb_overloads(&symbol.name, &mut items, start);
            }
            let docs = match role {
                Role::Symbol(_) if self.spec.trailing_docs => self.trailing_docs(child),
                _ => Vec::new(),
            };
            let item_frame = match role {
                Role::Container(_) if self.spec.absolute_scopes => base,
                _ => frame,
            };
            items.push(Item {
                role,
                node: child,
                inner,
                wrappers,
                leading: std::mem::take(&mut leading),
                start,
                end: docs
                    .first()
                    .map_or(child.end_byte(), |doc| doc.start_byte()),
                frame: item_frame,
            });
            leading = docs;
        }
        flush_leading(&mut leading, &mut items, frame);
        items
    }

    /// A comment, attribute or keyword that leads into what follows; a comment after code on
    /// the same line trails that code instead.
    fn lead<'t>(
        &self,
        child: Node<'t>,
        leading: &mut Vec<Node<'t>>,
        items: &mut Vec<Item<'t>>,
        frame: usize,
    ) {
        if child.is_named() && leading.is_empty() {
            if let Some(last) = items.last_mut() {
                if self.source.last_line_of(last.start, last.end)
                    == self.source.line_of(child.start_byte())
                {
                    last.end = last.end.max(child.end_byte());
                    return;
                }
            }
        }
        if let Some(last) = leading.last() {
            if !self.adjacent(*last, child) {
                flush_leading(leading, items, frame);
            }
        }
        leading.push(child);
    }

    /// The comments a definition ends with, on lines after the rest of it, found down its
    /// last children: they document what follows (`trailing_docs`).
    fn trailing_docs<'t>(&self, node: Node<'t>) -> Vec<Node<'t>> {
        let mut current = node;
        for _ in 0..8 {
            let count = current.named_child_count();
            let Some(last) = count
                .checked_sub(1)
                .and_then(|i| current.named_child(i as u32))
            else {
                return Vec::new();
            };
            if !self.spec.leading.contains(&last.kind()) {
                current = last;
                continue;
            }
            let mut docs = vec![last];
            let mut index = count - 1;
            while let Some(previous) = index
                .checked_sub(1)
                .and_then(|i| current.named_child(i as u32))
            {
                if !self.spec.leading.contains(&previous.kind()) {
                    break;
                }
                docs.push(previous);
                index -= 1;
            }
            docs.reverse();
            let code_end = index
                .checked_sub(1)
                .and_then(|i| current.named_child(i as u32))
                .map_or(current.start_byte(), |code| code.end_byte());
            let first = docs[0];
            // Only comments on lines of their own, below the definition's code.
            if self.source.line_of(first.start_byte())
                > self.source.last_line_of(node.start_byte(), code_end)
            {
                return docs;
            }
            return Vec::new();
        }
        Vec::new()
    }

    /// Whether `next` starts on the line after `previous` ends, or on the same line.
    fn adjacent(&self, previous: Node, next: Node) -> bool {
        let previous_end = self
            .source
            .last_line_of(previous.start_byte(), previous.end_byte());
        self.source.line_of(next.start_byte()) <= previous_end + 1
    }

    /// Classify `node`, looking through wrappers.
    fn resolve<'t>(
        &self,
        node: Node<'t>,
        parent: Node<'t>,
        frame: usize,
    ) -> (Role<'t>, Node<'t>, Vec<Node<'t>>) {
        let (mut role, inner, wrappers) = self.unwrapped(node, parent, frame);
        if matches!(role, Role::Code)
            && self.spec.conditionals.contains(&node.kind())
            && self.holds_definitions(node, frame, CONDITIONAL_DEPTH)
        {
            role = Role::Transparent;
        }
        (role, inner, wrappers)
    }

    /// `node`'s role and the node it stands for, through the wrappers it passes to (a wrapper
    /// of no definition is code).
    fn unwrapped<'t>(
        &self,
        node: Node<'t>,
        parent: Node<'t>,
        frame: usize,
    ) -> (Role<'t>, Node<'t>, Vec<Node<'t>>) {
        let mut role = (self.spec.classify)(
            node,
            self.source,
            self.scopes.context_for(frame, Some(parent)),
        );
        let mut inner = node;
        let mut wrappers = Vec::new();
        for _ in 0..8 {
            let Role::Wrap(next) = role else { break };
            wrappers.push(inner);
            inner = next;
            role = (self.spec.classify)(inner, self.source, self.scopes.context_for(frame, None));
        }
        if !wrappers.is_empty() && !role.defines() {
            role = Role::Code;
        }
        (role, inner, wrappers)
    }

    /// Whether a conditional holds a definition among its children, or in the conditionals
    /// and branch blocks among them, `depth` levels down.
    fn holds_definitions(&self, node: Node, frame: usize, depth: usize) -> bool {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        children.into_iter().any(|child| {
            let (role, _, _) = self.unwrapped(child, node, frame);
            role.defines()
                || (depth > 0
                    && matches!(role, Role::Code | Role::Transparent)
                    && self.spec.conditionals.contains(&child.kind())
                    && self.holds_definitions(child, frame, depth - 1))
        })
    }
}

/// The leading nodes waiting for a definition, as plain code after all.
fn flush_leading<'t>(leading: &mut Vec<Node<'t>>, items: &mut Vec<Item<'t>>, frame: usize) {
    for node in leading.drain(..) {
        items.push(Item::plain(node, frame));
    }
}

/// Whether `child` (of `role`) continues the symbol before it, of the same name with nothing
/// between (Haskell's equations); it is then added to that symbol.
fn merge_same_name<'t>(
    role: &Role<'t>,
    leading: &[Node<'t>],
    items: &mut [Item<'t>],
    child: Node<'t>,
) -> bool {
    if let (Some(last), Role::Symbol(symbol)) = (items.last_mut(), role) {
        if let Role::Symbol(previous) = &last.role {
            if previous.name == symbol.name && leading.is_empty() {
                last.end = child.end_byte();
                return true;
            }
        }
    }
    false
}

/// Where the symbol `name` starting at `start` begins: overload signatures right above an
/// implementation are part of its chunk (taken off `items`).
fn absorb_overloads(name: &str, items: &mut Vec<Item<'_>>, start: usize) -> usize {
    let mut start = start;
    while let Some(Item {
        role: Role::Overload(overloaded),
        start: signature_start,
        ..
    }) = items.last()
    {
        if *overloaded != name {
            break;
        }
        start = *signature_start;
        items.pop();
    }
    start
}
