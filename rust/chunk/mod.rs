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
//!   object, protocol, ...): the signature with decorators, the fields, the constructor in
//!   full and a one-line summary per method (`signature { ... }`); a container without
//!   methods is its source as written. Its id is `"{path}::{fqn}::class"` (`::object` for
//!   Scala/Kotlin objects, `::extension` for Swift extensions), its line range the whole
//!   container. Constructors are not chunked on their own; every other method is.
//! - **Namespaces** (TS `namespace`/`module`, C++/C#/PHP namespaces, Rust `mod`, Ruby
//!   `module`, Elixir `defmodule`) only give context; their opening line joins the code
//!   right before it or else their first member.
//! - **Module chunks** — everything else (imports, constants, statements between symbols,
//!   loose code in namespaces) in runs of consecutive code, kind `"module"`, symbol `""`,
//!   id `"{path}::<module>"` (or `"{path}::{namespace}::<module>"`). Runs holding only
//!   brackets or closing keywords (`}`, `end`, `#endif`, perhaps with a trailing comment)
//!   are dropped: every other non-blank line of the file lies in at least one chunk. A
//!   comment after code on the same line belongs to that code.
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
//! **Components.** Vue and Svelte files chunk their `<script>` blocks with the JavaScript
//! table and keep their templates and styles as `<template>` and `<style>` chunks
//! (`component.rs`).
//!
//! **Robustness.** Sources are read lossily, the BOM is dropped and CRLF becomes LF (line
//! numbers are unchanged). Tree-sitter recovers from syntax errors; their lines are reported
//! in `syntax_errors`. The tree is walked with explicit stacks, and scopes nest at most
//! `MAX_DEPTH` deep (deeper containers become one symbol), so hostile inputs cannot
//! overflow the stack. A file gets `ChunkOptions::time_budget` to be parsed and walked: past
//! it, tree-sitter is cancelled (or the walk stops) and the file is chunked as plain lines
//! (module chunks cut at line boundaries), with the overrun reported in `syntax_errors`.
//! `fuzz.rs` checks all of this on generated hostile inputs for every grammar.

mod bash;
mod c_family;
mod c_reparse;
mod clojure;
mod component;
mod csharp;
mod dart;
mod driver;
mod ecmascript;
mod elixir;
mod erlang;
mod fsharp;
mod go;
mod graphql;
mod haskell;
mod hcl;
mod julia;
mod jvm;
mod lua;
mod macro_items;
mod nix;
mod objc;
mod ocaml;
mod perl;
mod php;
mod protobuf;
mod python;
mod r;
mod render;
mod ruby;
mod rust_lang;
mod solidity;
mod spec;
mod split;
mod sql;
mod swift;
mod text;
mod ts_reparse;
mod zig;

#[cfg(any(test, feature = "fuzz"))]
pub mod fuzz;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::c_void;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Once;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use tree_sitter::{Node, ParseOptions, ParseState, Parser, Tree};

use crate::graph::{self, Reference};
use crate::lang::Language;
use driver::Chunker;
use spec::Spec;
use text::{collapse, Source};

/// Bump when what a file becomes changes: chunk boundaries, ids, headers, symbols, kinds, for
/// any language (a new grammar or chunker included). An index made under another number reads
/// every file again on its next update and replaces the chunks that changed; a chunk whose
/// text stayed the same keeps its vector.
const RULES: u32 = 16;

/// The identifier of this chunker, stored by an index with its chunks.
pub fn version() -> String {
    format!("rules {RULES}")
}

/// How big chunks may get, and how long one file may take.
#[derive(Clone, Debug)]
pub struct ChunkOptions {
    /// Most chars in a chunk's `text` (header + code).
    pub max_chars: usize,
    /// Wall-clock time to parse and walk one file. Past it the file is chunked as plain
    /// lines and the overrun is reported in `syntax_errors`: a hostile file costs this much,
    /// never a hang.
    pub time_budget: Duration,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        // A 1 MB file (the walk's default limit) parses in well under a second in every
        // grammar here; ten leave room for a loaded machine.
        ChunkOptions {
            max_chars: 3500,
            time_budget: Duration::from_secs(10),
        }
    }
}

