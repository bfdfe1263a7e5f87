"""Rank fusion, query routing and result shaping: pure functions over plain lists, no I/O.

A search runs two arms, `keyword` (BM25) and `semantic` (vectors). `fuse` combines them: by
default a convex combination of each arm's scores, min-max normalised over its top hits
(`score_fusion`); weighted reciprocal rank fusion (`reciprocal_rank_fusion`) is the alternative.
The keyword arm's share depends on the query: an identifier (`getUserById`, `os.path.join`)
leans on keywords, a question in words on vectors. Then `rerank` pushes tests, generated and
vendored code, docs and config down unless the query asks for them, lifts the chunk that
defines the identifier the query names and, in a fused search, the chunks whose names are made
of the query's words; `diversify` keeps one file from filling the top.

Every tunable number lives in `FusionWeights`.
"""

from __future__ import annotations

import enum
import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

__all__ = [
    "DEFAULT_WEIGHTS",
    "KEYWORD",
    "SEMANTIC",
    "ArmWeights",
    "Candidate",
    "FusionWeights",
    "QueryIntent",
    "QueryKind",
    "RankedChunk",
    "classify_query",
    "diversify",
    "fuse",
    "is_generated_path",
    "is_test_path",
    "is_vendored_path",
    "normalize_scores",
    "query_identifiers",
    "reciprocal_rank_fusion",
    "rerank",
    "rerank_adjustments",
    "score_fusion",
    "settled",
    "wants_config",
    "wants_docs",
    "wants_tests",
    "weights_for",
]

KEYWORD = "keyword"
SEMANTIC = "semantic"

#: Chunk tiers from `sharc._core`: 1 AST code, 2 docs, 3 config, 4 other code.
TIER_DOCS = 2
TIER_CONFIG = 3

T = TypeVar("T")
C = TypeVar("C", bound="RankedChunk")


class QueryKind(enum.Enum):
    """What a query looks like, which decides how much each arm counts."""

    IDENTIFIER = "identifier"
    """One code-shaped token: `getUserById`, `HTTPException`, `os.path.join`, `parse()`."""
    NATURAL_LANGUAGE = "natural_language"
    """Plain words: `how are routes registered`."""
    MIXED = "mixed"
    """Words and identifiers together (`where is getUserById called`), or one plain word."""


#: `score`: convex combination of normalised scores; `rrf`: reciprocal rank fusion.
FUSION_METHODS = ("score", "rrf")


@dataclass(frozen=True, slots=True)
class FusionWeights:
    """How the arms are combined per query kind, and the reranking multipliers.

    Tuned on dev data with `python -m benches.quality.tune` (MRR@10 over CoSQA dev, the
    CodeSearchNet-style sets and the hand-written queries; better single arm 50.5 / 46.5 /
    60.4). No natural-language keyword share wins everywhere alone: CoSQA's short web queries
    want little (0.25: 50.6 / 50.1 / 56.8), docstring sentences and repository questions more
    (0.4: 48.0 / 52.6 / 60.0). Lifting the chunks whose names are made of the query's words
    (`name_words_lift`) gives the repository questions what a larger share gave them, so the
    share can stay small: 0.23 with a 0.3 lift gives 50.3 / 52.2 / 61.4 (0.35 without it,
    the previous default, 48.8 / 52.1 / 59.0). RRF at its best (`method="rrf"`, k=20, shares
    0.2 / 0.44 / 0.74, no lift) gave 49.9 / 49.1 / 58.2. Keyword-score features (top BM25
    score, query-term IDF, top cosine) did not predict the better share per query.
    """

    #: One of `FUSION_METHODS`.
    method: str = "score"
    #: The keyword arm's share of the fused score per query kind, 0-1; vectors get the rest.
    identifier_keyword: float = 0.7
    natural_keyword: float = 0.23
    mixed_keyword: float = 0.5
    #: The RRF constant (method `rrf` only): larger flattens the difference between ranks.
    k: int = 20
    #: Score fusion: each arm's scores are scaled so its best hit is 1 and its hit at this
    #: rank (or its last, if fewer) is 0.
    floor_rank: int = 100
    #: Multipliers applied unless the query asks for that kind of file.
    test_factor: float = 0.6
    generated_factor: float = 0.5
    vendored_factor: float = 0.5
    docs_factor: float = 0.75
    config_factor: float = 0.75
    #: For the chunk that defines the identifier the query names (a case-insensitive match
    #: gets half the lift).
    symbol_match_factor: float = 1.6
    #: Fused searches only: a chunk whose symbol name is made of the query's words
    #: (`betweenness_centrality` for "betweenness centrality of nodes") rises by up to this
    #: fraction (`name_words_match`).
    name_words_lift: float = 0.3

    def __post_init__(self) -> None:
        if self.method not in FUSION_METHODS:
            raise ValueError(f"fusion method must be one of {FUSION_METHODS}, got {self.method!r}")
        shares = (self.identifier_keyword, self.natural_keyword, self.mixed_keyword)
        if not all(0.0 <= share <= 1.0 for share in shares):
            raise ValueError(f"keyword shares must lie in 0-1, got {shares}")
        if self.name_words_lift < 0.0:
            raise ValueError(f"name_words_lift must not be negative, got {self.name_words_lift}")

    @property
    def max_factor(self) -> float:
        """The largest factor `rerank_adjustments` can apply: how far a score can rise (the
        factors above 1 compound)."""
        factors = (
            self.symbol_match_factor,
            1.0 + self.name_words_lift,
            self.test_factor,
            self.generated_factor,
            self.vendored_factor,
            self.docs_factor,
            self.config_factor,
        )
        return math.prod(factor for factor in factors if factor > 1.0)

    def arms(self, kind: QueryKind) -> dict[str, float]:
        """The `{arm: weight}` mapping for a query of `kind`."""
        return weights_for(kind, self).as_dict()


