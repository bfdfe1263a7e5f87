//! The code graph's raw material: the names each chunk references.
//!
//! Each grammar has a tree-sitter query written in the `tags.scm` conventions: a match
//! captures the referenced name as `@name` and the whole reference as `@reference.<kind>`.
//! The queries live in `queries/<language>.scm`; for grammars whose crate ships a tags query
//! with references (OCaml, Dart, R, Solidity, Elixir, Lua, Nix) that query is used as well.
//! The capture kinds fold into four edge kinds:
//!
//! - `call`: calls, method sends, macro invocations, `new X()`
//! - `import`: imports, uses, includes, requires (the name is the module path's last segment,
//!   the path before it is the qualifier)
//! - `type`: a type named in an annotation, a signature, a cast
//! - `inherit`: superclasses, implemented interfaces and traits, mixins
//!
//! A chunk's definitions are the chunk itself (its `symbol` and `kind`); the references are
//! assigned to the innermost chunk whose lines hold them (a method's calls go to the method,
//! not to its class chunk). Names are taken as written: resolving them to definitions, with
//! their ambiguity, is the Python layer's job (`sharc.graph`).

use std::ops::ControlFlow;
use std::sync::OnceLock;

use tree_sitter::{
    Node, Query, QueryCursor, QueryCursorOptions, QueryCursorState, StreamingIterator,
};

use crate::lang::Language;
use crate::parse::{grammar, Deadline};
use crate::records::Chunk;
pub use crate::records::Reference;

/// Edge kinds, strongest first: a name referenced twice on one line keeps the first kind.
pub const KINDS: [&str; 4] = ["call", "inherit", "import", "type"];

/// Longest name kept; longer captures are expressions, not names.
const MAX_NAME: usize = 200;
/// At most this many references per file, so a generated file cannot flood the graph.
const MAX_PER_FILE: usize = 50_000;

/// The edge kind of a `reference.*` capture, following tree-sitter's tags vocabulary.
fn edge_kind(capture: &str) -> Option<&'static str> {
    let kind = capture.strip_prefix("reference.")?;
    Some(match kind {
        "call" | "send" | "function" | "method" | "macro" => "call",
        "import" | "module" | "include" | "require" | "unknown" => "import",
        "type" | "class" | "interface" | "struct" | "enum" => "type",
        "inherit" | "implementation" => "inherit",
        _ => return None,
    })
}

/// The query text for `language`: sharc's own, then the grammar's tags query where it helps.
fn query_source(language: Language) -> Option<String> {
    let own = match language {
        Language::Python => include_str!("queries/python.scm"),
        Language::JavaScript => concat!(
            include_str!("queries/javascript.scm"),
            include_str!("queries/javascript_heritage.scm"),
            include_str!("queries/jsx.scm")
        ),
        Language::TypeScript => concat!(
            include_str!("queries/javascript.scm"),
            include_str!("queries/typescript.scm")
        ),
        Language::Tsx => concat!(
            include_str!("queries/javascript.scm"),
            include_str!("queries/typescript.scm"),
            include_str!("queries/jsx.scm")
        ),
        Language::Go => include_str!("queries/go.scm"),
        Language::Rust => include_str!("queries/rust.scm"),
        Language::Java => include_str!("queries/java.scm"),
        Language::Kotlin => include_str!("queries/kotlin.scm"),
        Language::Scala => include_str!("queries/scala.scm"),
        Language::CSharp => include_str!("queries/csharp.scm"),
        Language::C => include_str!("queries/c.scm"),
        Language::Cpp => concat!(
            include_str!("queries/c.scm"),
            include_str!("queries/cpp.scm")
        ),
        Language::Ruby => include_str!("queries/ruby.scm"),
        Language::Php => include_str!("queries/php.scm"),
        Language::Swift => include_str!("queries/swift.scm"),
        Language::Lua => include_str!("queries/lua.scm"),
        Language::Elixir => include_str!("queries/elixir.scm"),
        Language::Haskell => include_str!("queries/haskell.scm"),
        Language::Bash => include_str!("queries/bash.scm"),
        Language::Zig => include_str!("queries/zig.scm"),
        Language::Dart => include_str!("queries/dart.scm"),
        Language::ObjectiveC => include_str!("queries/objc.scm"),
        Language::R => "",
        Language::Julia => include_str!("queries/julia.scm"),
        Language::OCaml | Language::OCamlInterface => "",
        Language::Erlang => include_str!("queries/erlang.scm"),
        Language::Clojure => include_str!("queries/clojure.scm"),
        Language::FSharp => include_str!("queries/fsharp.scm"),
        Language::Sql => include_str!("queries/sql.scm"),
        Language::Solidity => include_str!("queries/solidity.scm"),
        Language::Hcl => include_str!("queries/hcl.scm"),
        Language::Protobuf => include_str!("queries/protobuf.scm"),
        Language::GraphQl => include_str!("queries/graphql.scm"),
        Language::Nix => include_str!("queries/nix.scm"),
        Language::Perl => include_str!("queries/perl.scm"),
        _ => return None,
    };
    let tags = match language {
        Language::OCaml | Language::OCamlInterface => tree_sitter_ocaml::TAGS_QUERY,
        Language::R => tree_sitter_r::TAGS_QUERY,
        Language::Solidity => tree_sitter_solidity::TAGS_QUERY,
        Language::Elixir => tree_sitter_elixir::TAGS_QUERY,
        Language::Lua => tree_sitter_lua::TAGS_QUERY,
        Language::Dart => tree_sitter_dart::TAGS_QUERY,
        _ => "",
    };
    Some(format!("{own}\n{tags}"))
}