/// When the file being chunked runs out of time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    at: Instant,
    budget: Duration,
}

impl Deadline {
    pub(crate) fn after(budget: Duration) -> Deadline {
        let now = Instant::now();
        Deadline {
            at: now
                .checked_add(budget)
                .unwrap_or(now + Duration::from_secs(86_400)),
            budget,
        }
    }

    pub(crate) fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// What `syntax_errors` says about a file chunked as plain lines for lack of time.
    fn overrun(&self) -> String {
        format!(
            "not parsed {OUT_OF_TIME} ({:.1} s): chunked as plain lines",
            self.budget.as_secs_f64()
        )
    }

    /// What `syntax_errors` says about a file whose chunks came from its tree but whose
    /// references did not fit in the time left.
    fn references_overrun(&self) -> String {
        format!(
            "references not extracted {OUT_OF_TIME} ({:.1} s)",
            self.budget.as_secs_f64()
        )
    }
}

/// The words that mark a time-budget note among `syntax_errors` (one per file at most).
const OUT_OF_TIME: &str = "within the time budget";

/// Why a parse gave no tree.
#[derive(Debug)]
pub(crate) enum ParseFailure {
    /// The deadline passed; the parser was cancelled.
    OutOfTime,
    Failed(String),
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
    /// The names this chunk calls, imports, inherits or mentions as types, sorted
    /// (`crate::graph`).
    pub references: Vec<Reference>,
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
    /// Why the file could not be chunked at all (unreadable, or the chunker failed on it):
    /// a failure, worth retrying; whatever was indexed for the file before should stay.
    pub error: Option<String>,
    /// Why the file's content is not indexed (it turned out binary or generated): a
    /// decision, not a failure; the file has no chunks.
    pub skipped: Option<String>,
}

impl FileChunks {
    /// Whether the file ran out of its time budget (chunked as plain lines, or without
    /// references): one of its `syntax_errors` says so, and is no syntax error.
    pub fn out_of_time(&self) -> bool {
        self.syntax_errors
            .iter()
            .any(|note| note.contains(OUT_OF_TIME))
    }

    fn empty(path: &str, language: Language, content_hash: String) -> FileChunks {
        FileChunks {
            path: path.to_string(),
            language,
            content_hash,
            chunks: Vec::new(),
            syntax_errors: Vec::new(),
            error: None,
            skipped: None,
        }
    }
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
    chunking_threads().install(|| {
        isolated(path, language, || {
            chunk_text(path, language, source, content_hash.clone(), options)
        })
    })
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
            if let Some(reason) = crate::walk::sniff(&bytes) {
                // The walk may not have read the file (an index sync only stats): same rules.
                return FileChunks {
                    skipped: Some(reason.to_string()),
                    ..FileChunks::empty(path, language, content_hash)
                };
            }
            // Valid UTF-8 is the rule: check it on the fast path before the lossy one.
            let text = match std::str::from_utf8(&bytes) {
                Ok(text) => Cow::Borrowed(text),
                Err(_) => String::from_utf8_lossy(&bytes),
            };
            chunk_text(path, language, &text, content_hash, options)
        }
        Err(error) => FileChunks {
            error: Some(format!("cannot read: {error}")),
            ..FileChunks::empty(path, language, String::new())
        },
    }
}

/// Chunk many files in parallel; the result is in input order. A file the chunker fails on
/// (a panic in a grammar or in this crate) comes back with an error; the others are chunked.
pub fn chunk_files(
    root: &Path,
    files: &[(String, Language)],
    options: &ChunkOptions,
) -> Vec<FileChunks> {
    chunking_threads().install(|| {
        files
            .par_iter()
            .map(|(path, language)| {
                isolated(path, *language, || {
                    chunk_file(root, path, *language, options)
                })
            })
            .collect()
    })
}

/// Stack of each chunking thread. Tree-sitter's C code recurses over its parse stack, about
/// 56 bytes a level: 150,000 nested `<div>` type arguments (780 KB of TypeScript) overflow an
/// 8 MB stack, which aborts the process. 128 MB (reserved, touched only as deep as a file
/// goes) holds any file under the walk's 1 MB limit several times over.
const CHUNK_THREAD_STACK: usize = 128 << 20;

