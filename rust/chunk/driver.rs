//! The walk: classify nodes with the language table, attach comments and decorators, track
//! scopes, and collect drafts (symbol, class-level and module chunks) in source order.

use std::path::Path;

use tree_sitter::Node;

use super::spec::{Context, Role, Spec, Symbol};
use super::text::{collapse, is_trivial, Source};
use super::Deadline;
use crate::lang::Language;

/// How deep `holds_definitions` looks through nested conditionals and branch blocks
/// (`if` > `else` > block > `try` > block).
const CONDITIONAL_DEPTH: usize = 6;
/// Scopes nest at most this deep; a deeper container becomes one symbol.
const MAX_DEPTH: usize = 48;
/// The walk looks at the clock once per this many tasks.
const TASKS_PER_CLOCK_CHECK: usize = 256;
/// Context lines name at most this many scopes, innermost first.
const MAX_CONTEXT_SCOPES: usize = 6;
/// Caps on header pieces, in chars.
const MAX_LABEL: usize = 160;
const MAX_DECORATORS: usize = 300;
const MAX_SIGNATURE: usize = 200;

/// The walk stopped at the file's deadline.
#[derive(Debug)]
pub(super) struct OutOfTime;

/// A scope: the file, a namespace, a class.
struct Frame {
    parent: Option<usize>,
    label: String,
    name: String,
    fqn: String,
    class_like: bool,
    depth: usize,
    /// The class builder, for class-like frames.
    builder: Option<usize>,
}

/// One node to handle, with what attaches to it.
struct Item<'t> {
    role: Role<'t>,
    /// The node as it appears among its siblings (the outermost wrapper).
    node: Node<'t>,
    /// The definition inside the wrappers.
    inner: Node<'t>,
    /// Wrappers between `node` and `inner`, `node` first.
    wrappers: Vec<Node<'t>>,
    /// Comments, attributes and decorators written just above.
    leading: Vec<Node<'t>>,
    start: usize,
    end: usize,
    frame: usize,
}

// Items are moved in and out of the stack once each; boxing them would only add allocations.
#[allow(clippy::large_enum_variant)]
enum Task<'t> {
    Item(Item<'t>),
    EndClass(usize),
    Code {
        start: usize,
        end: usize,
        frame: usize,
    },
}

/// Where a chunk's code comes from.
pub(super) enum Body<'t> {
    /// A source range; split at the statements of `body` (symbols) or at `cuts` (modules).
    Range {
        start: usize,
        end: usize,
        body: Option<Node<'t>>,
        cuts: Vec<usize>,
    },
    /// Assembled text (class-level chunks), with the source line of each of its lines.
    Assembled { text: String, lines: Vec<u32> },
    /// A class whose members are still being read.
    Pending,
}

/// A chunk before ids, headers and size limits.
pub(super) struct Draft<'t> {
    pub(super) kind: &'static str,
    pub(super) symbol: String,
    pub(super) fqn: String,
    pub(super) base_id: String,
    pub(super) context: String,
    pub(super) decorators: String,
    /// Byte range of the signature, for part headers.
    pub(super) signature: (usize, usize),
    pub(super) body: Body<'t>,
    pub(super) start_line: u32,
    pub(super) end_line: u32,
    /// Oversized module runs become several chunks rather than parts.
    pub(super) parts: bool,
}

/// A class-level chunk being assembled from its members.
struct ClassBuilder<'t> {
    draft: usize,
    body: Option<Node<'t>>,
    start: usize,
    end: usize,
    header_end: usize,
    members: Vec<Member>,
}

enum Member {
    /// Source lines kept as they are (fields, constructors, comments).
    Verbatim(usize, usize),
    /// One line standing for a method or nested type.
    Summary { line: usize, text: String },
}

/// A run of module-level code waiting for its chunk.
struct Run {
    frame: usize,
    start: usize,
    end: usize,
    cuts: Vec<usize>,
}