DEFAULT_WEIGHTS = FusionWeights()


@dataclass(frozen=True, slots=True)
class ArmWeights:
    """The arm weights and RRF constant for one kind of query."""

    keyword: float
    semantic: float
    k: int

    def weight(self, arm: str) -> float:
        """The weight of `arm` (`keyword` or `semantic`); 1.0 for an arm it does not know."""
        return {KEYWORD: self.keyword, SEMANTIC: self.semantic}.get(arm, 1.0)

    def as_dict(self) -> dict[str, float]:
        return {KEYWORD: self.keyword, SEMANTIC: self.semantic}


def weights_for(kind: QueryKind, weights: FusionWeights = DEFAULT_WEIGHTS) -> ArmWeights:
    """Identifier queries lean on the keyword arm, natural language on the semantic arm."""
    if kind is QueryKind.IDENTIFIER:
        keyword = weights.identifier_keyword
    elif kind is QueryKind.NATURAL_LANGUAGE:
        keyword = weights.natural_keyword
    else:
        keyword = weights.mixed_keyword
    return ArmWeights(keyword=keyword, semantic=1.0 - keyword, k=weights.k)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A plain result for callers (and tests) without a manifest record at hand."""

    id: str
    path: str
    symbol: str = ""
    fqn: str = ""
    tier: int = 1
    generated: bool = False


# Fusion


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int = 60
) -> list[tuple[str, float]]:
    """Weighted RRF: each id scores the sum over arms of `weight / (k + rank)`, rank from 1.

    An arm missing from `weights` counts 1.0; an id repeated within one arm counts once, at its
    best rank. Ties keep the order in which ids first appear, arms taken heaviest first.
    """
    if k < 0:
        raise ValueError(f"k must not be negative, got {k}")
    scores: dict[str, float] = {}
    arms = sorted(rankings, key=lambda arm: -weights.get(arm, 1.0))
    for arm in arms:
        weight = weights.get(arm, 1.0)
        seen: set[str] = set()
        for rank, item in enumerate(rankings[arm], start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def score_fusion(
    hits: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float],
    floor_rank: int = 100,
    exhausted_floor: Mapping[str, float] | None = None,
) -> list[tuple[str, float]]:
    """Convex combination of each arm's min-max normalised scores, 0-1, best first.

    Within an arm the best hit scores 1 and the hit at `floor_rank` scores 0; lower hits are
    clipped to 0, and a lone hit (or all-equal hits) scores 1. An arm with fewer hits has run
    out of matches: its floor is `exhausted_floor[arm]`, the score of a non-match (0 for BM25),
    or its last hit's score for an arm not named there. Each arm
    counts its weight divided by the total weight of the arms that returned hits, so a chunk at
    the top of every arm scores 1.0. An arm missing from `weights` counts 1.0; an id repeated
    within one arm counts once, at its best score. Ties keep first appearance, heaviest arm first.
    """
    if floor_rank < 1:
        raise ValueError(f"floor_rank must be at least 1, got {floor_rank}")
    ran = {arm: list(arm_hits) for arm, arm_hits in hits.items() if arm_hits}
    total = sum(max(0.0, weights.get(arm, 1.0)) for arm in ran)
    scores: dict[str, float] = {}
    if total <= 0:
        return []
    for arm in sorted(ran, key=lambda arm: -weights.get(arm, 1.0)):
        arm_hits = ran[arm]
        share = max(0.0, weights.get(arm, 1.0)) / total
        best = arm_hits[0][1]
        if len(arm_hits) < floor_rank and exhausted_floor and arm in exhausted_floor:
            floor = exhausted_floor[arm]
        else:
            floor = arm_hits[min(floor_rank, len(arm_hits)) - 1][1]
        spread = best - floor
        seen: set[str] = set()
        for item, raw in arm_hits:
            if item in seen:
                continue
            seen.add(item)
            normalised = min(1.0, max(0.0, (raw - floor) / spread)) if spread > 0 else 1.0
            scores[item] = scores.get(item, 0.0) + share * normalised
    return sorted(scores.items(), key=lambda pair: -pair[1])


def fuse(
    hits: Mapping[str, Sequence[tuple[str, float]]],
    kind: QueryKind,
    weights: FusionWeights = DEFAULT_WEIGHTS,
) -> list[tuple[str, float]]:
    """The arms' `(id, score)` hits, best first, fused for a query of `kind`: scores 0-1.

    With method `score` and both arms, `score_fusion` (a keyword list shorter than the floor
    rank has run out of matching chunks, so its floor is BM25's zero). With `rrf`, or a single
    arm (where only its order matters, and RRF's rank curve suits `rerank`'s factors best on
    the dev sets), `reciprocal_rank_fusion` over the ranks, its scores divided by the best it
    can give (`normalize_scores`).
    """
    arm_weights = {arm: weights_for(kind, weights).weight(arm) for arm in hits if hits[arm]}
    if weights.method == "score" and len(arm_weights) > 1:
        return score_fusion(
            hits, arm_weights, floor_rank=weights.floor_rank, exhausted_floor={KEYWORD: 0.0}
        )
    rankings = {arm: [item for item, _ in arm_hits] for arm, arm_hits in hits.items()}
    fused = reciprocal_rank_fusion(rankings, arm_weights, k=weights.k)
    normalised = normalize_scores([score for _, score in fused], weights=arm_weights, k=weights.k)
    return [(item, score) for (item, _), score in zip(fused, normalised)]


def normalize_scores(
    scores: Sequence[float],
    *,
    weights: Mapping[str, float] | None = None,
    arms: int | None = None,
    k: int = 60,
) -> list[float]:
    """Fused scores as 0-1 for display: divided by the best score RRF can give.

    That best score, `sum(weights) / (k + 1)`, belongs to a chunk ranked first by every arm
    that ran, so 1.0 means "top of every arm" and the figure is comparable across queries
    (min-max scaling would always show 1.0 and 0.0). Pass the weights of the arms that ran;
    `arms=n` alone assumes a weight of 1.0 each. Scores lifted past the best by `rerank` are
    clipped to 1.0.
    """
    if weights is not None:
        total = sum(weight for weight in weights.values() if weight > 0)
    elif arms is not None:
        total = float(arms)
    else:
        raise TypeError("normalize_scores needs the arm weights (or the number of arms)")
    best = total / (k + 1)
    if best <= 0:
        return [0.0 for _ in scores]
    return [min(1.0, max(0.0, score / best)) for score in scores]


# Query routing

_CODE_SHAPE = re.compile(
    r"""
      [a-z][A-Z]            # camelCase
    | [A-Z]{2,}[a-z]        # HTTPException
    | [A-Za-z0-9]_[A-Za-z0-9] | ^_+[A-Za-z]   # snake_case, _private
    | \w\.\w                # os.path.join
    | :: | -> | \#\w        # Vec::new, ptr->field, Class#method
    | \w\(                  # call( or parse()
    | ^[A-Z][a-z0-9]+[A-Z]  # PascalCase with two words
    """,
    re.VERBOSE,
)


_ALL_CAPS = re.compile(r"[A-Z][A-Z0-9]+")


def _is_code_shaped(token: str) -> bool:
    return bool(_CODE_SHAPE.search(token))


def classify_query(query: str) -> QueryKind:
    """Identifier, natural language, or mixed, from the query's shape alone."""
    tokens = query.split()
    if not tokens:
        return QueryKind.NATURAL_LANGUAGE
    code_shaped = [_is_code_shaped(token) for token in tokens]
    if len(tokens) == 1:
        # Alone, an all-caps word is a constant (`MAX_RETRIES`, `HTTP`); in a sentence it is
        # more often an acronym (`how does the API cache`).
        alone_is_code = code_shaped[0] or _ALL_CAPS.fullmatch(tokens[0]) is not None
        return QueryKind.IDENTIFIER if alone_is_code else QueryKind.MIXED
    return QueryKind.MIXED if any(code_shaped) else QueryKind.NATURAL_LANGUAGE


_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def _words(query: str) -> set[str]:
    """The lowercase words of a query, identifiers split: `testLogin` gives test, login."""
    return {word.lower() for word in _WORD.findall(query)}


#: Plain query words that carry no signal in code search; identifiers are never dropped.
STOPWORDS = frozenset(
    """a an and any are as at be by can do does for from get give how i if in into is it its
    me my of on or should so that the their them then there these this to use used using was
    way we what when where which who why will with would you your""".split()
)


@functools.lru_cache(maxsize=65536)
def content_words(text: str) -> frozenset[str]:
    """The words of a query or a name that carry meaning, lowercase, plurals of words longer
    than four letters made singular: `getUserNames` and "get the user names" both give {user,
    name}."""
    words = (word.lower() for word in _WORD.findall(text) if len(word) > 1)
    return frozenset(_singular(word) for word in words if word not in STOPWORDS)


def _singular(word: str) -> str:
    if len(word) <= 4 or not word.endswith("s") or word.endswith("ss"):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1]


def name_words_match(name_words: frozenset[str], query_words: frozenset[str]) -> float:
    """How well a symbol's name words match a query's words, 0-1: the share of the name the
    query covers, times the square root of the share of the query the name covers."""
    if not name_words or not query_words:
        return 0.0
    shared = len(name_words & query_words)
    return (shared / len(name_words)) * math.sqrt(shared / len(query_words))


_TEST_WORDS = frozenset(
    {
        "test",
        "tests",
        "testing",
        "tested",
        "unittest",
        "unittests",
        "pytest",
        "jest",
        "spec",
        "specs",
        "fixture",
        "fixtures",
        "mock",
        "mocks",
        "mocking",
        "conftest",
    }
)
_DOCS_WORDS = frozenset(
    {
        "doc",
        "docs",
        "documentation",
        "documented",
        "readme",
        "guide",
        "guides",
        "tutorial",
        "changelog",
        "install",
        "installation",
        "installing",
        "faq",
        "manual",
    }
)
_CONFIG_WORDS = frozenset(
    {
        "config",
        "configs",
        "configuration",
        "configure",
        "settings",
        "yaml",
        "yml",
        "toml",
        "json",
        "ini",
        "env",
        "dockerfile",
        "manifest",
    }
)


def wants_tests(query: str) -> bool:
    """The query asks about tests: test, spec, fixture, mock..."""
    return not _TEST_WORDS.isdisjoint(_words(query))


def wants_docs(query: str) -> bool:
    """The query asks about documentation: docs, readme, guide, how to install..."""
    return not _DOCS_WORDS.isdisjoint(_words(query)) or "getting started" in query.lower()


def wants_config(query: str) -> bool:
    """The query asks about configuration: config, settings, yaml, toml..."""
    return not _CONFIG_WORDS.isdisjoint(_words(query))


def query_identifiers(query: str) -> list[str]:
    """The identifiers a query names, last segment of dotted paths: `os.path.join()` -> join.

    Every token of a one-token query counts; in a longer query only code-shaped tokens do.
    """
    tokens = query.split()
    if len(tokens) > 1:
        tokens = [token for token in tokens if _is_code_shaped(token)]
    names = []
    for token in tokens:
        segments = re.split(r"::|->|[.#]", token.strip("()[]{}<>,;:'\"`?!"))
        name = re.sub(r"\(.*$", "", segments[-1]) if segments else ""
        if re.fullmatch(r"\w+", name):
            names.append(name)
    return names


# File kinds

_TEST_PATH = re.compile(
    r"""
      (^|/)(tests?|__tests__|__mocks__|specs?|testing|testdata)/
    | (^|/)test_[^/]*\.py$ | _test\.py$ | (^|/)conftest\.py$
    | _test\.(go|rs|exs?|c|cc|cpp|dart)$
    | \.(test|spec)\.[cm]?[jt]sx?$
    | _spec\.rb$ | _test\.rb$
    | (^|/)[A-Za-z0-9_]*Tests?\.(java|kt|kts|cs|scala|swift|php|groovy)$
    """,
    re.VERBOSE,
)
_VENDORED_PATH = re.compile(
    r"(^|/)(vendor|vendored|_vendor|third_party|third-party|thirdparty|node_modules"
    r"|bower_components|site-packages)/"
)
_GENERATED_PATH = re.compile(
    r"""
      (^|/)(generated|__generated__|gen)/
    | _pb2(_grpc)?\.pyi?$ | \.pb\.(go|cc|h)$ | \.pb\.gw\.go$
    | [._]generated\.\w+$ | \.g\.(dart|cs)$ | \.designer\.cs$
    | \.min\.(js|css)$ | (^|/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock)$
    """,
    re.VERBOSE,
)


@functools.lru_cache(maxsize=1 << 16)  # a search classifies ~100 paths, mostly seen before
def is_test_path(path: str) -> bool:
    """Test code by its path: `tests/`, `test_*.py`, `*_test.go`, `*.spec.js`, `FooTest.java`..."""
    return bool(_TEST_PATH.search(path.replace("\\", "/")))


@functools.lru_cache(maxsize=1 << 16)
def is_vendored_path(path: str) -> bool:
    """Someone else's code copied in: `vendor/`, `third_party/`, `node_modules/`..."""
    return bool(_VENDORED_PATH.search(path.replace("\\", "/")))


@functools.lru_cache(maxsize=1 << 16)
def is_generated_path(path: str) -> bool:
    """Generated code by its path: `*_pb2.py`, `*.pb.go`, `*.generated.ts`, `*.min.js`..."""
    return bool(_GENERATED_PATH.search(path.replace("\\", "/")))


# Reranking


class RankedChunk(Protocol):
    """What reranking reads from a result (`sharc.manifest.ChunkRecord` has it all); an
    optional `generated: bool` attribute marks generated code the path does not give away."""

    @property
    def path(self) -> str: ...
    @property
    def symbol(self) -> str: ...
    @property
    def fqn(self) -> str: ...
    @property
    def tier(self) -> int: ...


@dataclass(frozen=True, slots=True)
class QueryIntent:
    """What a query asks for, worked out once per search."""

    kind: QueryKind
    tests: bool
    docs: bool
    config: bool
    identifiers: tuple[str, ...]
    #: The query's `content_words` where names made of them should rise (fused searches for
    #: words, not for a lone identifier); empty otherwise.
    words: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        query: str,
        kind: QueryKind | None = None,
        *,
        include_tests: bool | None = None,
        fused: bool = False,
    ) -> QueryIntent:
        """`include_tests` forces tests in (True) or down (False); None asks `wants_tests`.
        `fused`: both arms ran, so names made of the query's words may rise."""
        kind = kind or classify_query(query)
        identifiers = () if kind is QueryKind.NATURAL_LANGUAGE else tuple(query_identifiers(query))
        words_count = fused and kind is not QueryKind.IDENTIFIER
        return cls(
            kind=kind,
            tests=wants_tests(query) if include_tests is None else include_tests,
            docs=wants_docs(query),
            config=wants_config(query),
            identifiers=identifiers,
            words=content_words(query) if words_count else frozenset(),
        )


