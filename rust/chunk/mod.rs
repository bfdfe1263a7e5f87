//! Tree-sitter chunking: one chunk per symbol, with a context header, a stable id and a
//! size limit. One driver serves every language; each language file is a table that says
//! what its syntax nodes are (`spec.rs`).
//!
//! What a file becomes:
//!
//! - **Symbol chunks** — functions, methods, named arrow functions, function-valued property
//!   assignments, standalone types (struct, enum, interface, type alias) and macros. A
//!   symbol's doc comments, decorators and attributes written right above it belong to it.
//!   Nested functions stay inside their enclosing symbol.
//! - **Class-level chunks** — one per class-like container (class, interface, trait, impl,
//!   object, Ruby/Elixir module, ...): the signature with decorators, the fields, the
//!   constructor in full and a one-line summary per method (`signature { ... }`). Its id is
//!   `"{path}::{fqn}::class"`, its line range the whole container. Constructors are not
//!   chunked on their own; every other method is.
//! - **Module chunks** — everything else (imports, constants, statements between symbols,
//!   loose code in namespaces) in runs of consecutive code, kind `"module"`, id
//!   `"{path}::<module>"` (or `"{path}::{namespace}::<module>"`). Runs holding only
//!   brackets or closing keywords (`}`, `end`, `#endif`) are dropped: every other non-blank
//!   line of the file lies in at least one chunk.
//!
//! **Header.** Each chunk's `text` is `header + code`. The header is written in the
//! language's line-comment syntax:
//!
//! ```text
//! // Context: class UserController @Controller("/users") > namespace api (src/user.ts)
//! // @Get("/:id") @Auth
//! ```
//!
//! The first line names the enclosing scopes, innermost first, each with its own decorators,
//! then the path. A class-level chunk names its own class first. A symbol with no enclosing
//! scope gets `module <file stem>` (the parent directory for `__init__`, `mod`, `index`).
//! Go reads outermost first and names the symbol, as its package is the scope:
//! `// Context: package auth > func Authenticate (auth/handler.go)`, with methods as
//! `method (s *Server) Handle` and types as `type Server`. The optional second line lists the
//! symbol's own decorators, annotations or attributes as written (`@x`, `[X]`, `#[x]`).
//!
//! **Ids** are `"{path}::{fqn}"` with the FQN the scope names joined by `.`
//! (`AuthService.authenticate`; Go adds the package: `auth.Server.Handle`; Rust trait impls
//! add the trait: `Wrapper.Display.fmt`). Same-id symbols (overloads, redefinitions) get
//! `#2`, `#3` in source order.
//!
//! **Size.** A chunk whose text exceeds `max_chars` is cut into parts, at the top-level
//! statements of its body first, then at lines, then (for lines longer than the budget) at
//! char boundaries. Each part repeats the header plus a `{signature} (part k/n)` line; parts
//! after the first get ids ending `#part2`, `#part3`, ... and their own line ranges. Module
//! runs are cut into several module chunks instead.
//!
//! **Robustness.** Sources are read lossily, the BOM is dropped and CRLF becomes LF (line
//! numbers are unchanged). Tree-sitter recovers from syntax errors; their lines are reported
//! in `syntax_errors`. The tree is walked with explicit stacks, and scopes nest at most
//! `MAX_DEPTH` deep (deeper containers become one symbol), so hostile inputs cannot
//! overflow the stack.

mod bash;
mod c_family;
mod csharp;
mod ecmascript;
mod elixir;
mod go;
mod haskell;
mod jvm;
mod lua;
mod php;
mod python;
mod ruby;
mod rust_lang;
mod spec;
mod split;
mod swift;
mod text;
mod zig;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;
use tree_sitter::{Node, Parser, Tree};

use crate::lang::Language;
use spec::{Context, Role, Spec, Symbol};
use text::{char_len, collapse, dedent, is_trivial, Source};

/// How big chunks may get.
#[derive(Clone, Debug)]
pub struct ChunkOptions {
    /// Most chars in a chunk's `text` (header + code).
    pub max_chars: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions { max_chars: 3500 }
    }
}