pub(super) struct Chunker<'s, 't> {
    pub(super) spec: &'static Spec,
    pub(super) source: &'s Source<'s>,
    pub(super) path: &'s str,
    pub(super) language: Language,
    stem: String,
    pub(super) max_chars: usize,
    frames: Vec<Frame>,
    pub(super) drafts: Vec<Draft<'t>>,
    builders: Vec<ClassBuilder<'t>>,
    run: Option<Run>,
    /// Every byte before this is in a chunk already; code after a symbol starts here.
    consumed: usize,
}

impl<'s, 't> Chunker<'s, 't> {
    pub(super) fn new(
        spec: &'static Spec,
        source: &'s Source<'s>,
        path: &'s str,
        language: Language,
        max_chars: usize,
    ) -> Self {
        Chunker {
            spec,
            source,
            path,
            language,
            stem: module_name(path),
            max_chars: max_chars.max(64),
            frames: vec![Frame {
                parent: None,
                label: String::new(),
                name: String::new(),
                fqn: String::new(),
                class_like: false,
                depth: 0,
                builder: None,
            }],
            drafts: Vec::new(),
            builders: Vec::new(),
            run: None,
            consumed: 0,
        }
    }

    /// Collect the drafts of the tree under `root`; `Err` when `deadline` passes first.
    pub(super) fn walk(&mut self, root: Node<'t>, deadline: Deadline) -> Result<(), OutOfTime> {
        if deadline.passed() {
            return Err(OutOfTime);
        }
        let mut stack: Vec<Task<'t>> = Vec::new();
        let items = self.group(root, 0, true);
        // A root that is a parse error can hold text outside its children, as any ERROR node;
        // and text before the root's first child or after its last one is in no node at all
        // when the grammar skips it as whitespace (a leading `\` line continuation in Ruby
        // or Elixir): the root's gaps run from the file's first byte to its last.
        let whole = (0, self.source.bytes().len());
        stack.extend(self.with_gaps(root, whole, items, 0).into_iter().rev());
        let mut tasks = 0usize;
        while let Some(task) = stack.pop() {
            tasks += 1;
            if tasks.is_multiple_of(TASKS_PER_CLOCK_CHECK) && deadline.passed() {
                return Err(OutOfTime);
            }
            match task {
                Task::Item(item) => self.item(item, &mut stack),
                Task::EndClass(builder) => self.end_class(builder),
                Task::Code { start, end, frame } => self.code(start, end, frame),
            }
        }
        self.flush_run();
        Ok(())
    }

    /// The whole source as module code, no tree: the fallback for a file out of time.
    pub(super) fn plain_lines(&mut self) {
        self.code(0, self.source.text.len(), 0);
        self.flush_run();
    }

    fn context_for(&self, frame: usize, parent: Option<Node<'t>>) -> Context<'_> {
        let frame = &self.frames[frame];
        Context {
            in_class: frame.class_like,
            scope_name: (!frame.name.is_empty()).then_some(frame.name.as_str()),
            parent,
        }
    }

    /// Classify the children of `parent` and attach leading comments and attributes.
    fn group(&mut self, parent: Node<'t>, frame: usize, all_children: bool) -> Vec<Item<'t>> {
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
                        self.flush_leading(&mut leading, &mut items, frame);
                        items.push(self.plain(child, frame));
                    }
                    continue;
                }
                if conditional {
                    self.flush_leading(&mut leading, &mut items, frame);
                    items.push(self.plain(child, frame));
                    continue;
                }
                true
            };
            if attachable {
                // A comment after code on the same line trails that code.
                if child.is_named() && leading.is_empty() {
                    if let Some(last) = items.last_mut() {
                        if self.source.last_line_of(last.start, last.end)
                            == self.source.line_of(child.start_byte())
                        {
                            last.end = last.end.max(child.end_byte());
                            continue;
                        }
                    }
                }
                if let Some(last) = leading.last() {
                    if !self.adjacent(*last, child) {
                        self.flush_leading(&mut leading, &mut items, frame);
                    }
                }
                leading.push(child);
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
                frame = self.push_frame(base, marker.name, marker.label, marker.class_like);
                self.frames[frame].builder = self.frames[base].builder;
                self.flush_leading(&mut leading, &mut items, frame);
                items.push(self.plain(child, frame));
                continue;
            }
            if !attach {
                self.flush_leading(&mut leading, &mut items, frame);
            }
            if self.spec.merge_same_name {
                if let (Some(last), Role::Symbol(symbol)) = (items.last_mut(), &role) {
                    if let Role::Symbol(previous) = &last.role {
                        if previous.name == symbol.name && leading.is_empty() {
                            last.end = child.end_byte();
                            continue;
                        }
                    }
                }
            }
            let mut start = leading
                .first()
                .map_or(child.start_byte(), |n| n.start_byte());
            if let Role::Symbol(symbol) = &role {
                // Overload signatures right above an implementation are part of its chunk.
                while let Some(Item {
                    role: Role::Overload(name),
                    start: signature_start,
                    ..
                }) = items.last()
                {
                    if *name != symbol.name {
                        break;
                    }
                    start = *signature_start;
                    items.pop();
                }
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
        self.flush_leading(&mut leading, &mut items, frame);
        items
    }