def rerank_adjustments(
    chunk: RankedChunk, intent: QueryIntent, weights: FusionWeights = DEFAULT_WEIGHTS
) -> float:
    """The factor a result's fused score is multiplied by.

    Tests, generated code, vendored code, docs and config go down unless the query asks for
    them (factors compound); a chunk whose symbol is the identifier the query names goes up:
    its definition, not the places that mention it. In a fused search for words, a chunk whose
    name is made of them goes up by `name_words_lift` times `name_words_match`.
    """
    factor = 1.0
    path = chunk.path
    if not intent.tests and is_test_path(path):
        factor *= weights.test_factor
    if getattr(chunk, "generated", False) or is_generated_path(path):
        factor *= weights.generated_factor
    if is_vendored_path(path):
        factor *= weights.vendored_factor
    if chunk.tier == TIER_DOCS and not intent.docs:
        factor *= weights.docs_factor
    if chunk.tier == TIER_CONFIG and not intent.config:
        factor *= weights.config_factor
    if intent.identifiers and chunk.symbol:
        if chunk.symbol in intent.identifiers:
            factor *= weights.symbol_match_factor
        elif chunk.symbol.lower() in {name.lower() for name in intent.identifiers}:
            factor *= (1.0 + weights.symbol_match_factor) / 2
    if intent.words and chunk.symbol and weights.name_words_lift:
        match = name_words_match(content_words(chunk.symbol), intent.words)
        factor *= 1.0 + weights.name_words_lift * match
    return factor


