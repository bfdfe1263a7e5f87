//! Tree-sitter parsing, shared by the chunker and the graph: each language's grammar, one
//! cached parser per language per thread (on mimalloc), the deadline a file is parsed under,
//! and the walk over a tree's errors that judges a reparse.

use std::cell::RefCell;
use std::ffi::c_void;
use std::ops::ControlFlow;
use std::sync::Once;
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, ParseState, Parser, Tree};

use crate::lang::Language;

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
    pub(crate) fn overrun(&self) -> String {
        format!(
            "not parsed {OUT_OF_TIME} ({:.1} s): chunked as plain lines",
            self.budget.as_secs_f64()
        )
    }

    /// What `syntax_errors` says about a file whose chunks came from its tree but whose
    /// references did not fit in the time left.
    pub(crate) fn references_overrun(&self) -> String {
        format!(
            "references not extracted {OUT_OF_TIME} ({:.1} s)",
            self.budget.as_secs_f64()
        )
    }
}

/// The words that mark a time-budget note among `syntax_errors` (one per file at most).
pub(crate) const OUT_OF_TIME: &str = "within the time budget";

/// Why a parse gave no tree.
#[derive(Debug)]
pub(crate) enum ParseFailure {
    /// The deadline passed; the parser was cancelled.
    OutOfTime,
    Failed(String),
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
pub(crate) fn parse(
    language: Language,
    text: &str,
    deadline: Deadline,
) -> Result<Tree, ParseFailure> {
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

/// Drop this thread's cached parsers: after a panic one may have been left mid-parse.
pub(crate) fn forget_parsers() {
    PARSERS.with(|cell| cell.borrow_mut().clear());
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