/// One chunk: a symbol, a class-level summary, or a run of module-level code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Stable: `"{path}::{fqn}"`, `"{path}::{fqn}::class"`, `"{path}::<module>"`; `#2` for
    /// same-id siblings, `#part2` for the parts of a split symbol.
    pub id: String,
    /// The file's path as given.
    pub path: String,
    pub language: Language,
    /// "function", "method", "class", "interface", "struct", "enum", "trait", "impl",
    /// "module", "type", ...
    pub kind: &'static str,
    /// Short name; empty for module-level code.
    pub symbol: String,
    /// Scope names and the symbol, joined with `.`.
    pub fqn: String,
    /// First line of the code, 1-based.
    pub start_line: u32,
    /// Last line of the code, 1-based, inclusive.
    pub end_line: u32,
    /// Context lines in the language's comment syntax, each ending in `\n`.
    pub header: String,
    /// The source of the chunk (dedented; a class-level chunk elides method bodies).
    pub code: String,
    /// `header + code`: what gets embedded.
    pub text: String,
}

/// The chunks of one file, and what went wrong while reading or parsing it.
#[derive(Clone, Debug)]
pub struct FileChunks {
    pub path: String,
    pub language: Language,
    /// xxh3-128 of the raw bytes, as 32 hex digits.
    pub content_hash: String,
    pub chunks: Vec<Chunk>,
    /// `"line 12: syntax error near `...`"`; the chunks are still produced.
    pub syntax_errors: Vec<String>,
    /// Why the file could not be chunked at all (unreadable).
    pub error: Option<String>,
}

/// Whether `language` has a grammar here. Other languages get no chunks from this module.
pub fn supports(language: Language) -> bool {
    spec_for(language).is_some()
}

/// Chunk in-memory `source` as if it were the file at `path`.
pub fn chunk_source(
    path: &str,
    language: Language,
    source: &str,
    options: &ChunkOptions,
) -> FileChunks {
    let content_hash = hash(source.as_bytes());
    chunk_text(path, language, source, content_hash, options)
}

/// Read `root/path` (lossy UTF-8, BOM and CRLF tolerated) and chunk it.
pub fn chunk_file(
    root: &Path,
    path: &str,
    language: Language,
    options: &ChunkOptions,
) -> FileChunks {
    match std::fs::read(root.join(path)) {
        Ok(bytes) => {
            let content_hash = hash(&bytes);
            let text = String::from_utf8_lossy(&bytes);
            chunk_text(path, language, &text, content_hash, options)
        }
        Err(error) => FileChunks {
            path: path.to_string(),
            language,
            content_hash: String::new(),
            chunks: Vec::new(),
            syntax_errors: Vec::new(),
            error: Some(format!("cannot read: {error}")),
        },
    }
}

/// Chunk many files in parallel; the result is in input order.
pub fn chunk_files(
    root: &Path,
    files: &[(String, Language)],
    options: &ChunkOptions,
) -> Vec<FileChunks> {
    files
        .par_iter()
        .map(|(path, language)| chunk_file(root, path, *language, options))
        .collect()
}

fn hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

fn spec_for(language: Language) -> Option<&'static Spec> {
    Some(match language {
        Language::Python => &python::SPEC,
        Language::JavaScript | Language::TypeScript | Language::Tsx => &ecmascript::SPEC,
        Language::Go => &go::SPEC,
        Language::Rust => &rust_lang::SPEC,
        Language::Java => &jvm::JAVA,
        Language::Kotlin => &jvm::KOTLIN,
        Language::Scala => &jvm::SCALA,
        Language::CSharp => &csharp::SPEC,
        Language::C | Language::Cpp => &c_family::SPEC,
        Language::Ruby => &ruby::SPEC,
        Language::Php => &php::SPEC,
        Language::Swift => &swift::SPEC,
        Language::Lua => &lua::SPEC,
        Language::Elixir => &elixir::SPEC,
        Language::Haskell => &haskell::SPEC,
        Language::Bash => &bash::SPEC,
        Language::Zig => &zig::SPEC,
        _ => return None,
    })
}