/// A digest of every language's query (and of this extractor's rules, by `RULES`): an index
/// whose references were read with another version reads its files again.
pub fn version() -> String {
    /// Bump when the Rust side of extraction changes (filters, name cleaning, assignment).
    const RULES: u32 = 3;
    let mut material = format!("rules {RULES}\n");
    for language in Language::all() {
        if let Some(source) = query_source(language) {
            material.push_str(language.name());
            material.push_str(&source);
        }
    }
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(material.as_bytes()))
}

/// Compile `language`'s query: an error names the language and the query's problem.
pub fn compile(language: Language) -> Result<Option<Query>, String> {
    let (Some(source), Some(grammar)) = (query_source(language), grammar(language)) else {
        return Ok(None);
    };
    Query::new(&grammar, &source)
        .map(Some)
        .map_err(|error| format!("{} references query: {error}", language.name()))
}

/// The compiled query of `language`, compiled once per process.
fn query(language: Language) -> Option<&'static Query> {
    const SLOTS: usize = 64;
    static QUERIES: [OnceLock<Option<Query>>; SLOTS] = [const { OnceLock::new() }; SLOTS];
    let slot = language as usize;
    if slot >= SLOTS {
        return None;
    }
    // A query that fails to compile is a bug caught by the tests; here it means no edges.
    QUERIES[slot]
        .get_or_init(|| compile(language).ok().flatten())
        .as_ref()
}

/// The references in the tree under `root`, sorted and without duplicates. `line_offset` is
/// added to every line (a component's script block starts partway into its file). `None`
/// when `deadline` passes first: the query's cost grows with the tree's shape (tree-sitter
/// looks at every later sibling of each node it visits, so a node with 80,000 children
/// costs 80,000² steps), and a hostile file must not spend more than its budget here.
pub(crate) fn references(
    language: Language,
    root: Node,
    text: &str,
    line_offset: u32,
    deadline: Deadline,
) -> Option<Vec<Reference>> {
    let Some(query) = query(language) else {
        return Some(Vec::new());
    };
    if deadline.passed() {
        return None;
    }
    let candidates = candidates(query, root, text, deadline)?;
    // What the filters below ask of a name's surroundings, found in one pass over the tree.
    let needs = |candidate: &Candidate| {
        candidate.kind == "type"
            || language == Language::Elixir
            || language == Language::Erlang
            || (candidate.kind == "call" && candidate.receiver.is_none())
    };
    let around = Surroundings::of(root, candidates.iter().filter(|c| needs(c)).map(|c| c.node));
    let mut found = Vec::new();
    for candidate in &candidates {
        let (kind, node) = (candidate.kind, candidate.node);
        if kind == "type" && names_definition(node, &around) {
            continue;
        }
        if language == Language::Elixir && elixir_definition(node, text, &around) {
            continue;
        }
        let Some(written) = text.get(node.byte_range()) else {
            continue;
        };
        if let Some(mut reference) = reference(kind, written, node, line_offset) {
            if language == Language::Erlang && kind == "call" {
                if let Some(arity) = erlang_arity(around.ancestor(node, 0), text) {
                    reference.name = format!("{}/{arity}", reference.name);
                }
            }
            let receiver = candidate.receiver.clone().and_then(|range| text.get(range));
            if let Some(receiver) = receiver {
                reference.qualifier = receiver_label(receiver);
            } else if kind == "call" && reached_through_token(node, &around) {
                // A call inside a macro's token tree: `self.next()` is tokens, not a field
                // expression, but still a call through a receiver.
                reference.qualifier = "…".to_string();
            }
            found.push(reference);
            if found.len() >= MAX_PER_FILE {
                break;
            }
        }
    }
    // One reference per name and line, of the strongest kind: `implements Foo` is an
    // inheritance, not also a type mention.
    // A call matched with and without its receiver keeps the receiver. Compared field by
    // field: a key tuple would clone each name twice per comparison.
    found.sort_by(|a, b| {
        a.line
            .cmp(&b.line)
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| rank(a.kind).cmp(&rank(b.kind)))
            .then_with(|| a.qualifier.is_empty().cmp(&b.qualifier.is_empty()))
            .then_with(|| a.qualifier.cmp(&b.qualifier))
    });
    found.dedup_by(|later, kept| later.line == kept.line && later.name == kept.name);
    Some(found)
}

