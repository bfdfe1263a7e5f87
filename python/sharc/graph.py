"""The code graph: who calls, imports, inherits or names what, resolved by name.

The Rust core records, per chunk, the names it references (`sharc._core.Reference`: calls,
imports, types, inheritance); the manifest keeps them in its `refs` table, next to the chunks
that define names. Nothing here parses code. A reference is resolved to the definitions of its
name, each weighed by where it lies as seen from the reference:

    same file > same directory > a module the file imports > anywhere else

plus a share for "something outside the index" (a library, a builtin), so that a name defined
once in the repository but called through an unknown receiver is not presented as a sure edge.
The weights become confidences that sum to at most 1 over a reference's candidates; a
reference is `ambiguous` when its best candidate is below `GraphSettings.sure`. Nothing is
guessed: an ambiguous edge lists every candidate it may mean.

Stages, top to bottom: find the target definitions (`definitions`), gather reference sites
(`sites`), weigh candidates per site (`resolve`), shape callers / callees / call graphs.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from sharc.errors import GraphNotBuiltError
from sharc.graph_fit import (
    base_id,
    fqn_matches,
    in_enclosing_scope,
    kind_fits,
    qualified_base,
    reachable,
    receiver_names_class,
)
from sharc.manifest import DefinitionRow, Manifest, ReferenceRow
from sharc.search_types import SearchResult

#: Languages whose names reach one another.
FAMILIES = (
    frozenset({"javascript", "typescript", "tsx", "vue", "svelte"}),
    frozenset({"c", "cpp", "objc"}),
    frozenset({"ocaml", "ocaml_interface"}),
    frozenset({"java", "kotlin", "scala"}),
)
#: How many levels of passed-through files (`passes_through`) a file's imports are followed.
INCLUDE_DEPTH = 2
HEADER_EXTENSIONS = frozenset({".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tpp"})
SCRIPT_EXTENSIONS = frozenset({".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"})
SAME_FILE, SAME_DIRECTORY, IMPORTED, ELSEWHERE = (
    "same file", "same directory", "imported", "elsewhere",
)


@dataclass(frozen=True)
class GraphSettings:
    """The tunable numbers of resolution, in one place."""

    same_file: float = 16.0
    same_directory: float = 6.0
    imported: float = 4.0
    elsewhere: float = 1.0
    #: The weight of "not defined in the index" (a library, a builtin).
    outside: float = 1.0
    #: A call's receiver names the candidate's class (`Store.create()`, `self.load()` in the
    #: same class, `store.load()` for `Store.load`), a base names it with its qualifier
    #: (`include ActiveSupport::Callbacks`), or a bare base lies beside it in a namespace
    #: around the reference (`sharc.graph_fit`): its weight is multiplied by this.
    receiver: float = 4.0
    #: A candidate at least this confident is the reference's meaning; below, it is ambiguous.
    sure: float = 0.75


@dataclass(frozen=True)
class Definition:
    """A chunk that defines a name."""

    id: str
    path: str
    kind: str
    symbol: str
    fqn: str
    start_line: int
    end_line: int

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


@dataclass(frozen=True)
class Candidate:
    """A definition a reference may mean, how sure that is (0-1), and why (its scope)."""

    definition: Definition
    confidence: float
    scope: str


@dataclass(frozen=True)
class Edge:
    """One reference site: the chunk that makes it, the name, and what it may mean."""

    path: str
    line: int
    name: str
    kind: str
    #: The chunk the reference is in (None when that chunk is gone, mid-update).
    source: Definition | None
    candidates: tuple[Candidate, ...]
    #: The confidence that this site means the definition asked about (callers, refs), or
    #: the best candidate's (callees).
    confidence: float
    ambiguous: bool

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class CallGraphNode:
    """A definition in a call graph, with the edges out of it (callees) or into it (callers)."""

    definition: Definition
    depth: int
    edges: tuple[Edge, ...] = field(default=())


def _definition(row: DefinitionRow) -> Definition:
    return Definition(row.chunk_id, row.path, row.kind, row.symbol, row.fqn, row.start_line,
                      row.end_line)


class Graph:
    """Reads the code graph of one index (`Index.graph()`)."""

    def __init__(self, manifest: Manifest, settings: GraphSettings | None = None) -> None:
        self.manifest = manifest
        self.settings = settings or GraphSettings()
        self._languages: dict[str, str] | None = None
        self._imports: dict[str, tuple[str, ...]] = {}
        self._passing: dict[str, list[str]] | None = None

    def check(self) -> None:
        """Raise `GraphNotBuiltError` if the index holds no graph yet."""
        if not self.manifest.has_references():
            raise GraphNotBuiltError(
                "this index was built before the code graph; run `sharc index` to fill it"
                " (files are read again, nothing is embedded again)"
            )

    # -- targets ---------------------------------------------------------------------------

    def definitions(self, symbol: str, *, path: str | None = None) -> list[Definition]:
        """The definitions `symbol` names: a short name (`load`), a dotted suffix of a fully
        qualified name (`Store.load`), or a chunk id (`src/store.py::Store.load`)."""
        if "::" in symbol and (found := self.manifest.definitions_by_id([symbol])):
            return [_definition(row) for row in found]
        dotted = symbol.split("::")[-1]
        name = dotted.rsplit(".", 1)[-1]
        found = [
            _definition(row) for row in self.manifest.definitions_named([name])
            if fqn_matches(row.fqn, dotted) and (path is None or row.path.startswith(path))
        ]
        return found

    # -- resolution ------------------------------------------------------------------------

    def resolve(
        self, reference: ReferenceRow, definitions: Sequence[Definition]
    ) -> tuple[Candidate, ...]:
        """Weigh the definitions of `reference.name` as seen from the reference's file."""
        language = self._language_map().get(reference.path, "")
        fitting = [
            d for d in definitions
            if kind_fits(reference.kind, d.kind) and self._same_family(reference.path, d.path)
            and reachable(reference, language, d.kind)
        ]
        # A base or type named with its qualifier (`include ActiveSupport::Callbacks`) means
        # the definitions whose qualified name ends so, where there are any.
        qualified = qualified_base(reference)
        fitting = [d for d in fitting if fqn_matches(d.fqn, qualified)] or fitting
        if not fitting:
            return ()
        imports = self._imports_of(reference.path)
        scored = [(d, *self._weigh_reference(reference, imports, d, qualified)) for d in fitting]
        total = sum(weight for _, weight, _ in scored) + self.settings.outside
        candidates = [
            Candidate(d, round(weight / total, 3), scope) for d, weight, scope in scored
        ]
        candidates.sort(key=lambda c: (-c.confidence, c.definition.path, c.definition.start_line))
        return tuple(candidates)

    def _weigh(
        self, path: str, imports: tuple[str, ...], definition: Definition
    ) -> tuple[float, str]:
        s = self.settings
        if definition.path == path:
            return s.same_file, SAME_FILE
        if posixpath.dirname(definition.path) == posixpath.dirname(path):
            return s.same_directory, SAME_DIRECTORY
        if _imported(definition.path, imports):
            return s.imported, IMPORTED
        return s.elsewhere, ELSEWHERE

    def _weigh_reference(
        self, reference: ReferenceRow, imports: tuple[str, ...], definition: Definition,
        qualified: str,
    ) -> tuple[float, str]:
        """`_weigh`, times `GraphSettings.receiver` where the reference's own words point at
        the definition; `qualified` is the dotted name a base names (`qualified_base`)."""
        weight, scope = self._weigh(reference.path, imports, definition)
        if receiver_names_class(reference, definition.fqn):
            return weight * self.settings.receiver, f"{scope}, receiver"
        if qualified and fqn_matches(definition.fqn, qualified):
            return weight * self.settings.receiver, f"{scope}, qualified"
        if in_enclosing_scope(reference, definition.fqn):
            return weight * self.settings.receiver, f"{scope}, enclosing"
        return weight, scope

    def _imports_of(self, path: str) -> tuple[str, ...]:
        """The module paths a file imports, as `a/b/c` tails, and what the files it imports
        that pass their imports through import (`_with_included`)."""
        if path not in self._imports:
            tails = self._with_included(path, self._import_tails([path]))
            self._imports[path] = tuple(sorted(tails))
        return self._imports[path]

    def _import_tails(self, paths: Sequence[str]) -> set[str]:
        rows = self.manifest.references_of_paths(paths, kinds=["import"])
        return {_module_tail(r) for r in rows} - {""}

    def _with_included(self, path: str, tails: set[str]) -> set[str]:
        """`tails` with the imports of the indexed files they name that pass them through
        (`passes_through`), `INCLUDE_DEPTH` levels down: a test that includes `common.h`,
        which includes `../cJSON.h`, calls what `cJSON.c` defines; one that imports
        `../source/index.js`, which re-exports `./utils/type-guards.js`, calls its
        `isHTTPError`."""
        found, frontier, seen = set(tails), set(tails), {path}
        for _ in range(INCLUDE_DEPTH):
            named = [known for known in self._passing_named(frontier) if known not in seen]
            if not named:
                break
            seen.update(named)
            frontier = self._import_tails(named) - found
            found |= frontier
        return found

    def _passing_named(self, tails: Iterable[str]) -> list[str]:
        """The indexed files that pass their imports through whose path, less its extension,
        ends with a tail (a barrel `index` is named by its directory too)."""
        if self._passing is None:
            self._passing = defaultdict(list)
            for known in filter(passes_through, self._language_map()):
                stem = posixpath.splitext(known)[0]
                self._passing[posixpath.basename(stem)].append(known)
                if posixpath.basename(stem) == "index":
                    self._passing[posixpath.basename(posixpath.dirname(stem))].append(known)
        return [
            known for tail in tails
            for known in self._passing.get(tail.rsplit("/", 1)[-1], ())
            if any(("/" + name).endswith("/" + tail) for name in
                   (posixpath.splitext(known)[0], posixpath.dirname(known)))
        ]

    def _same_family(self, a: str, b: str) -> bool:
        languages = self._language_map()
        first, second = languages.get(a), languages.get(b)
        if first is None or second is None or first == second:
            return True
        return any(first in family and second in family for family in FAMILIES)

    def _language_map(self) -> dict[str, str]:
        if self._languages is None:
            self._languages = {p: f.language for p, f in self.manifest.files().items()}
        return self._languages

    # -- queries ---------------------------------------------------------------------------

    def references(
        self, symbol: str, *, kinds: Sequence[str] = (), path: str | None = None
    ) -> list[Edge]:
        """Every site that refers to `symbol`'s name (of `kinds`, if given), each with what it
        may mean; `confidence` is how sure the site means one of `symbol`'s definitions."""
        self.check()
        targets = self.definitions(symbol, path=path)
        name = symbol.split("::")[-1].rsplit(".", 1)[-1]
        rows = self.manifest.references_named(name, kinds)
        return self._edges_to(rows, targets, name, precise=symbol != name)

    def callers(self, symbol: str, *, path: str | None = None) -> list[Edge]:
        """The call sites of `symbol`, most confident first."""
        edges = self.references(symbol, kinds=["call"], path=path)
        return sorted(edges, key=lambda e: (-e.confidence, e.path, e.line))

    def callees(self, symbol: str, *, path: str | None = None) -> list[Edge]:
        """The calls made by `symbol`'s definitions, in source order, each resolved."""
        self.check()
        return self._callees_of(self.definitions(symbol, path=path))

    def call_graph(
        self, symbol: str, *, depth: int = 2, direction: str = "callees", path: str | None = None,
        limit: int = 200,
    ) -> list[CallGraphNode]:
        """Breadth-first over calls from (`callees`) or to (`callers`) `symbol`, up to `depth`
        hops, following only sure edges (ambiguous ones are listed, not followed)."""
        self.check()
        if direction not in ("callees", "callers"):
            raise ValueError("direction is 'callees' or 'callers'")
        frontier = self.definitions(symbol, path=path)
        seen = {d.id for d in frontier}
        nodes: list[CallGraphNode] = []
        for level in range(max(depth, 0) + 1):
            following: list[Definition] = []
            for definition in frontier:
                edges = tuple(self._neighbours(definition, direction)) if level < depth else ()
                nodes.append(CallGraphNode(definition, level, edges))
                for next_definition in _sure_ends(edges, direction):
                    if next_definition.id not in seen and len(seen) < limit:
                        seen.add(next_definition.id)
                        following.append(next_definition)
            frontier = following
        return nodes

    def _neighbours(self, definition: Definition, direction: str) -> list[Edge]:
        if direction == "callees":
            return self._callees_of([definition])
        rows = self.manifest.references_named(definition.symbol, ["call"])
        edges = self._edges_to(rows, [definition], definition.symbol, precise=True)
        return [e for e in edges if e.confidence > 0]

    def _callees_of(self, definitions: Sequence[Definition]) -> list[Edge]:
        ids = [d.id for d in definitions]
        rows = [r for r in self.manifest.references_of_chunks(ids, parts=True) if r.kind == "call"]
        names = sorted({r.name for r in rows})
        by_name = self._definitions_by_name(names)
        sources = {d.id: d for d in definitions}
        edges = []
        for row in rows:
            candidates = self.resolve(row, by_name.get(row.name, ()))
            best = candidates[0].confidence if candidates else 0.0
            edges.append(Edge(
                row.path, row.line, row.name, row.kind, sources.get(base_id(row.chunk_id)),
                candidates, best, self._ambiguous(candidates),
            ))
        edges.sort(key=lambda e: (e.path, e.line, e.name))
        return edges

    def _definitions_by_name(self, names: Sequence[str]) -> dict[str, list[Definition]]:
        grouped: dict[str, list[Definition]] = defaultdict(list)
        for row in self.manifest.definitions_named(names):
            grouped[row.symbol].append(_definition(row))
        return grouped

    def _edges_to(
        self, rows: Iterable[ReferenceRow], targets: Sequence[Definition], name: str, *,
        precise: bool,
    ) -> list[Edge]:
        """Edges for reference `rows` to `name`, each with its confidence of meaning one of
        `targets`; with a `precise` symbol, sites that surely mean another definition of the
        same name (or that cannot mean any of `targets`) are left out."""
        rows = list(rows)
        everything = self._definitions_by_name([name]).get(name, [])
        target_ids = {t.id for t in targets}
        sources = self._sources([r.chunk_id for r in rows])
        edges = []
        for row in rows:
            candidates = self.resolve(row, everything)
            share = round(sum(c.confidence for c in candidates if c.definition.id in target_ids), 3)
            if precise and share == 0.0:
                continue
            edges.append(Edge(
                row.path, row.line, row.name, row.kind, sources.get(row.chunk_id), candidates,
                share, self._ambiguous(candidates),
            ))
        edges.sort(key=lambda e: (e.path, e.line))
        return edges

    def _ambiguous(self, candidates: Sequence[Candidate]) -> bool:
        """Whether no candidate is sure enough to be the reference's meaning (a name with no
        definition here is not ambiguous: it is outside the index)."""
        return bool(candidates) and candidates[0].confidence < self.settings.sure

    def neighbours(self, chunk_id: str, *, limit: int = 5) -> tuple[list[str], list[str]]:
        """What calls the chunk `chunk_id` and what it calls, as short labels
        (`Store.load (pkg/store.py:13)`), most confident first; `?` marks ambiguous edges."""
        found = self.manifest.definitions_by_id([chunk_id])
        if not found or not found[0].symbol:
            return [], []
        definition = _definition(found[0])
        callers = sorted(self._neighbours(definition, "callers"), key=lambda e: -e.confidence)
        called_by = [
            f"{_label(e.source)} ({e.location}){'?' if e.ambiguous else ''}"
            for e in callers if e.source is not None
        ]
        calls: list[str] = []
        for edge in sorted(self._callees_of([definition]), key=lambda e: -e.confidence):
            if edge.candidates:
                best = edge.candidates[0].definition
                mark = "?" if edge.ambiguous else ""
                label = f"{_label(best)} ({best.path}:{best.start_line}){mark}"
                if label not in calls:
                    calls.append(label)
        return list(dict.fromkeys(called_by))[:limit], calls[:limit]

    def _sources(self, chunk_ids: Sequence[str]) -> dict[str, Definition]:
        rows = self.manifest.definitions_by_id(chunk_ids)
        return {row.chunk_id: _definition(row) for row in rows}


