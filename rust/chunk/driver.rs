//! The walk: the language-independent driver. It takes the items of each node (`group.rs`)
//! off an explicit stack, tracks scopes (`scopes.rs`), assembles class-level chunks
//! (`class.rs`) and collects drafts (symbol, class-level and module chunks) in source order;
//! `render.rs` turns the drafts into chunks.

use tree_sitter::Node;

use super::class::ClassBuilder;
use super::draft::{Body, Draft};
use super::group::{Grouper, Item};
use super::header::{container_label, decorators, signature};
use super::scopes::{join_fqn, Scopes};
use super::spec::{Container, Role, Spec};
use super::text::{is_trivial, Source};
use crate::lang::Language;
use crate::parse::Deadline;

/// Scopes nest at most this deep; a deeper container becomes one symbol.
const MAX_DEPTH: usize = 48;
/// The walk looks at the clock once per this many tasks.
const TASKS_PER_CLOCK_CHECK: usize = 256;

/// The walk stopped at the file's deadline.
#[derive(Debug)]
pub(super) struct OutOfTime;

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

/// A run of module-level code waiting for its chunk.
struct Run {
    frame: usize,
    start: usize,
    end: usize,
    cuts: Vec<usize>,
}

/// The walk over one file's tree, and the drafts it has collected so far.
pub(super) struct Chunker<'s, 't> {
    pub(super) spec: &'static Spec,
    pub(super) source: &'s Source<'s>,
    pub(super) path: &'s str,
    pub(super) language: Language,
    pub(super) max_chars: usize,
    scopes: Scopes,
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
            max_chars: max_chars.max(64),
            scopes: Scopes::new(path),
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

