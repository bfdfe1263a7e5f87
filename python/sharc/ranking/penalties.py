"""Stage 6: penalties. Tests, examples, generated and vendored code, docs and config go down
unless the query asks for them, and so do fragments (one-line aliases, constants, delegating methods) the
query does not name."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from sharc.ranking.query import QueryIntent
from sharc.ranking.records import (
    TIER_CONFIG,
    TIER_DOCS,
    TIER_TEXT,
    C,
    Part,
    RankedChunk,
    Scored,
    named,
)
from sharc.ranking.settings import RankingSettings

_TEST_PATH = re.compile(
    r"""
      (^|/)(tests?|__tests__|__mocks__|specs?|testing|testdata)/
    | (^|/)[A-Za-z0-9_.]*[._-](tests?|specs?)/ | (^|/)[A-Za-z0-9_.]*(Tests?|Specs?)/
    | (^|/)test_[^/]*\.py$ | _test\.py$ | (^|/)conftest\.py$
    | _test\.(go|rs|exs?|c|cc|cpp|dart)$
    | \.(test|spec)\.[cm]?[jt]sx?$
    | _spec\.rb$ | _test\.rb$
    | (^|/)[A-Za-z0-9_]*Tests?\.(java|kt|kts|cs|scala|swift|php|groovy)$
    """,
    re.VERBOSE,
)
_EXAMPLE_PATH = re.compile(
    r"(^|/)(examples?|samples?|demos?|benchmarks?|benches|bench|fuzz|fuzzing|playground)/", re.I
)
_VENDORED_PATH = re.compile(
    r"(^|/)(vendor|vendored|_vendor|bundled|third_party|third-party|thirdparty|node_modules"
    r"|bower_components|site-packages)/"
)
#: Directories of documentation: what is cut there without a parser (generated HTML pages,
#: release notes, plain text) is documentation, whatever its file type.
_DOCS_DIRECTORY = re.compile(r"(^|/)(docs?|documentation|manual)/", re.I)
_GENERATED_PATH = re.compile(
    r"""
      (^|/)(generated|__generated__|gen)/
    | _pb2(_grpc)?\.pyi?$ | \.pb\.(go|cc|h)$ | \.pb\.gw\.go$
    | [._]generated\.\w+$ | \.g\.(dart|cs)$ | \.designer\.cs$
    | \.min\.(js|css)$ | (^|/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock)$
    """,
    re.VERBOSE,
)


_DECLARATION_PATH = re.compile(
    r"""\.d\.[cm]?ts$ | \.pyi$ | (^|/)[Ii]nterfaces?/ | [a-z]Interface\.\w+$
    | (^|/)I[A-Z][a-z]\w*\.cs$     # C#'s IProfileExpression.cs""",
    re.VERBOSE,
)


@functools.lru_cache(maxsize=1 << 16)  # a search classifies ~100 paths, mostly seen before
def is_test_path(path: str) -> bool:
    """Test code by its path: `tests/`, `test_*.py`, `*_test.go`, `*.spec.js`, `FooTest.java`..."""
    return bool(_TEST_PATH.search(path.replace("\\", "/")))


@functools.lru_cache(maxsize=1 << 16)
def is_example_path(path: str) -> bool:
    """Code that shows or exercises the project: `examples/`, `samples/`, `benchmarks/`,
    `bench/`..."""
    return bool(_EXAMPLE_PATH.search(path.replace("\\", "/")))


@functools.lru_cache(maxsize=1 << 16)
def is_vendored_path(path: str) -> bool:
    """Someone else's code copied in: `vendor/`, `third_party/`, `node_modules/`..."""
    return bool(_VENDORED_PATH.search(path.replace("\\", "/")))


@functools.lru_cache(maxsize=1 << 16)
def is_docs_directory(path: str) -> bool:
    """A file under a documentation directory: `docs/`, `doc/`, `documentation/`..."""
    return bool(_DOCS_DIRECTORY.search(path.replace("\\", "/")))


def is_documentation(chunk: RankedChunk) -> bool:
    """Prose, or what a documentation directory holds that no parser cut (the HTML pages and
    text of `docs/`); code parsed there (a `docs/conf.py`) stays code."""
    return chunk.tier == TIER_DOCS or (chunk.tier == TIER_TEXT and is_docs_directory(chunk.path))