/// The query's matches under `root` that have an edge kind and a `@name`; `None` when
/// `deadline` passes first.
fn candidates<'t>(
    query: &Query,
    root: Node<'t>,
    text: &str,
    deadline: Deadline,
) -> Option<Vec<Candidate<'t>>> {
    let name_index = query.capture_index_for_name("name");
    let receiver_index = query.capture_index_for_name("receiver");
    let kinds: Vec<Option<&'static str>> = query
        .capture_names()
        .iter()
        .map(|capture| edge_kind(capture))
        .collect();
    let mut cursor = QueryCursor::new();
    // Deeply nested hostile input must not make a query run forever.
    cursor.set_match_limit(4096);
    let mut out_of_time = false;
    let mut progress = |_: &QueryCursorState| {
        if deadline.passed() {
            out_of_time = true;
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let mut matches = cursor.matches_with_options(
        query,
        root,
        text.as_bytes(),
        QueryCursorOptions::new().progress_callback(&mut progress),
    );
    let mut candidates: Vec<Candidate> = Vec::new();
    while let Some(found_match) = matches.next() {
        let kind = found_match
            .captures()
            .iter()
            .find_map(|capture| kinds[capture.index as usize]);
        let name = found_match
            .captures()
            .iter()
            .find(|capture| Some(capture.index) == name_index);
        let (Some(kind), Some(name)) = (kind, name) else {
            continue;
        };
        let receiver = found_match
            .captures()
            .iter()
            .find(|capture| Some(capture.index) == receiver_index)
            .map(|capture| capture.node.byte_range());
        candidates.push(Candidate {
            kind,
            node: name.node,
            receiver,
        });
    }
    drop(matches);
    (!out_of_time).then_some(candidates)
}

/// A query match kept for the filters: its edge kind, its `@name` node, and where its
/// `@receiver` is written.
struct Candidate<'t> {
    kind: &'static str,
    node: Node<'t>,
    receiver: Option<std::ops::Range<usize>>,
}

/// How many ancestors the filters look at (Elixir's `def` head is four levels up).
const ANCESTORS: usize = 4;

/// The ancestors (nearest first) and previous sibling of some nodes, found in one walk of
/// the tree. `Node::parent` and `Node::prev_sibling` descend from the root again on each
/// call, which is quadratic in a deep tree: 8,000 nested `let x =` took seconds.
struct Surroundings<'t> {
    /// The nodes asked about, as `(start byte, id)`, sorted.
    wanted: Vec<(usize, usize)>,
    /// For each of `wanted`: its ancestors, nearest first, and its previous sibling.
    found: Vec<([Option<Node<'t>>; ANCESTORS], Option<Node<'t>>)>,
}