    /// The items of `parent`'s children (`group.rs`).
    fn group(&mut self, parent: Node<'t>, frame: usize, all_children: bool) -> Vec<Item<'t>> {
        Grouper {
            spec: self.spec,
            source: self.source,
            scopes: &mut self.scopes,
        }
        .group(parent, frame, all_children)
    }

    /// Handle one item: look into it, chunk it, open it as a scope, or keep it as code.
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
                if self.scopes[item.frame].depth >= MAX_DEPTH {
                    self.symbol(item.flatten());
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
        if let Some(builder) = self.scopes[frame].builder {
            self.builders[builder].verbatim(self.source, start, end);
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

    /// The pending run of module code becomes a module draft.
    fn flush_run(&mut self) {
        let Some(run) = self.run.take() else { return };
        let fqn = self.scopes[run.frame].fqn.clone();
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

    /// The 1-based line of byte `pos`.
    pub(super) fn line(&self, pos: usize) -> u32 {
        (self.source.line_of(pos) + 1) as u32
    }

    /// The 1-based last line of the span `[start, end)`.
    pub(super) fn last_line(&self, start: usize, end: usize) -> u32 {
        (self.source.last_line_of(start, end) + 1) as u32
    }

    /// A one-line summary of a member for the class chunk of `frame`, if it has one.
    fn summarize(
        &mut self,
        frame: usize,
        decorators: &str,
        signature: (usize, usize),
        elide: bool,
    ) {
        let Some(builder) = self.scopes[frame].builder else {
            return;
        };
        let elision = elide.then_some(self.spec.elision);
        self.builders[builder].summarize(self.source, decorators, signature, elision);
    }

    /// A symbol's draft (a constructor's lines go to its class chunk instead).
    fn symbol(&mut self, item: Item<'t>) {
        let Role::Symbol(symbol) = &item.role else {
            return;
        };
        let frame = item.frame;
        let (start, end) = self.fit(item.start, item.end);
        if start >= end {
            return;
        }
        if self.scopes[frame].class_like && symbol.kind == "constructor" {
            // Constructors live in their class chunk; a class without one (a broken
            // declaration) keeps them as plain code.
            match self.scopes[frame].builder {
                Some(builder) => {
                    self.consumed = end;
                    self.builders[builder].verbatim(self.source, start, end);
                }
                None => self.code(start, end, frame),
            }
            return;
        }
        self.flush_run();
        let (decorators, decorators_end) = decorators(self.spec, self.source, &item);
        let signature = signature(self.source, &item, decorators_end, symbol.body);
        self.summarize(frame, &decorators, signature, symbol.body.is_some());
        let scope = self.scopes.written(frame, &symbol.scopes);
        let mut fqn = self.scopes[scope].fqn.clone();
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

    /// The start of the line where a comment opens `[from, to)`, when only whitespace comes
    /// before it there.
    fn comment_start(&self, from: usize, to: usize) -> Option<usize> {
        let bytes = self.source.bytes();
        let mut at = from;
        while at < to && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let rest = self.source.slice(at, to);
        (at < to && !self.spec.comment.is_empty() && rest.starts_with(self.spec.comment))
            .then(|| self.source.line_start(at))
    }

    /// Open a container's scope: a class gets a class-level draft, a namespace only context;
    /// its members go on the stack.
    fn container(&mut self, item: Item<'t>, stack: &mut Vec<Task<'t>>) {
        let Role::Container(container) = &item.role else {
            return;
        };
        let parent = item.frame;
        let (start, end) = self.fit(item.start, item.end);
        if start >= end {
            return;
        }
        let (decorators, decorators_end) = decorators(self.spec, self.source, &item);
        let label = container_label(container, &decorators);
        let frame = self
            .scopes
            .push(parent, container.name.clone(), label, container.class_like);
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
        let signature = signature(self.source, &item, decorators_end, container.body);
        if container.class_like {
            self.flush_run();
            self.summarize(parent, &decorators, signature, container.body.is_some());
            let fqn = self.scopes[frame].fqn.clone();
            let draft = Draft {
                kind: container.kind,
                symbol: own_name(container),
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
            self.builders.push(ClassBuilder::new(
                self.drafts.len() - 1,
                container.body,
                (start, end),
                header_end,
            ));
            self.scopes[frame].builder = Some(self.builders.len() - 1);
            self.consumed = header_end;
            stack.push(Task::EndClass(self.builders.len() - 1));
        } else {
            // The opening line joins the code just before it, or else the first member,
            // rather than standing alone.
            let pending = self.run.as_ref().is_some_and(|run| run.frame == parent);
            match members.first_mut() {
                Some(first) if !pending => first.start = start,
                Some(first) => {
                    // A comment between the opening line and the first member documents the
                    // member, as if the namespace were not there (Ruby's lie outside the
                    // module's body node): the run takes the opening line alone.
                    let opening_end = self
                        .source
                        .start_of_line(self.source.line_of(start) + 1)
                        .min(header_end);
                    let comment = self.comment_start(opening_end, first.start);
                    let taken = comment.map_or(header_end, |_| opening_end);
                    self.code(start, taken, parent);
                    self.consumed = self.consumed.max(taken);
                    if let Some(comment) = comment {
                        first.start = comment;
                    }
                }
                None => {
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

    /// The walk leaves a class: its chunk's body is complete.
    fn end_class(&mut self, index: usize) {
        let builder = &mut self.builders[index];
        let body = builder.assemble(self.source, self.consumed);
        let (draft, end) = (builder.draft, builder.end);
        self.drafts[draft].body = body;
        self.consumed = self.consumed.max(end);
    }

    /// The context line's scopes (`Scopes::context`).
    fn context(&self, frame: usize, own_label: Option<&str>) -> String {
        self.scopes.context(frame, own_label, self.spec.outer_first)
    }
}

/// The name a class-like container's chunk is found by: a dotted namespace (`namespace
/// Outer.Inner`) or class (C++'s `class Outer::Inner` defined outside `Outer`) by its last
/// segment, its FQN keeps them all. (An `impl` or `instance` keeps its whole label.)
fn own_name(container: &Container) -> String {
    match container.kind {
        "namespace" | "class" | "struct" | "union" => container
            .name
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .to_string(),
        _ => container.name.clone(),
    }
}