fn grammar(language: Language) -> Option<tree_sitter::Language> {
    let function = match language {
        Language::Python => tree_sitter_python::LANGUAGE,
        Language::JavaScript => tree_sitter_javascript::LANGUAGE,
        Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX,
        Language::Go => tree_sitter_go::LANGUAGE,
        Language::Rust => tree_sitter_rust::LANGUAGE,
        Language::Java => tree_sitter_java::LANGUAGE,
        Language::CSharp => tree_sitter_c_sharp::LANGUAGE,
        Language::C => tree_sitter_c::LANGUAGE,
        Language::Cpp => tree_sitter_cpp::LANGUAGE,
        Language::Scala => tree_sitter_scala::LANGUAGE,
        Language::Ruby => tree_sitter_ruby::LANGUAGE,
        Language::Php => tree_sitter_php::LANGUAGE_PHP,
        Language::Kotlin => tree_sitter_kotlin_ng::LANGUAGE,
        Language::Swift => tree_sitter_swift::LANGUAGE,
        Language::Lua => tree_sitter_lua::LANGUAGE,
        Language::Elixir => tree_sitter_elixir::LANGUAGE,
        Language::Haskell => tree_sitter_haskell::LANGUAGE,
        Language::Bash => tree_sitter_bash::LANGUAGE,
        Language::Zig => tree_sitter_zig::LANGUAGE,
        _ => return None,
    };
    Some(function.into())
}

thread_local! {
    /// One parser per language per thread: creating one costs more than parsing a small file.
    static PARSERS: RefCell<Vec<(Language, Parser)>> = const { RefCell::new(Vec::new()) };
}

fn parse(language: Language, text: &str) -> Result<Tree, String> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let index = match parsers.iter().position(|(known, _)| *known == language) {
            Some(index) => index,
            None => {
                let grammar = grammar(language).ok_or("no grammar")?;
                let mut parser = Parser::new();
                parser
                    .set_language(&grammar)
                    .map_err(|error| format!("grammar failed to load: {error}"))?;
                parsers.push((language, parser));
                parsers.len() - 1
            }
        };
        let parser = &mut parsers[index].1;
        let tree = parser.parse(text, None);
        if tree.is_none() {
            parser.reset();
        }
        tree.ok_or_else(|| "tree-sitter could not parse the file".to_string())
    })
}