impl<'t> Surroundings<'t> {
    /// Walk `root`'s tree once, entering only subtrees that hold one of `nodes`.
    fn of(root: Node<'t>, nodes: impl Iterator<Item = Node<'t>>) -> Surroundings<'t> {
        let mut wanted: Vec<(usize, usize)> =
            nodes.map(|node| (node.start_byte(), node.id())).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut found = vec![([None; ANCESTORS], None); wanted.len()];
        let mut left = wanted.len();
        let mut cursor = root.walk();
        let mut ancestors: Vec<Node<'t>> = Vec::new();
        let mut current = root;
        let mut previous: Option<Node<'t>> = None;
        'walk: while left > 0 {
            // The first wanted node starting at or after `current`: `current` itself, one
            // under it, or none (then its subtree is skipped).
            let start = current.start_byte();
            let first = wanted.partition_point(|&(at, _)| at < start);
            let mut holds = false;
            for (index, &(at, id)) in wanted.iter().enumerate().skip(first) {
                if at != start {
                    holds |= at <= current.end_byte();
                    break;
                }
                holds = true;
                if id == current.id() {
                    let mut above = [None; ANCESTORS];
                    for (slot, ancestor) in above.iter_mut().zip(ancestors.iter().rev()) {
                        *slot = Some(*ancestor);
                    }
                    found[index] = (above, previous);
                    left -= 1;
                }
            }
            if holds && cursor.goto_first_child() {
                ancestors.push(current);
                previous = None;
                current = cursor.node();
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    previous = Some(current);
                    current = cursor.node();
                    break;
                }
                if !cursor.goto_parent() {
                    break 'walk;
                }
                // Its next sibling, if any, follows it: `previous` is set then.
                current = ancestors.pop().unwrap_or(root);
            }
        }
        Surroundings { wanted, found }
    }

    fn of_node(
        &self,
        node: Node<'t>,
    ) -> Option<&([Option<Node<'t>>; ANCESTORS], Option<Node<'t>>)> {
        let index = self
            .wanted
            .binary_search(&(node.start_byte(), node.id()))
            .ok()?;
        self.found.get(index)
    }

    /// The `level`-th ancestor of `node` (0: its parent).
    fn ancestor(&self, node: Node<'t>, level: usize) -> Option<Node<'t>> {
        self.of_node(node)?.0.get(level).copied().flatten()
    }

    fn previous_sibling(&self, node: Node<'t>) -> Option<Node<'t>> {
        self.of_node(node)?.1
    }
}

/// The arity of the Erlang call or `fun f/N` whose function name's parent is `parent`:
/// Erlang names a function by both (`parse/1`), and so do its chunks.
fn erlang_arity(parent: Option<Node>, text: &str) -> Option<usize> {
    let parent = parent?;
    match parent.kind() {
        "call" => Some(parent.child_by_field_name("args").map_or(0, |args| {
            args.named_children(&mut args.walk())
                .filter(|arg| arg.kind() != "comment")
                .count()
        })),
        "internal_fun" => {
            let arity = parent.child_by_field_name("arity")?;
            let value = arity.child_by_field_name("value").unwrap_or(arity);
            text.get(value.byte_range())?.trim().parse().ok()
        }
        _ => None,
    }
}

/// The order of strength among edge kinds: the position in `KINDS`.
fn rank(kind: &str) -> usize {
    KINDS
        .iter()
        .position(|known| *known == kind)
        .unwrap_or(KINDS.len())
}

/// Whether `node` is the name a definition introduces (`type Server struct`), not a use
/// (`Promise` in `Promise<T>` is also a `name` field, of a `generic_type`).
fn names_definition(node: Node, around: &Surroundings) -> bool {
    let Some(parent) = around.ancestor(node, 0) else {
        return false;
    };
    let is_name = parent
        .child_by_field_name("name")
        .is_some_and(|name| name.id() == node.id());
    let kind = parent.kind();
    let declares = ["declaration", "definition", "_spec", "_item", "alias"]
        .iter()
        .any(|suffix| kind.ends_with(suffix))
        // C's `struct Buffer { ... }` declares; `struct Buffer *b` refers.
        || (kind.ends_with("_specifier") && parent.child_by_field_name("body").is_some());
    is_name && declares
}

/// Elixir's function-defining macros: `def name(args)` defines `name`.
const ELIXIR_DEFINERS: &[&str] = &[
    "def",
    "defp",
    "defmacro",
    "defmacrop",
    "defguard",
    "defguardp",
    "defdelegate",
    "defn",
    "defnp",
];
/// Other Elixir definitions and special forms: calls in the grammar, not in the graph.
const ELIXIR_FORMS: &[&str] = &[
    "defmodule",
    "defprotocol",
    "defimpl",
    "defstruct",
    "defexception",
    "alias",
    "import",
    "require",
    "use",
    "quote",
    "unquote",
    "case",
    "cond",
    "if",
    "unless",
    "with",
    "for",
    "fn",
    "receive",
    "try",
];

/// Elixir's `def name(args) do` is a call of `def` whose first argument is a call of `name`:
/// that head (with or without a `when` guard) defines `name`, it does not call it; and the
/// `def` itself is no call either.
fn elixir_definition(node: Node, text: &str, around: &Surroundings) -> bool {
    let written = |node: Node| text.get(node.byte_range()).unwrap_or("");
    if ELIXIR_DEFINERS.contains(&written(node)) || ELIXIR_FORMS.contains(&written(node)) {
        return true;
    }
    // The ancestors above `node`: the head call, perhaps a `when`, the arguments, the definer.
    let ancestor = |level: usize| around.ancestor(node, level);
    if ancestor(0).is_none_or(|head| head.kind() != "call") {
        return false;
    }
    let mut level = 1;
    if ancestor(level).is_some_and(|node| node.kind() == "binary_operator") {
        level += 1;
    }
    ancestor(level)
        .filter(|node| node.kind() == "arguments")
        .and_then(|_| ancestor(level + 1))
        .filter(|node| node.kind() == "call")
        .and_then(|definer| definer.child_by_field_name("target"))
        .is_some_and(|target| ELIXIR_DEFINERS.contains(&written(target)))
}

/// A reference from the text of its `@name` capture: quotes and sigils dropped, a path
/// split into qualifier and last segment (a quoted path loses its file extension too).
fn reference(kind: &'static str, written: &str, node: Node, line_offset: u32) -> Option<Reference> {
    let trimmed = written.trim();
    let quoted = trimmed.starts_with(['"', '\'', '`', '<']);
    let cleaned = trimmed
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '<' | '>'))
        .trim_start_matches([':', '@', '$', '\\']);
    if cleaned.is_empty() || cleaned.len() > MAX_NAME || cleaned.contains(char::is_whitespace) {
        return None;
    }
    let (qualifier, name) = if quoted || (kind == "import" && cleaned.contains('/')) {
        split_file_path(cleaned)
    } else {
        split_path(cleaned)
    };
    if name.is_empty() || !name.chars().any(char::is_alphanumeric) {
        return None;
    }
    Some(Reference {
        name: name.to_string(),
        kind,
        line: node.start_position().row as u32 + 1 + line_offset,
        qualifier: qualifier.to_string(),
    })
}