/// The threads that parse: one per core, with `CHUNK_THREAD_STACK` each.
fn chunking_threads() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(CHUNK_THREAD_STACK)
            .thread_name(|index| format!("sharc-chunk-{index}"))
            .build()
            .expect("the chunking threads start")
    })
}

/// Run `chunk` for one file; a panic becomes that file's error instead of unwinding into
/// the batch (and through the Python binding, aborting a whole update).
pub(crate) fn isolated(
    path: &str,
    language: Language,
    chunk: impl FnOnce() -> FileChunks,
) -> FileChunks {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(chunk)) {
        Ok(chunked) => chunked,
        Err(panic) => {
            // The thread's cached parser may have been left mid-parse: start afresh.
            PARSERS.with(|cell| cell.borrow_mut().clear());
            let message = panic
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            FileChunks {
                error: Some(format!("the chunker failed on this file: {message}")),
                ..FileChunks::empty(path, language, String::new())
            }
        }
    }
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
        Language::Dart => &dart::SPEC,
        Language::ObjectiveC => &objc::SPEC,
        Language::R => &r::SPEC,
        Language::Perl => &perl::SPEC,
        Language::Julia => &julia::SPEC,
        Language::OCaml | Language::OCamlInterface => &ocaml::SPEC,
        Language::Erlang => &erlang::SPEC,
        Language::Clojure => &clojure::SPEC,
        Language::FSharp => &fsharp::SPEC,
        Language::Sql => &sql::SPEC,
        Language::Solidity => &solidity::SPEC,
        Language::Hcl => &hcl::SPEC,
        Language::Protobuf => &protobuf::SPEC,
        Language::GraphQl => &graphql::SPEC,
        Language::Nix => &nix::SPEC,
        // Components chunk their scripts with the JavaScript table (`component.rs`).
        Language::Vue | Language::Svelte => &ecmascript::SPEC,
        _ => return None,
    })
}

pub(crate) fn grammar(language: Language) -> Option<tree_sitter::Language> {
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
        Language::Dart => tree_sitter_dart::LANGUAGE,
        Language::ObjectiveC => tree_sitter_objc::LANGUAGE,
        Language::R => tree_sitter_r::LANGUAGE,
        Language::Perl => tree_sitter_perl::LANGUAGE,
        Language::Julia => tree_sitter_julia::LANGUAGE,
        Language::OCaml => tree_sitter_ocaml::LANGUAGE_OCAML,
        Language::OCamlInterface => tree_sitter_ocaml::LANGUAGE_OCAML_INTERFACE,
        Language::Erlang => tree_sitter_erlang::LANGUAGE,
        Language::Clojure => tree_sitter_clojure_orchard::LANGUAGE,
        Language::FSharp => tree_sitter_fsharp::LANGUAGE_FSHARP,
        Language::Sql => tree_sitter_sequel::LANGUAGE,
        Language::Solidity => tree_sitter_solidity::LANGUAGE,
        Language::Hcl => tree_sitter_hcl::LANGUAGE,
        Language::Protobuf => tree_sitter_proto::LANGUAGE,
        Language::GraphQl => tree_sitter_graphql::LANGUAGE,
        Language::Nix => tree_sitter_nix::LANGUAGE,
        _ => return None,
    };
    Some(function.into())
}

thread_local! {
    /// One parser per language per thread: creating one costs more than parsing a small file.
    static PARSERS: RefCell<Vec<(Language, Parser)>> = const { RefCell::new(Vec::new()) };
}

/// Parse `text` with `language`'s grammar, for tests that look at trees.
#[cfg(test)]
pub(crate) fn parse_for_tests(language: Language, text: &str) -> Tree {
    parse(language, text, Deadline::after(Duration::from_secs(60))).unwrap()
}

