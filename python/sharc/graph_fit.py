"""Whether a definition can be what a reference means, and what in the reference points at it.

The code graph (`sharc.graph`) weighs the definitions of a reference's name by where they lie;
these rules come first and last: a definition of a kind the reference cannot land on (a call on
a module, a base class that is a function) or out of reach (a bare call of a method where
methods need a receiver) is no candidate, and a candidate that the reference's own words point
at (a call's receiver naming its class, a base named with its qualifier, a bare base beside it
in an enclosing namespace) weighs more. Each rule reads a reference row and plain strings.
"""

from __future__ import annotations

import re

from sharc.manifest import ReferenceRow

#: Chunk kinds a call cannot land on.
NOT_CALLABLE = frozenset({
    "module", "namespace", "interface", "trait", "type", "enum", "protocol", "template",
    "style", "section", "impl", "extension",
})
#: Chunk kinds a type or inheritance reference cannot land on.
NOT_A_TYPE = frozenset({
    "module", "function", "method", "constructor", "macro", "template", "style",
})
#: Languages where a method is only reached through a receiver (`self.f()`, `this.f()`,
#: `s.F()`, `Type::f()`): a bare `f()` is never one of their methods. (Not Zig, where a
#: struct's functions call one another bare; not the languages with an implicit `this`.)
BARE_CALLS_ARE_FUNCTIONS = frozenset({
    "python", "javascript", "typescript", "tsx", "vue", "svelte", "go", "rust", "c", "php",
})
#: Receivers that name the caller's own object or class.
SELF_RECEIVERS = frozenset({"self", "this", "cls", "$this", "Self", "static", "@"})
#: What a class-like chunk's id ends with after its qualified name.
_CONTAINER_SUFFIXES = ("::class", "::object")


def fqn_matches(fqn: str, dotted: str) -> bool:
    """Whether a qualified name is the one asked for, or ends with it; a JavaScript method
    is asked for without `prototype` too (`Reply.send` for `Reply.prototype.send`)."""
    return "." not in dotted or any(
        name == dotted or name.endswith("." + dotted) for name in (fqn, without_prototype(fqn))
    )


def without_prototype(fqn: str) -> str:
    """A JavaScript method's qualified name as its class's: `Reply.prototype.send` is
    `Reply.send`."""
    return fqn.replace(".prototype.", ".")


def kind_fits(reference_kind: str, definition_kind: str) -> bool:
    """Whether a reference of one kind can land on a definition of the other."""
    if reference_kind == "call":
        return definition_kind not in NOT_CALLABLE
    if reference_kind == "inherit":  # a mixin is a module (Ruby's `include Comparable`)
        return definition_kind not in NOT_A_TYPE or definition_kind == "module"
    if reference_kind == "type":
        return definition_kind not in NOT_A_TYPE
    return True


def reachable(reference: ReferenceRow, language: str, definition_kind: str) -> bool:
    """A bare call cannot reach a method where methods need a receiver."""
    bare_call = reference.kind == "call" and not reference.qualifier
    return not (
        bare_call and language in BARE_CALLS_ARE_FUNCTIONS
        and definition_kind in ("method", "constructor")
    )


def qualified_base(reference: ReferenceRow) -> str:
    """The dotted name a base class, mixin or type names with its qualifier
    (`ActiveSupport::Callbacks` -> `ActiveSupport.Callbacks`, PHP's `\\App\\Models\\User`
    -> `App.Models.User`), or '' where it has none."""
    if reference.kind not in ("inherit", "type") or reference.qualifier in ("", "…"):
        return ""
    return ".".join([*filter(None, re.split(r"::|\.|\\", reference.qualifier)), reference.name])


def in_enclosing_scope(reference: ReferenceRow, definition_fqn: str) -> bool:
    """Whether a bare base class, mixin or type names the definition beside it in a namespace
    or class around the reference, as the languages' lexical lookup finds it first: Ruby's
    `include Callbacks` inside `class ActiveRecord::Base` is `ActiveRecord::Callbacks`."""
    if reference.kind not in ("inherit", "type") or reference.qualifier:
        return False
    scope = scope_of(without_prototype(definition_fqn))
    around = chunk_fqn(reference.chunk_id)
    return bool(scope) and (around == scope or around.startswith(scope + "."))


def scope_of(fqn: str) -> str:
    """The class (or module) a member's qualified name puts it in: JavaScript's
    `Reply.prototype.send` is `Reply`'s, as `Reply.send` is."""
    fqn = without_prototype(fqn)
    return fqn.rsplit(".", 1)[0] if "." in fqn else ""


def chunk_fqn(chunk_id: str) -> str:
    """The qualified name in a chunk's id (`lib/base.rb::ActiveRecord.Base::class#part2` ->
    `ActiveRecord.Base`); '' for a file's top-level code (`path::<module>`)."""
    named = base_id(chunk_id).split("::", 1)[1] if "::" in chunk_id else ""
    for suffix in _CONTAINER_SUFFIXES:
        named = named.removesuffix(suffix)
    return "" if named.startswith("<") else named.split("#", 1)[0]


def folded(name: str) -> str:
    """A name in one case without underscores: `declaration_list` and `DeclarationList` are
    both `declarationlist`."""
    return name.replace("_", "").lower()


def receiver_names_class(reference: ReferenceRow, definition_fqn: str) -> bool:
    """Whether a call's receiver points at the candidate's class: `self`/`this` inside that
    class, or a receiver whose last segment is the class name (any case, `_` dropped: a
    variable `declaration_list` holds a `DeclarationList`, `reply` a `Reply`)."""
    receiver = reference.qualifier
    scope = scope_of(definition_fqn)
    if reference.kind != "call" or not receiver or receiver == "…" or not scope:
        return False
    if receiver in SELF_RECEIVERS:
        caller = base_id(reference.chunk_id).split("::", 1)[-1]
        return scope_of(caller) == scope
    last = re.split(r"\.|::|->|:", receiver)[-1]
    last = folded(re.sub(r"\(.*\)$", "", last).strip("$@"))
    return bool(last) and last == folded(scope.rsplit(".", 1)[-1])


def base_id(chunk_id: str) -> str:
    """A chunk's id without the part the chunker cut it into (`#part2`)."""
    return chunk_id.split("#part", 1)[0]