def passes_through(path: str) -> bool:
    """Whether a file that imports `path` reaches what `path` imports: a C or C++ header (an
    include pastes its text) or a JavaScript or TypeScript directory's `index`, the barrel
    that re-exports its modules."""
    stem, extension = posixpath.splitext(path)
    return extension in HEADER_EXTENSIONS or (
        extension in SCRIPT_EXTENSIONS and posixpath.basename(stem) == "index"
    )


def _sure_ends(edges: Iterable[Edge], direction: str) -> Iterator[Definition]:
    for edge in edges:
        if edge.ambiguous:
            continue
        if direction == "callees" and edge.candidates:
            yield edge.candidates[0].definition
        elif direction == "callers" and edge.source is not None:
            yield edge.source


def _label(definition: Definition) -> str:
    return definition.fqn or definition.symbol or f"<module {definition.path}>"


def _module_tail(row: ReferenceRow) -> str:
    """The module an import names, as a path tail: `sharc/graph` from `graph` imported
    through `sharc`, `utils/helpers` from `./utils/helpers`, `std/fmt` from `std::fmt`."""
    if "/" in row.qualifier:
        path = f"{row.qualifier}/{row.name}"
    else:
        path = f"{row.qualifier}.{row.name}" if row.qualifier else row.name
        for separator in ("::", "\\", ":", "."):
            path = path.replace(separator, "/")
    return "/".join(p for p in path.split("/") if p not in ("", ".", ".."))