def rerank(
    query: str,
    kind: QueryKind | None,
    candidates: Sequence[tuple[C, float]],
    *,
    include_tests: bool | None = None,
    weights: FusionWeights = DEFAULT_WEIGHTS,
    fused: bool = False,
) -> list[tuple[C, float]]:
    """`(chunk, fused score)` pairs with `rerank_adjustments` applied, best first (stable).
    `fused`: the scores fuse both arms (see `QueryIntent.of`)."""
    intent = QueryIntent.of(query, kind, include_tests=include_tests, fused=fused)
    adjusted = [
        (chunk, score * rerank_adjustments(chunk, intent, weights)) for chunk, score in candidates
    ]
    adjusted.sort(key=lambda pair: -pair[1])
    return adjusted


def diversify(
    results: Sequence[T],
    max_per_file: int = 2,
    *,
    path_of: Callable[[T], str] | None = None,
) -> list[T]:
    """Keep the order, but let no file have more than `max_per_file` results before every
    other result has had its place; the overflow follows, in its original order.

    `path_of` reads an item's path; by default the `path` attribute of the item, or of its first
    element for the `(chunk, score)` pairs `rerank` returns.
    """
    if max_per_file <= 0:
        raise ValueError(f"max_per_file must be positive, got {max_per_file}")
    read_path: Callable[[Any], str] = path_of or _path_of
    kept: list[T] = []
    overflow: list[T] = []
    per_file: dict[str, int] = {}
    for item in results:
        path = read_path(item)
        count = per_file.get(path, 0)
        (kept if count < max_per_file else overflow).append(item)
        per_file[path] = count + 1
    return kept + overflow


def settled(
    ranked: Sequence[tuple[Any, float]], limit: int, ceiling: float, max_per_file: int | None
) -> bool:
    """Whether the top `limit` of `ranked` (reranked `(chunk, score)` pairs, best first) is
    final when every candidate not yet ranked scores at most `ceiling`.

    It is when `limit` results above the ceiling keep their places through `diversify`: a
    result's place depends only on the results before it.
    """
    per_file: dict[str, int] = {}
    final = 0
    for item, score in ranked:
        if score <= ceiling:
            return False
        path = _path_of(item)
        count = per_file.get(path, 0)
        per_file[path] = count + 1
        if not max_per_file or count < max_per_file:
            final += 1
            if final >= limit:
                return True
    return False


def _path_of(item: Any) -> str:
    if isinstance(item, tuple):
        item = item[0]
    return str(item.path)