/// Drop a BOM and turn CRLF into LF; line numbers stay the same.
fn normalize(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if memchr::memchr(b'\r', text.as_bytes()).is_some() {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

fn chunk_text(
    path: &str,
    language: Language,
    raw: &str,
    content_hash: String,
    options: &ChunkOptions,
) -> FileChunks {
    let mut result = FileChunks {
        path: path.to_string(),
        language,
        content_hash,
        chunks: Vec::new(),
        syntax_errors: Vec::new(),
        error: None,
    };
    let Some(spec) = spec_for(language) else {
        return result;
    };
    let text = normalize(raw);
    if text.trim().is_empty() {
        return result;
    }
    let tree = match parse(language, &text) {
        Ok(tree) => tree,
        Err(error) => {
            result.error = Some(error);
            return result;
        }
    };
    let source = Source::new(&text);
    let root = tree.root_node();
    if root.has_error() {
        result.syntax_errors = syntax_errors(root, &source);
    }
    let mut chunker = Chunker::new(spec, &source, path, language, options.max_chars);
    chunker.walk(root);
    result.chunks = chunker.finish();
    result
}

/// At most this many syntax errors are reported per file.
const MAX_ERRORS: usize = 20;

/// ERROR and MISSING nodes, found by descending only into subtrees that hold errors.
fn syntax_errors(root: Node, source: &Source) -> Vec<String> {
    let mut errors = Vec::new();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let descend = if node.is_error() || node.is_missing() {
            let line = source.line_of(node.start_byte()) + 1;
            errors.push(if node.is_missing() {
                format!("line {line}: missing `{}`", node.kind())
            } else {
                let near = collapse(source.slice(node.start_byte(), node.end_byte()), 40);
                format!("line {line}: syntax error near `{near}`")
            });
            if errors.len() >= MAX_ERRORS {
                break;
            }
            false
        } else {
            node.has_error()
        };
        if descend && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    errors
}

/// Scopes nest at most this deep; a deeper container becomes one symbol.
const MAX_DEPTH: usize = 48;
/// Context lines name at most this many scopes, innermost first.
const MAX_CONTEXT_SCOPES: usize = 6;
/// Caps on header pieces, in chars.
const MAX_LABEL: usize = 160;
const MAX_DECORATORS: usize = 300;
const MAX_SIGNATURE: usize = 200;

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
enum Body<'t> {
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
struct Draft<'t> {
    kind: &'static str,
    symbol: String,
    fqn: String,
    base_id: String,
    context: String,
    decorators: String,
    /// Byte range of the signature, for part headers.
    signature: (usize, usize),
    body: Body<'t>,
    start_line: u32,
    end_line: u32,
    /// Oversized module runs become several chunks rather than parts.
    parts: bool,
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

struct Chunker<'s, 't> {
    spec: &'static Spec,
    source: &'s Source<'s>,
    path: &'s str,
    language: Language,
    stem: String,
    max_chars: usize,
    frames: Vec<Frame>,
    drafts: Vec<Draft<'t>>,
    builders: Vec<ClassBuilder<'t>>,
    run: Option<Run>,
    /// Every byte before this is in a chunk already; code after a symbol starts here.
    consumed: usize,
}

impl<'s, 't> Chunker<'s, 't> {
    fn new(
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

    fn walk(&mut self, root: Node<'t>) {
        let mut stack: Vec<Task<'t>> = Vec::new();
        let items = self.group(root, 0, true);
        stack.extend(items.into_iter().rev().map(Task::Item));
        while let Some(task) = stack.pop() {
            match task {
                Task::Item(item) => self.item(item, &mut stack),
                Task::EndClass(builder) => self.end_class(builder),
                Task::Code { start, end, frame } => self.code(start, end, frame),
            }
        }
        self.flush_run();
    }

    fn context_for(&self, frame: usize) -> Context<'_> {
        let frame = &self.frames[frame];
        Context {
            in_class: frame.class_like,
            scope_name: (!frame.name.is_empty()).then_some(frame.name.as_str()),
        }
    }

    /// Classify the children of `parent` and attach leading comments and attributes.
    fn group(&mut self, parent: Node<'t>, frame: usize, all_children: bool) -> Vec<Item<'t>> {
        let mut items: Vec<Item<'t>> = Vec::new();
        let mut leading: Vec<Node<'t>> = Vec::new();
        let mut frame = frame;
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
            let (role, inner, wrappers) = self.resolve(child, frame);
            let defines = matches!(role, Role::Symbol(_) | Role::Container(_));
            let attach = defines
                && leading
                    .last()
                    .is_some_and(|last| self.adjacent(*last, child));
            if let Role::Marker(marker) = role {
                // The marker and what precedes it open the new scope.
                frame = self.push_frame(frame, marker.name, marker.label, false);
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
            let start = leading
                .first()
                .map_or(child.start_byte(), |n| n.start_byte());
            items.push(Item {
                role,
                node: child,
                inner,
                wrappers,
                leading: std::mem::take(&mut leading),
                start,
                end: child.end_byte(),
                frame,
            });
        }
        self.flush_leading(&mut leading, &mut items, frame);
        items
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
    fn resolve(&self, node: Node<'t>, frame: usize) -> (Role<'t>, Node<'t>, Vec<Node<'t>>) {
        let context = self.context_for(frame);
        let mut role = (self.spec.classify)(node, self.source, context);
        let mut inner = node;
        let mut wrappers = Vec::new();
        for _ in 0..8 {
            let Role::Wrap(next) = role else { break };
            wrappers.push(inner);
            inner = next;
            role = (self.spec.classify)(inner, self.source, context);
        }
        if !wrappers.is_empty() && !matches!(role, Role::Symbol(_) | Role::Container(_)) {
            role = Role::Code;
        }
        (role, inner, wrappers)
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
                let items = self.group(item.node, item.frame, true);
                stack.extend(items.into_iter().rev().map(Task::Item));
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
            Role::Code | Role::Wrap(_) | Role::Marker(_) => {
                self.code(item.start, item.end, item.frame);
            }
        }
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

    /// Plain code: verbatim in its class chunk, or part of a module run.
    fn code(&mut self, start: usize, end: usize, frame: usize) {
        let (start, end) = self.fit(start, end);
        if start >= end || is_trivial(self.source.slice(start, end), self.spec.comment) {
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

    fn line(&self, pos: usize) -> u32 {
        (self.source.line_of(pos) + 1) as u32
    }

    fn last_line(&self, start: usize, end: usize) -> u32 {
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
        let end = match body {
            Some(body) if body.start_byte() > start => body.start_byte(),
            _ => self.source.line_end(start).min(item.end).max(start),
        };
        (start, end)
    }

    fn signature_text(&self, range: (usize, usize)) -> String {
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
            self.consumed = end;
            if let Some(builder) = self.frames[frame].builder {
                self.verbatim(builder, start, end);
            }
            return;
        }
        self.flush_run();
        let (decorators, decorators_end) = self.decorators(&item);
        let signature = self.signature(&item, decorators_end, symbol.body);
        self.summarize(frame, &decorators, signature, symbol.body.is_some());
        let mut fqn = self.frames[frame].fqn.clone();
        if let Some(qualifier) = &symbol.qualifier {
            fqn = join_fqn(&fqn, qualifier);
        }
        let fqn = join_fqn(&fqn, &symbol.name);
        let draft = Draft {
            kind: symbol.kind,
            symbol: symbol.name.clone(),
            base_id: format!("{}::{fqn}", self.path),
            fqn,
            context: self.context(frame, symbol.label.as_deref()),
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
        let members = match container.body {
            Some(body) => self.group(body, frame, false),
            None => Vec::new(),
        };
        let header_end = match members.first() {
            Some(first) => {
                let first_start = self.source.widen(first.start, first.end).0;
                if self.source.line_of(first_start) > self.source.line_of(start) {
                    self.source.line_start(first_start)
                } else {
                    first_start
                }
            }
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
            self.code(start, header_end, parent);
            self.consumed = self.consumed.max(header_end);
            stack.push(Task::Code {
                start: members.last().map_or(header_end, |last| last.end),
                end,
                frame,
            });
        }
        stack.extend(members.into_iter().rev().map(Task::Item));
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

    /// Render the drafts: headers, size limits, ids.
    fn finish(self) -> Vec<Chunk> {
        let mut seen: HashMap<String, u32> = HashMap::new();
        let mut chunks = Vec::with_capacity(self.drafts.len());
        let mut pieces = Vec::new();
        for draft in &self.drafts {
            pieces.clear();
            self.render(draft, &mut pieces);
            let mut id = String::new();
            for (k, mut chunk) in pieces.drain(..).enumerate() {
                // The parts of one symbol share its id; module runs cut for size are
                // numbered like any same-id siblings.
                if k == 0 || !draft.parts {
                    let count = seen.entry(draft.base_id.clone()).or_insert(0);
                    *count += 1;
                    id = if *count == 1 {
                        draft.base_id.clone()
                    } else {
                        format!("{}#{count}", draft.base_id)
                    };
                    chunk.id = id.clone();
                } else {
                    chunk.id = format!("{id}#part{}", k + 1);
                }
                chunks.push(chunk);
            }
        }
        chunks
    }

    fn render(&self, draft: &Draft<'t>, out: &mut Vec<Chunk>) {
        let comment = self.spec.comment;
        let mut header = format!("{comment} Context: {} ({})\n", draft.context, self.path);
        if !draft.decorators.is_empty() {
            header.push_str(&format!("{comment} {}\n", draft.decorators));
        }
        let (text, start) = match &draft.body {
            Body::Range { start, end, .. } => (self.source.slice(*start, *end), *start),
            Body::Assembled { text, .. } => (text.as_str(), 0),
            Body::Pending => return,
        };
        let width = text
            .bytes()
            .take_while(|b| *b == b' ' || *b == b'\t')
            .count();
        let indent = &text[..width];
        let code = dedent(text, indent);
        if char_len(&header) + char_len(&code) <= self.max_chars {
            let code = code.into_owned();
            out.push(self.chunk(draft, header, code, draft.start_line, draft.end_line));
            return;
        }
        let signature = self.signature_text(draft.signature);
        let part_line = if draft.parts {
            char_len(comment) + char_len(&signature) + 24
        } else {
            0
        };
        let budget = self
            .max_chars
            .saturating_sub(char_len(&header) + part_line)
            .max(self.max_chars / 4);
        let cuts = self.cuts(draft);
        let parts = split::pack(text, &cuts, budget, budget);
        let total = parts.len();
        let local_lines = match &draft.body {
            Body::Assembled { text, lines } => Some((Source::new(text), lines)),
            _ => None,
        };
        for (k, (a, b)) in parts.into_iter().enumerate() {
            let (first, last) = match &local_lines {
                Some((local, lines)) => {
                    let first = lines[local.line_of(a).min(lines.len() - 1)];
                    let last = lines[local.last_line_of(a, b).min(lines.len() - 1)];
                    (first, last.max(first))
                }
                None => (self.line(start + a), self.last_line(start + a, start + b)),
            };
            let code = dedent(&text[a..b], indent).into_owned();
            let header = if draft.parts && total > 1 {
                format!("{header}{comment} {signature} (part {}/{total})\n", k + 1)
            } else {
                header.clone()
            };
            out.push(self.chunk(draft, header, code, first, last));
        }
    }

    /// Preferred cut points, relative to the chunk text: statements, members, module items.
    fn cuts(&self, draft: &Draft<'t>) -> Vec<usize> {
        match &draft.body {
            Body::Range {
                cuts, body: None, ..
            } => cuts.clone(),
            Body::Range {
                start,
                end,
                body: Some(body),
                ..
            } => statement_cuts(*body, self.source, *start, *end),
            Body::Assembled { text, .. } => memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i + 1)
                .collect(),
            Body::Pending => Vec::new(),
        }
    }

    fn chunk(
        &self,
        draft: &Draft<'t>,
        header: String,
        code: String,
        start_line: u32,
        end_line: u32,
    ) -> Chunk {
        let text = format!("{header}{code}");
        Chunk {
            id: String::new(),
            path: self.path.to_string(),
            language: self.language,
            kind: draft.kind,
            symbol: draft.symbol.clone(),
            fqn: draft.fqn.clone(),
            start_line,
            end_line,
            header,
            code,
            text,
        }
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
            body: container.body,
            label: None,
        }),
        ..item
    }
}

/// Line starts of the top-level statements of `body`, relative to `start`.
fn statement_cuts(body: Node, source: &Source, start: usize, end: usize) -> Vec<usize> {
    let mut body = body;
    // Go and Swift keep statements one level down.
    for _ in 0..2 {
        if body.named_child_count() == 1 {
            if let Some(only) = body.named_child(0) {
                if matches!(
                    only.kind(),
                    "statement_list" | "statements" | "block" | "body_statement"
                ) {
                    body = only;
                    continue;
                }
            }
        }
        break;
    }
    let mut cuts = Vec::new();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        let line_start = source.line_start(statement.start_byte());
        let before = source.slice(line_start, statement.start_byte());
        if line_start > start && line_start < end && before.trim().is_empty() {
            let cut = line_start - start;
            if cuts.last() != Some(&cut) {
                cuts.push(cut);
            }
        }
    }
    cuts
}

fn join_fqn(scope: &str, name: &str) -> String {
    match (scope.is_empty(), name.is_empty()) {
        (_, true) => scope.to_string(),
        (true, false) => name.to_string(),
        (false, false) => format!("{scope}.{name}"),
    }
}

/// The module a file stands for: its stem, or its directory for `__init__`, `mod`, `index`.
fn module_name(path: &str) -> String {
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