def _imported(path: str, imports: tuple[str, ...]) -> bool:
    stem = "/" + posixpath.splitext(path)[0]
    directory = "/" + posixpath.dirname(path)
    return any(stem.endswith("/" + tail) or directory.endswith("/" + tail) for tail in imports)


# -- links between files, for ranking (`sharc.ranking.graph`) ------------------------------

#: A name defined in more candidate files than this links none of them (`new`, `run`).
LINK_AMBIGUITY = 3


def linked_files(
    manifest: Manifest, seeds: Sequence[str], files: Mapping[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    """Per seed file, the files of `files` (a search's candidate files, each with the names
    its candidates define) that a reference links to it, either way: one names a name the
    other defines (as the called name, or as the receiver's class: `Manager.new`) or imports
    it. Names resolve only among `files`, and one defined in more than `LINK_AMBIGUITY` of
    them links nothing: a ranking hint read from the seeds' references and the references to
    the seeds' names, not an edge presented as fact."""
    owners: dict[str, list[str]] = defaultdict(list)
    for path, names in files.items():
        for name in names:
            owners[name].append(path)
    linked: dict[str, set[str]] = {seed: set() for seed in seeds}
    for row in manifest.references_of_paths(seeds):
        if row.kind == "import":
            tail = _module_tail(row)
            linked[row.path].update(p for p in files if tail and _imported(p, (tail,)))
            continue
        for name in (row.name, _receiver_class(row.qualifier)):
            if 0 < len(owners.get(name, ())) <= LINK_AMBIGUITY:
                linked[row.path].update(owners[name])
    others = [path for path in files if path not in linked]
    wanted = {name for seed in seeds for name in files.get(seed, ())}
    wanted.update(posixpath.splitext(posixpath.basename(seed))[0] for seed in seeds)
    for row in manifest.references_in_paths(sorted(wanted), others):
        for seed in seeds:
            if row.kind == "import":
                tail = _module_tail(row)
                hit = bool(tail) and _imported(seed, (tail,))
            else:
                hit = row.name in files.get(seed, ()) and len(owners[row.name]) <= LINK_AMBIGUITY
            if hit:
                linked[seed].add(row.path)
    return {seed: frozenset(paths - {seed}) for seed, paths in linked.items()}


def _receiver_class(qualifier: str) -> str:
    """The class a call's receiver names (`Sidekiq::Manager` -> Manager), or ''."""
    last = re.split(r"\.|::|->|:", qualifier)[-1].strip("@$_") if qualifier else ""
    return last if last[:1].isupper() else ""


def with_neighbours(
    results: list[SearchResult], manifest: Manifest, top: int
) -> list[SearchResult]:
    """Search results whose `top` first (those with a symbol) carry what calls them and what
    they call."""
    from dataclasses import replace

    graph = Graph(manifest)
    shaped = []
    for rank, result in enumerate(results):
        if rank < top and result.symbol:
            called_by, calls = graph.neighbours(result.id)
            result = replace(result, called_by=tuple(called_by), calls=tuple(calls))
        shaped.append(result)
    return shaped