/// Parse `text`, cancelling tree-sitter once `deadline` passes (it asks every hundred or so
/// parse steps).
fn parse(language: Language, text: &str, deadline: Deadline) -> Result<Tree, ParseFailure> {
    static ALLOCATOR: Once = Once::new();
    ALLOCATOR.call_once(use_mimalloc);
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let index = match parsers.iter().position(|(known, _)| *known == language) {
            Some(index) => index,
            None => {
                let grammar = grammar(language)
                    .ok_or_else(|| ParseFailure::Failed("no grammar".to_string()))?;
                let mut parser = Parser::new();
                parser.set_language(&grammar).map_err(|error| {
                    ParseFailure::Failed(format!("grammar failed to load: {error}"))
                })?;
                parsers.push((language, parser));
                parsers.len() - 1
            }
        };
        let parser = &mut parsers[index].1;
        let bytes = text.as_bytes();
        let mut progress = |_: &ParseState| {
            if deadline.passed() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let tree = parser.parse_with_options(
            &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
            None,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        match tree {
            Some(tree) => Ok(tree),
            None => {
                // A cancelled parse would otherwise resume on the next call.
                parser.reset();
                Err(if deadline.passed() {
                    ParseFailure::OutOfTime
                } else {
                    ParseFailure::Failed("tree-sitter could not parse the file".to_string())
                })
            }
        }
    })
}

/// Give tree-sitter mimalloc instead of the system `malloc`.
///
/// A parse allocates and frees one small block per syntax node; with glibc's `malloc` that
/// was a sixth of one-thread chunking time, and more once a batch's chunks fill the heap.
/// (py-tree-sitter hands tree-sitter pymalloc for the same reason.) Runs once, before the
/// first parser exists, as `set_allocator` requires.
fn use_mimalloc() {
    // tree-sitter's own `malloc` wrappers abort rather than return null: so do these.
    fn checked(block: *mut c_void) -> *mut c_void {
        if block.is_null() {
            std::process::abort();
        }
        block
    }
    unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
        // SAFETY: a plain allocation.
        checked(unsafe { libmimalloc_sys::mi_malloc(size) })
    }
    unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
        let Some(total) = count.checked_mul(size) else {
            std::process::abort();
        };
        // SAFETY: a plain zeroed allocation.
        checked(unsafe { libmimalloc_sys::mi_zalloc(total) })
    }
    unsafe extern "C" fn realloc(block: *mut c_void, size: usize) -> *mut c_void {
        // SAFETY: `block` is null or came from these functions (tree-sitter's contract).
        checked(unsafe { libmimalloc_sys::mi_realloc(block, size) })
    }
    // SAFETY: one allocator family for all four functions, installed before any tree-sitter
    // object is created and never changed afterwards; mimalloc aligns like `malloc`.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc,
            calloc,
            realloc,
            free: libmimalloc_sys::mi_free,
        }));
    }
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
    let mut result = FileChunks::empty(path, language, content_hash);
    let Some(spec) = spec_for(language) else {
        return result;
    };
    let text = normalize(raw);
    if text.trim().is_empty() {
        return result;
    }
    let deadline = Deadline::after(options.time_budget);
    if matches!(language, Language::Vue | Language::Svelte) {
        if component::chunk(
            path,
            language,
            &text,
            options.max_chars,
            deadline,
            &mut result,
        )
        .is_err()
        {
            chunk_plain(spec, path, language, &text, options, deadline, &mut result);
        }
        return result;
    }
    let tree = match parse(language, &text, deadline) {
        Ok(tree) => tree,
        Err(ParseFailure::OutOfTime) => {
            chunk_plain(spec, path, language, &text, options, deadline, &mut result);
            return result;
        }
        Err(ParseFailure::Failed(error)) => {
            result.error = Some(error);
            return result;
        }
    };
    // Node offsets are the same in the unwrapped text; chunks are sliced from `text`.
    let tree = match language {
        Language::Rust => macro_items::unwrap_item_macros(&text, tree.clone(), |source| {
            parse(language, source, deadline).ok()
        })
        .map_or(tree, |(_, unwrapped)| unwrapped),
        _ => tree,
    };
    // The grammar the tree is in: a `.h` header that reads better as C++ is C++ from here on.
    // Its attribute-like macros are blanked on the way (`c_reparse`).
    let (tree, grammar) = match language {
        Language::C if path.ends_with(".h") => {
            c_reparse::header_tree(&text, tree, |grammar, source| {
                parse(grammar, source, deadline).ok()
            })
        }
        _ => (tree, language),
    };
    let tree = match language {
        Language::C if path.ends_with(".h") => tree,
        Language::C | Language::Cpp | Language::ObjectiveC => {
            c_reparse::blank_attribute_macros(&text, &tree, |source| {
                parse(grammar, source, deadline).ok()
            })
            .unwrap_or(tree)
        }
        Language::TypeScript | Language::Tsx => {
            ts_reparse::separate_call_signatures(&text, &tree, |source| {
                parse(language, source, deadline).ok()
            })
            .unwrap_or(tree)
        }
        _ => tree,
    };
    let source = Source::new(&text);
    let root = tree.root_node();
    // A `.h` header that reads as C++ gives C++ chunks (`languages=["cpp"]` finds them).
    let mut chunker = Chunker::new(spec, &source, path, grammar, options.max_chars);
    if chunker.walk(root, deadline).is_err() {
        chunk_plain(spec, path, language, &text, options, deadline, &mut result);
        return result;
    }
    if root.has_error() {
        result.syntax_errors = syntax_errors(root, &source);
    }
    result.chunks = chunker.finish();
    // References are an extra: a file that uses its time up goes without them. They are
    // read with the grammar that parsed the file (a `.h` header may be C++).
    match graph::references(grammar, root, &text, 0, deadline) {
        Some(references) => graph::assign(&mut result.chunks, references),
        None => result.syntax_errors.push(deadline.references_overrun()),
    }
    result
}