/// Whether `node` comes right after a `.`, `->` or `::` token.
fn reached_through_token(node: Node, around: &Surroundings) -> bool {
    around
        .previous_sibling(node)
        .is_some_and(|previous| matches!(previous.kind(), "." | "->" | "::"))
}

/// The receiver of a call as written (`self`, `os.path`, `Store`), or `…` for a longer
/// expression: a call through something, whatever it is.
fn receiver_label(receiver: &str) -> String {
    let receiver = receiver.trim();
    if receiver.is_empty() || receiver.len() > 60 || receiver.contains(char::is_whitespace) {
        "…".to_string()
    } else {
        receiver.to_string()
    }
}

/// `("sharc.graph", "resolve")` from `sharc.graph.resolve`; also `::`, `\`, `:`.
fn split_path(path: &str) -> (&str, &str) {
    let trimmed = path.trim_end_matches(['.', ':', ';']);
    match trimmed.rfind(['.', ':', '\\']) {
        Some(at) => (
            trimmed[..at].trim_end_matches([':', '.', '\\']),
            &trimmed[at + 1..],
        ),
        None => ("", trimmed),
    }
}

/// `("./utils", "helpers")` from `./utils/helpers.js`; `("", "stdio")` from `stdio.h`.
fn split_file_path(path: &str) -> (&str, &str) {
    let trimmed = path.trim_end_matches('/');
    let (qualifier, file) = match trimmed.rfind('/') {
        Some(at) => (&trimmed[..at], &trimmed[at + 1..]),
        None => ("", trimmed),
    };
    let stem = match file.rfind('.') {
        Some(at) if at > 0 && file.len() - at <= 7 => &file[..at],
        _ => file,
    };
    (qualifier, stem)
}

/// Give each chunk the references on its lines: the innermost chunk holding a line (the
/// smallest span; a symbol before the class chunk around it) gets it.
pub(crate) fn assign(chunks: &mut [Chunk], references: Vec<Reference>) {
    let Some(last_line) = chunks.iter().map(|chunk| chunk.end_line).max() else {
        return;
    };
    // Paint each line with its owner, widest chunks first so that inner ones win.
    let mut order: Vec<usize> = (0..chunks.len()).collect();
    order.sort_by_key(|&index| {
        let chunk = &chunks[index];
        (
            std::cmp::Reverse(chunk.end_line - chunk.start_line),
            std::cmp::Reverse(index),
        )
    });
    let mut owners: Vec<Option<usize>> = vec![None; last_line as usize + 1];
    for index in order {
        let chunk = &chunks[index];
        for owner in &mut owners[chunk.start_line as usize..=chunk.end_line as usize] {
            *owner = Some(index);
        }
    }
    for reference in references {
        if let Some(Some(owner)) = owners.get(reference.line as usize) {
            chunks[*owner].references.push(reference);
        }
    }
}

#[cfg(test)]
mod tests;
