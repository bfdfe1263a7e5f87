//! The shape of a language table: what each syntax node means to the chunker.
//!
//! One driver (`driver.rs`) serves every language; a language file only says, node by node,
//! whether it is a symbol (a chunk), a container (context), a wrapper, or plain code.

use tree_sitter::Node;

use super::text::Source;

/// What the driver knows while classifying a node.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    /// The innermost enclosing scope is a class-like container (methods, constructors).
    pub in_class: bool,
    /// The short name of the innermost enclosing scope, if any.
    pub scope_name: Option<&'a str>,
    /// The node whose child is being classified (`None` for a node found inside a wrapper):
    /// `Node::parent` searches down from the root again, which costs a wide or deep tree
    /// dearly when every child asks.
    pub parent: Option<Node<'a>>,
}

/// How much of a test's title names its chunk (`it('matches a path', ...)`).
pub(crate) const TITLE_CHARS: usize = 120;

/// One language's table.
pub(crate) struct Spec {
    /// Line-comment prefix for context headers.
    pub comment: &'static str,
    /// What closes a header line, for languages with block comments only (OCaml's ` *)`).
    pub comment_end: &'static str,
    /// Classifies one node.
    pub classify: for<'t> fn(Node<'t>, &Source, Context) -> Role<'t>,
    /// Node kinds that attach to the symbol right after them (doc comments, attributes,
    /// decorators written as siblings).
    pub leading: &'static [&'static str],
    /// Node kinds whose text is a decorator/annotation/attribute of the symbol.
    pub decorators: &'static [&'static str],
    /// Child kinds that hold decorators (`modifiers` in Java and Kotlin).
    pub decorator_holders: &'static [&'static str],
    /// Shown instead of a body in a class chunk's one-line method summaries.
    pub elision: &'static str,
    /// Consecutive same-name definitions form one symbol (Haskell equations).
    pub merge_same_name: bool,
    /// Context reads outermost first and names the symbol itself (Go's
    /// `package auth > func Authenticate`).
    pub outer_first: bool,
    /// The grammar ends a definition with the comments that document the next one (F#'s
    /// `///` lines): they are cut off the symbol and lead into what follows.
    pub trailing_docs: bool,
    /// Scope names are absolute (Perl's `package A::B`): a container opens beside the scope
    /// a marker opened before it, not inside it.
    pub absolute_scopes: bool,
    /// Conditionals and the blocks of their branches (`if TYPE_CHECKING:`, `try:` ...
    /// `except ImportError:`, `if (!function_exists('f')) { ... }`): plain code, unless they
    /// hold definitions, which are then chunked in the scope around them.
    pub conditionals: &'static [&'static str],
}

/// What a node is to the chunker.
pub(crate) enum Role<'t> {
    /// Plain code: grouped into module chunks, or kept verbatim in its class chunk.
    Code,
    /// Look through: its children are classified in the same scope (`#ifdef`, ERROR nodes).
    Transparent,
    /// Wraps the real definition (`export`, decorators, `template<>`): the span and the
    /// decorators of the wrapper belong to the inner symbol.
    Wrap(Node<'t>),
    /// A scope that gives context: a class (own class-level chunk) or a namespace.
    Container(Container<'t>),
    /// A chunk of its own: function, method, type, macro.
    Symbol(Symbol<'t>),
    /// A declaration without a body, such as a TypeScript overload signature: it joins the
    /// chunk of the same-name symbol right after it, or else is plain code.
    Overload(String),
    /// Part of the enclosing container's declaration, written among its members (an
    /// Objective-C `@implementation`'s class name and superclass): not a member of its own.
    /// After a member (a parse error among the header's parts) it is plain code.
    Header,
    /// Opens a scope for the rest of its parent (`package auth`, C# `namespace X;`, the loose
    /// `class X {` tokens of a declaration the parser gave up on).
    Marker(Marker),
}

impl Role<'_> {
    /// Whether the node defines something: comments above attach to it, wrappers pass to it.
    pub fn defines(&self) -> bool {
        matches!(
            self,
            Role::Symbol(_) | Role::Container(_) | Role::Overload(_)
        )
    }
}

/// A class, interface, trait, impl, object, module or namespace.
pub(crate) struct Container<'t> {
    /// Chunk kind of the class-level chunk ("class", "interface", "impl", ...).
    pub kind: &'static str,
    /// First word of the context label ("class", "namespace", "impl", ...).
    pub keyword: &'static str,
    /// Short name, also the FQN segment.
    pub name: String,
    /// Overrides `"{keyword} {name}"` in context headers.
    pub label: Option<String>,
    /// The node holding the members; `None` when it has none.
    pub body: Option<Node<'t>>,
    /// Class-like: gets a class-level chunk with fields, constructor and method summaries.
    /// Otherwise namespace-like: context only, loose code becomes module chunks.
    pub class_like: bool,
}

/// A function, method, constructor, type or macro.
pub(crate) struct Symbol<'t> {
    pub kind: &'static str,
    /// Short name ("authenticate").
    pub name: String,
    /// FQN segments between the scope and the name ("Server" for Go's `(s *Server) Handle`).
    pub qualifier: Option<String>,
    /// Scopes written into the name, outermost first, as (keyword, name): C++'s
    /// `geo::Circle::area` is in `("namespace", "geo")`, `("class", "Circle")`. The context
    /// line names them like enclosing scopes and the FQN includes them.
    pub scopes: Vec<(&'static str, String)>,
    /// The body, split at its statements when the symbol is too big.
    pub body: Option<Node<'t>>,
    /// The symbol's own context label, for `outer_first` languages ("func Authenticate").
    pub label: Option<String>,
}

/// A scope that starts at this node and runs to the end of its parent.
pub(crate) struct Marker {
    pub name: String,
    pub label: String,
    /// Its members are methods (a class), not functions; it still gets no class-level chunk.
    pub class_like: bool,
}

impl<'t> Symbol<'t> {
    pub fn role(kind: &'static str, name: String, body: Option<Node<'t>>) -> Role<'t> {
        Role::Symbol(Symbol {
            kind,
            name,
            qualifier: None,
            scopes: Vec::new(),
            body,
            label: None,
        })
    }
}

impl<'t> Container<'t> {
    /// A class-like container.
    pub fn class(
        kind: &'static str,
        keyword: &'static str,
        name: String,
        body: Option<Node<'t>>,
    ) -> Role<'t> {
        Role::Container(Container {
            kind,
            keyword,
            name,
            label: None,
            body,
            class_like: true,
        })
    }

    /// A namespace-like container.
    pub fn namespace(keyword: &'static str, name: String, body: Option<Node<'t>>) -> Role<'t> {
        Role::Container(Container {
            kind: "namespace",
            keyword,
            name,
            label: None,
            body,
            class_like: false,
        })
    }
}

/// The text of `node`'s `field` child, on one line.
pub(crate) fn field_text(node: Node, field: &str, source: &Source) -> Option<String> {
    node.child_by_field_name(field)
        .map(|child| node_text(child, source))
}

/// The text of `node` on one line, at most 200 chars.
pub(crate) fn node_text(node: Node, source: &Source) -> String {
    super::text::collapse(source.slice(node.start_byte(), node.end_byte()), 200)
}

/// The name field, or `<anonymous>`.
pub(crate) fn name_of(node: Node, source: &Source) -> String {
    field_text(node, "name", source).unwrap_or_else(|| "<anonymous>".to_string())
}

/// The first named child of one of `kinds`.
pub(crate) fn child_of_kind<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let found = node
        .named_children(&mut cursor)
        .find(|child| kinds.contains(&child.kind()));
    found
}