/// The text fallback: `text` as module chunks cut at lines, with the overrun reported.
fn chunk_plain(
    spec: &'static Spec,
    path: &str,
    language: Language,
    text: &str,
    options: &ChunkOptions,
    deadline: Deadline,
    result: &mut FileChunks,
) {
    let source = Source::new(text);
    let mut chunker = Chunker::new(spec, &source, path, language, options.max_chars);
    chunker.plain_lines();
    result.chunks = chunker.finish();
    result.syntax_errors = vec![deadline.overrun()];
}

/// At most this many syntax errors are reported per file.
const MAX_ERRORS: usize = 20;

/// ERROR and MISSING nodes as messages, at most `MAX_ERRORS`.
fn syntax_errors(root: Node, source: &Source) -> Vec<String> {
    let mut errors = Vec::new();
    for_each_error(root, |node| {
        let line = source.line_of(node.start_byte()) + 1;
        errors.push(if node.is_missing() {
            format!("line {line}: missing `{}`", node.kind())
        } else {
            let near = collapse(source.slice(node.start_byte(), node.end_byte()), 40);
            format!("line {line}: syntax error near `{near}`")
        });
        if errors.len() >= MAX_ERRORS {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    errors
}

/// The tree of `text` after `edit` overwrites some of its bytes in place (same length, so every
/// node keeps its line and column), when `tree` has errors, `edit` changed something and the
/// edited text parses with fewer errors; None otherwise. `parse` parses the file's language.
/// The chunker still slices chunks from `text`, so every chunk shows the file as written.
pub(crate) fn reparse_edited(
    text: &str,
    tree: &Tree,
    parse: impl Fn(&str) -> Option<Tree>,
    edit: impl FnOnce(&mut [u8]) -> bool,
) -> Option<Tree> {
    if !tree.root_node().has_error() {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    if !edit(&mut bytes) {
        return None;
    }
    // The edits overwrite ASCII bytes with ASCII bytes: still UTF-8.
    let edited = String::from_utf8(bytes).ok()?;
    let reparsed = parse(&edited)?;
    (error_weight(reparsed.root_node()) < error_weight(tree.root_node())).then_some(reparsed)
}

/// How broken a tree is: the bytes under ERROR nodes, and one for each MISSING node.
pub(crate) fn error_weight(root: Node) -> usize {
    let mut weight = 0;
    for_each_error(root, |node| {
        weight += if node.is_error() {
            node.end_byte() - node.start_byte()
        } else {
            1
        };
        ControlFlow::Continue(())
    });
    weight
}

/// Call `visit` on each ERROR and MISSING node of `root`'s tree, in order, descending only
/// into subtrees that hold errors, until it breaks.
pub(crate) fn for_each_error(root: Node, mut visit: impl FnMut(Node) -> ControlFlow<()>) {
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let descend = if node.is_error() || node.is_missing() {
            if visit(node).is_break() {
                return;
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
}