    /// The comments a definition ends with, on lines after the rest of it, found down its
    /// last children: they document what follows (`trailing_docs`).
    fn trailing_docs(&self, node: Node<'t>) -> Vec<Node<'t>> {
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

    fn flush_leading(&self, leading: &mut Vec<Node<'t>>, items: &mut Vec<Item<'t>>, frame: usize) {
        for node in leading.drain(..) {
            items.push(self.plain(node, frame));
        }
    }

    fn plain(&self, node: Node<'t>, frame: usize) -> Item<'t> {
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

    /// Classify `node`, looking through wrappers.
    fn resolve(
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
    fn unwrapped(
        &self,
        node: Node<'t>,
        parent: Node<'t>,
        frame: usize,
    ) -> (Role<'t>, Node<'t>, Vec<Node<'t>>) {
        let mut role =
            (self.spec.classify)(node, self.source, self.context_for(frame, Some(parent)));
        let mut inner = node;
        let mut wrappers = Vec::new();
        for _ in 0..8 {
            let Role::Wrap(next) = role else { break };
            wrappers.push(inner);
            inner = next;
            role = (self.spec.classify)(inner, self.source, self.context_for(frame, None));
        }
        if !wrappers.is_empty() && !role.defines() {
            role = Role::Code;
        }
        (role, inner, wrappers)
    }

    /// Whether a conditional holds a definition among its children, or in the conditionals
    /// and branch blocks among them, `depth` levels down.
    fn holds_definitions(&self, node: Node<'t>, frame: usize, depth: usize) -> bool {
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        children.into_iter().any(|child| {
            let (role, _, _) = self.unwrapped(child, node, frame);
            role.defines()
                || (depth > 0
                    && matches!(role, Role::Code | Role::Transparent)
                    && self.spec.conditionals.contains(&child.kind())
                    && self.holds_definitions(child, frame, depth - 1))
        })
    }

    fn push_frame(
        &mut self,
        parent: usize,
        name: String,
        label: String,
        class_like: bool,
    ) -> usize {
        let parent_frame = &self.frames[parent];
        let fqn = join_fqn(&parent_frame.fqn, &name);
        let depth = parent_frame.depth + 1;
        self.frames.push(Frame {
            parent: Some(parent),
            label,
            name,
            fqn,
            class_like,
            depth,
            builder: None,
        });
        self.frames.len() - 1
    }

    fn item(&mut self, item: Item<'t>, stack: &mut Vec<Task<'t>>) {
        match item.role {
            Role::Transparent => {
                // A comment trailing the node on its last line (`group`) follows its
                // children.
                if item.end > item.node.end_byte() {
                    stack.push(Task::Code {
                        start: item.node.end_byte(),
                        end: item.end,
                        frame: item.frame,
                    });
                }
                let items = self.group(item.node, item.frame, true);
                let bounds = (item.node.start_byte(), item.node.end_byte());
                let tasks = self.with_gaps(item.node, bounds, items, item.frame);
                stack.extend(tasks.into_iter().rev());
                // A namespace's opening line handed to this node as its first member.
                if item.start < item.node.start_byte() {
                    stack.push(Task::Code {
                        start: item.start,
                        end: item.node.start_byte(),
                        frame: item.frame,
                    });
                }
            }
            Role::Symbol(_) | Role::Container(_) => {
                if self.frames[item.frame].depth >= MAX_DEPTH {
                    let item = flatten(item);
                    self.symbol(item);
                } else if matches!(item.role, Role::Symbol(_)) {
                    self.symbol(item);
                } else {
                    self.container(item, stack);
                }
            }
            Role::Code | Role::Wrap(_) | Role::Marker(_) | Role::Overload(_) | Role::Header => {
                self.code(item.start, item.end, item.frame);
            }
        }
    }

    /// The items of `node` in order, with code tasks for the text between `bounds` (the
    /// node's own bytes, or more) that no child holds: an ERROR node can start before its
    /// first child, end past its last, or skip text between two.
    fn with_gaps(
        &self,
        node: Node<'t>,
        bounds: (usize, usize),
        items: Vec<Item<'t>>,
        frame: usize,
    ) -> Vec<Task<'t>> {
        let bytes = self.source.bytes();
        let mut tasks = Vec::with_capacity(items.len() + 1);
        let mut items = items.into_iter().peekable();
        let mut frame = frame;
        let mut previous_end = bounds.0;
        let mut cursor = node.walk();
        let ends = node
            .children(&mut cursor)
            .map(|child| (child.start_byte(), child.end_byte()))
            .chain(std::iter::once((bounds.1, bounds.1)));
        for (start, end) in ends {
            if start > previous_end
                && bytes[previous_end..start]
                    .iter()
                    .any(|b| !b.is_ascii_whitespace())
            {
                while let Some(next) = items.next_if(|next| next.start < start) {
                    frame = next.frame;
                    tasks.push(Task::Item(next));
                }
                tasks.push(Task::Code {
                    start: previous_end,
                    end: start,
                    frame,
                });
            }
            previous_end = previous_end.max(end);
        }
        tasks.extend(items.map(Task::Item));
        tasks
    }

    /// Widen a span to whole lines and cut off what earlier chunks already hold.
    fn fit(&self, start: usize, end: usize) -> (usize, usize) {
        let (mut start, end) = self.source.widen(start, end);
        if start < self.consumed {
            let bytes = self.source.bytes();
            start = self.consumed;
            while start < end && bytes[start].is_ascii_whitespace() {
                start += 1;
            }
            if start < end {
                start = self.source.widen(start, end).0.max(self.consumed);
            }
        }
        (start, end)
    }

    /// Plain code: verbatim in its class chunk, or part of a module run. Brackets and closing
    /// keywords on lines of their own are dropped; next to code on the same line they are
    /// that code's (`done` in `bool done;` is a name, whatever it means to Bash).
    fn code(&mut self, start: usize, end: usize, frame: usize) {
        let (start, end) = self.fit(start, end);
        if start >= end {
            return;
        }
        let bytes = self.source.bytes();
        if self.source.slice(start, end).trim().is_empty() {
            return;
        }
        let first = start
            + bytes[start..end]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        let line_start = self.source.line_start(first);
        let line_end = self.source.line_end(end - 1);
        let blank = |range: &[u8]| range.iter().all(|b| b.is_ascii_whitespace());
        if blank(&bytes[line_start..first])
            && blank(&bytes[end.min(line_end)..line_end])
            && is_trivial(self.source.slice(start, end), self.spec.comment)
        {
            return;
        }
        self.consumed = end;
        if let Some(builder) = self.frames[frame].builder {
            self.verbatim(builder, start, end);
            return;
        }
        match &mut self.run {
            Some(run) if run.frame == frame => {
                run.cuts.push(start - run.start);
                run.end = end;
            }
            _ => {
                self.flush_run();
                self.run = Some(Run {
                    frame,
                    start,
                    end,
                    cuts: Vec::new(),
                });
            }
        }
    }

    /// Keep source lines in a class chunk; members sharing a line stay one piece.
    fn verbatim(&mut self, builder: usize, start: usize, end: usize) {
        let members = &mut self.builders[builder].members;
        if let Some(Member::Verbatim(_, previous_end)) = members.last_mut() {
            if self.source.line_of(*previous_end) == self.source.line_of(start) {
                *previous_end = end;
                return;
            }
        }
        members.push(Member::Verbatim(start, end));
    }

    fn flush_run(&mut self) {
        let Some(run) = self.run.take() else { return };
        let fqn = self.frames[run.frame].fqn.clone();
        let base_id = if fqn.is_empty() {
            format!("{}::<module>", self.path)
        } else {
            format!("{}::{fqn}::<module>", self.path)
        };
        let context = self.context(run.frame, None);
        let draft = Draft {
            kind: "module",
            symbol: String::new(),
            fqn,
            base_id,
            context,
            decorators: String::new(),
            signature: (run.start, run.start),
            start_line: self.line(run.start),
            end_line: self.last_line(run.start, run.end),
            body: Body::Range {
                start: run.start,
                end: run.end,
                body: None,
                cuts: run.cuts,
            },
            parts: false,
        };
        self.drafts.push(draft);
    }

    pub(super) fn line(&self, pos: usize) -> u32 {
        (self.source.line_of(pos) + 1) as u32
    }

    pub(super) fn last_line(&self, start: usize, end: usize) -> u32 {
        (self.source.last_line_of(start, end) + 1) as u32
    }

    /// The decorators of an item, as written, and the byte where they end.
    fn decorators(&self, item: &Item<'t>) -> (String, usize) {
        let spec = self.spec;
        let mut texts: Vec<String> = Vec::new();
        let mut end = 0;
        let mut take = |node: Node, texts: &mut Vec<String>| {
            texts.push(collapse(
                self.source.slice(node.start_byte(), node.end_byte()),
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
    fn signature(
        &self,
        item: &Item<'t>,
        decorators_end: usize,
        body: Option<Node<'t>>,
    ) -> (usize, usize) {
        let bytes = self.source.bytes();
        let mut start = item.node.start_byte().max(decorators_end);
        while start < bytes.len() && bytes[start].is_ascii_whitespace() {
            start += 1;
        }
        let mut end = match body {
            Some(body) if body.start_byte() > start => body.start_byte(),
            _ => self.source.line_end(start).min(item.end).max(start),
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

    pub(super) fn signature_text(&self, range: (usize, usize)) -> String {
        collapse(self.source.slice(range.0, range.1), MAX_SIGNATURE)
    }

    /// A one-line summary for a class chunk: decorators, signature, elided body.
    fn summarize(
        &mut self,
        frame: usize,
        decorators: &str,
        signature: (usize, usize),
        elide: bool,
    ) {
        let Some(builder) = self.frames[frame].builder else {
            return;
        };
        let mut text = self.source.indent_at(signature.0).to_string();
        if !decorators.is_empty() {
            text.push_str(decorators);
            text.push(' ');
        }
        text.push_str(&self.signature_text(signature));
        if elide {
            text.push(' ');
            text.push_str(self.spec.elision);
        }
        let line = self.source.line_of(signature.0);
        self.builders[builder]
            .members
            .push(Member::Summary { line, text });
    }

    fn symbol(&mut self, item: Item<'t>) {
        let Role::Symbol(symbol) = &item.role else {
            return;
        };
        let frame = item.frame;
        let (start, end) = self.fit(item.start, item.end);
        if start >= end {
            return;
        }
        if self.frames[frame].class_like && symbol.kind == "constructor" {
            // Constructors live in their class chunk; a class without one (a broken
            // declaration) keeps them as plain code.
            match self.frames[frame].builder {
                Some(builder) => {
                    self.consumed = end;
                    self.verbatim(builder, start, end);
                }
                None => self.code(start, end, frame),
            }
            return;
        }
        self.flush_run();
        let (decorators, decorators_end) = self.decorators(&item);
        let signature = self.signature(&item, decorators_end, symbol.body);
        self.summarize(frame, &decorators, signature, symbol.body.is_some());
        let scope = self.written_scopes(frame, &symbol.scopes);
        let mut fqn = self.frames[scope].fqn.clone();
        if let Some(qualifier) = &symbol.qualifier {
            fqn = join_fqn(&fqn, qualifier);
        }
        let fqn = join_fqn(&fqn, &symbol.name);
        let draft = Draft {
            kind: symbol.kind,
            symbol: symbol.name.clone(),
            base_id: format!("{}::{fqn}", self.path),
            fqn,
            context: self.context(scope, symbol.label.as_deref()),
            decorators,
            signature,
            start_line: self.line(start),
            end_line: self.last_line(start, end),
            body: Body::Range {
                start,
                end,
                body: symbol.body,
                cuts: Vec::new(),
            },
            parts: true,
        };
        self.drafts.push(draft);
        self.consumed = end;
    }

    /// The frame for scopes written into a symbol's name, below `frame`: the frame of a
    /// scope this file declares (`class Circle { ... }` above `Circle::area`), or a new one
    /// that serves only for context and FQN.
    fn written_scopes(&mut self, frame: usize, scopes: &[(&'static str, String)]) -> usize {
        let mut current = frame;
        for (keyword, name) in scopes {
            let declared = self
                .frames
                .iter()
                .rposition(|known| known.parent == Some(current) && known.name == *name);
            current = match declared {
                Some(declared) => declared,
                None => self.push_frame(current, name.clone(), format!("{keyword} {name}"), false),
            };
        }
        current
    }

    fn container(&mut self, item: Item<'t>, stack: &mut Vec<Task<'t>>) {
        let Role::Container(container) = &item.role else {
            return;
        };
        let parent = item.frame;
        let (start, end) = self.fit(item.start, item.end);
        if start >= end {
            return;
        }
        let (decorators, decorators_end) = self.decorators(&item);
        let mut label = match &container.label {
            Some(label) => label.clone(),
            None if container.name.is_empty() => container.keyword.to_string(),
            None => format!("{} {}", container.keyword, container.name),
        };
        if container.class_like && !decorators.is_empty() {
            label.push(' ');
            label.push_str(&decorators);
        }
        let label = collapse(&label, MAX_LABEL);
        let frame = self.push_frame(parent, container.name.clone(), label, container.class_like);
        let mut members = match container.body {
            Some(body) => self.group(body, frame, false),
            None => Vec::new(),
        };
        // The header ends where the first member starts: at the start of its line when only
        // blanks precede it there (`widen`), else right before it (`class U>x` cut by a
        // parse error keeps `class U>`).
        let header_end = match members.first() {
            Some(first) => self.source.widen(first.start, first.end).0,
            None => end,
        }
        .clamp(start, end);
        let signature = self.signature(&item, decorators_end, container.body);
        if container.class_like {
            self.flush_run();
            self.summarize(parent, &decorators, signature, container.body.is_some());
            let fqn = self.frames[frame].fqn.clone();
            let draft = Draft {
                kind: container.kind,
                symbol: container.name.clone(),
                base_id: format!(
                    "{}::{fqn}::{}",
                    self.path,
                    if container.kind == "object" {
                        "object"
                    } else {
                        "class"
                    }
                ),
                fqn,
                context: self.context(frame, None),
                decorators: String::new(),
                signature,
                start_line: self.line(start),
                end_line: self.last_line(start, end),
                body: Body::Pending,
                parts: true,
            };
            self.drafts.push(draft);
            self.builders.push(ClassBuilder {
                draft: self.drafts.len() - 1,
                body: container.body,
                start,
                end,
                header_end,
                members: Vec::new(),
            });
            self.frames[frame].builder = Some(self.builders.len() - 1);
            self.consumed = header_end;
            stack.push(Task::EndClass(self.builders.len() - 1));
        } else {
            // The opening line joins the code just before it, or else the first member,
            // rather than standing alone.
            let pending = self.run.as_ref().is_some_and(|run| run.frame == parent);
            match members.first_mut() {
                Some(first) if !pending => first.start = start,
                _ => {
                    self.code(start, header_end, parent);
                    self.consumed = self.consumed.max(header_end);
                }
            }
            stack.push(Task::Code {
                start: members.last().map_or(header_end, |last| last.end),
                end,
                frame,
            });
        }
        // Text in the body that no member holds (a macro blanked for the parse, `c_reparse`,
        // after a declaration that lost its `;`) is code, as at the top level.
        let tasks = match container.body {
            Some(body) => {
                let bounds = (body.start_byte(), body.end_byte());
                self.with_gaps(body, bounds, members, frame)
            }
            None => members.into_iter().map(Task::Item).collect(),
        };
        stack.extend(tasks.into_iter().rev());
    }

    fn end_class(&mut self, index: usize) {
        let builder = &mut self.builders[index];
        let members = std::mem::take(&mut builder.members);
        let (start, end, header_end) = (builder.start, builder.end, builder.header_end);
        let draft = builder.draft;
        let source = self.source;
        if !members.iter().any(|m| matches!(m, Member::Summary { .. })) {
            // Nothing elided: the class chunk is the source as written.
            self.drafts[draft].body = Body::Range {
                start,
                end,
                body: builder.body,
                cuts: Vec::new(),
            };
            self.consumed = self.consumed.max(end);
            return;
        }
        let mut text = String::new();
        let mut lines: Vec<u32> = Vec::new();
        let mut add = |piece: &str, first_line: usize, text: &mut String| {
            let piece = piece.trim_end_matches(['\n', ' ', '\t']);
            if piece.trim().is_empty() {
                return;
            }
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(piece);
            let count = memchr::memchr_iter(b'\n', piece.as_bytes()).count() + 1;
            lines.extend((0..count).map(|k| (first_line + k + 1) as u32));
        };
        add(
            source.slice(start, header_end),
            source.line_of(start),
            &mut text,
        );
        for member in &members {
            match member {
                Member::Verbatim(a, b) => add(source.slice(*a, *b), source.line_of(*a), &mut text),
                Member::Summary {
                    line,
                    text: summary,
                } => add(summary, *line, &mut text),
            }
        }
        let tail_start = self.consumed.max(header_end);
        if tail_start < end {
            let tail = source.slice(tail_start, end);
            let skipped = tail.len() - tail.trim_start().len();
            let (tail_start, _) = source.widen(tail_start + skipped, end);
            add(
                source.slice(tail_start, end),
                source.line_of(tail_start),
                &mut text,
            );
        }
        self.drafts[draft].body = Body::Assembled { text, lines };
        self.consumed = self.consumed.max(end);
    }

    /// The context line's scopes: innermost first (outermost first for `outer_first`).
    fn context(&self, frame: usize, own_label: Option<&str>) -> String {
        let mut labels: Vec<&str> = Vec::new();
        let mut current = Some(frame);
        let mut truncated = false;
        while let Some(index) = current {
            let frame = &self.frames[index];
            if !frame.label.is_empty() {
                if labels.len() == MAX_CONTEXT_SCOPES {
                    truncated = true;
                    break;
                }
                labels.push(&frame.label);
            }
            current = frame.parent;
        }
        if self.spec.outer_first {
            labels.reverse();
            labels.extend(own_label);
        }
        if labels.is_empty() {
            return format!("module {}", self.stem);
        }
        let mut context = labels.join(" > ");
        if truncated {
            context.push_str(" > …");
        }
        context
    }
}

/// A container too deep to open: one symbol holding everything.
fn flatten(item: Item<'_>) -> Item<'_> {
    let Role::Container(container) = item.role else {
        return item;
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
        ..item
    }
}

fn join_fqn(scope: &str, name: &str) -> String {
    match (scope.is_empty(), name.is_empty()) {
        (_, true) => scope.to_string(),
        (true, false) => name.to_string(),
        (false, false) => format!("{scope}.{name}"),
    }
}

/// The module a file stands for: its stem, or its directory for `__init__`, `mod`, `index`.
pub(super) fn module_name(path: &str) -> String {
    let path = Path::new(path);
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    if matches!(stem.as_str(), "__init__" | "mod" | "index" | "lib") {
        if let Some(directory) = path.parent().and_then(|p| p.file_name()) {
            return directory.to_string_lossy().into_owned();
        }
    }
    stem
}