@functools.lru_cache(maxsize=1 << 16)
def is_declaration_path(path: str) -> bool:
    """Declarations without the code behind them: `*.d.ts`, `*.pyi` stubs, `Interfaces/`,
    `RouteParserInterface.php`, C#'s `IMapper.cs`..."""
    return bool(_DECLARATION_PATH.search(path.replace("\\", "/")))


@functools.lru_cache(maxsize=1 << 16)
def is_generated_path(path: str) -> bool:
    """Generated code by its path: `*_pb2.py`, `*.pb.go`, `*.generated.ts`, `*.min.js`..."""
    return bool(_GENERATED_PATH.search(path.replace("\\", "/")))


def crowds(path: str, intent: QueryIntent) -> bool:
    """Whether a file is of a kind the query did not ask for and that can fill a whole list
    of candidates: tests, examples, vendored or generated code."""
    return (
        (not intent.tests and is_test_path(path))
        or (not intent.examples and is_example_path(path))
        or is_vendored_path(path)
        or is_generated_path(path)
    )


def path_penalty(
    path: str, intent: QueryIntent, settings: RankingSettings, parts: list[Part] | None = None
) -> float:
    """The penalties a chunk's path alone decides: tests, examples, generated, vendored; each
    that applies is named in `parts` when given."""
    factor = 1.0
    if not intent.tests and is_test_path(path):
        factor *= named(parts, "test", settings.test_factor)
    if is_generated_path(path):
        factor *= named(parts, "generated", settings.generated_factor)
    if is_vendored_path(path):
        factor *= named(parts, "vendored", settings.vendored_factor)
    if not intent.examples and is_example_path(path):
        factor *= named(parts, "example", settings.example_factor)
    if intent.words and is_declaration_path(path):
        factor *= named(parts, "declarations", settings.declaration_factor)
    return factor


def chunk_penalty(
    chunk: RankedChunk,
    intent: QueryIntent,
    settings: RankingSettings,
    parts: list[Part] | None = None,
) -> float:
    """The penalties the chunk itself decides: docs, config, fragments, generated code the
    path does not give away; each that applies is named in `parts` when given."""
    factor = 1.0
    if getattr(chunk, "generated", False) and not is_generated_path(chunk.path):
        factor *= named(parts, "generated", settings.generated_factor)
    if not intent.docs and is_documentation(chunk):
        factor *= named(parts, "docs", settings.docs_factor)
    if chunk.tier == TIER_CONFIG and not intent.config:
        factor *= named(parts, "config", settings.config_factor)
    if chunk.end_line - chunk.start_line < settings.fragment_lines and (
        chunk.symbol not in intent.identifiers or not chunk.symbol
    ):
        factor *= named(parts, "fragment", settings.fragment_factor)
    return factor


def penalty_parts(chunk: RankedChunk, intent: QueryIntent, settings: RankingSettings) -> list[Part]:
    """Every penalty that applies to one chunk, named, with its factor (`penalty_factor` is
    their product)."""
    parts: list[Part] = []
    path_penalty(chunk.path, intent, settings, parts)
    chunk_penalty(chunk, intent, settings, parts)
    return parts


def penalty_factor(chunk: RankedChunk, intent: QueryIntent, settings: RankingSettings) -> float:
    """The product of the penalties that apply to one chunk (each at most once)."""
    return path_penalty(chunk.path, intent, settings) * chunk_penalty(chunk, intent, settings)


def penalty_bound(settings: RankingSettings) -> float:
    """The largest factor `penalty_factor` can give (1 unless a penalty is set to lift)."""
    factors = (
        settings.test_factor, settings.example_factor, settings.generated_factor,
        settings.vendored_factor, settings.docs_factor, settings.config_factor,
        settings.fragment_factor, settings.declaration_factor,
    )
    bound = 1.0
    for factor in factors:
        bound *= max(1.0, factor)
    return bound


def apply_penalties(
    candidates: Sequence[Scored[C]], intent: QueryIntent, settings: RankingSettings
) -> list[Scored[C]]:
    by_path: dict[str, float] = {}  # a search's candidates share a few dozen files
    penalised = []
    for chunk, score in candidates:
        path_factor = by_path.get(chunk.path)
        if path_factor is None:
            path_factor = by_path[chunk.path] = path_penalty(chunk.path, intent, settings)
        penalised.append((chunk, score * path_factor * chunk_penalty(chunk, intent, settings)))
    return penalised
