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
//!   object, protocol, a Ruby module that defines methods itself, ...): the signature with decorators, the fields, the constructor in
//!   full and a one-line summary per method (`signature { ... }`); a container without
//!   methods is its source as written. Its id is `"{path}::{fqn}::class"` (`::object` for
//!   Scala/Kotlin objects, `::extension` for Swift extensions), its line range the whole
//!   container. Constructors are not chunked on their own; every other method is.
//! - **Namespaces** (TS `namespace`/`module`, C++/C#/PHP namespaces, Rust `mod`, a Ruby
//!   `module` of modules and classes, Elixir `defmodule`) only give context; their opening line joins the code
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
//! `fuzz/` checks all of this on generated hostile inputs for every grammar.

mod bash;
mod c_conditionals;
mod c_family;
mod c_macros;
mod c_reparse;
mod class;
mod clojure;
mod component;
mod csharp;
mod dart;
mod draft;
mod driver;
mod ecmascript;
mod elixir;
mod erlang;
mod errors;
mod fsharp;
mod go;
mod graphql;
mod group;
mod haskell;
mod hcl;
mod header;
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
mod scopes;
mod solidity;
mod spec;
mod split;
mod sql;
mod swift;
mod text;
mod ts_reparse;
mod types;
mod zig;

#[cfg(any(test, feature = "fuzz"))]
pub mod fuzz;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::path::Path;

use rayon::prelude::*;

use crate::graph;
use crate::lang::Language;
use crate::parse::{forget_parsers, parse, Deadline, ParseFailure};
pub use crate::records::Chunk;
use driver::Chunker;
use errors::syntax_errors;
use spec::Spec;
use text::Source;
pub use types::{ChunkOptions, FileChunks};

/// Bump when what a file becomes changes: chunk boundaries, ids, headers, symbols, kinds, for
/// any language (a new grammar or chunker included). An index made under another number reads
/// every file again on its next update and replaces the chunks that changed; a chunk whose
/// text stayed the same keeps its vector.
const RULES: u32 = 27;

/// The identifier of this chunker, stored by an index with its chunks.
pub fn version() -> String {
    format!("rules {RULES}")
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
            forget_parsers();
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
            c_reparse::straighten(&text, &tree, |source| parse(grammar, source, deadline).ok())
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
