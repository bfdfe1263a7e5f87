"""Stage 6: penalties. Tests, examples, generated and vendored code, docs and config go down
unless the query asks for them, and so do fragments (one-line aliases, constants, delegating methods) the
query does not name."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from sharc.ranking.query import QueryIntent
from sharc.ranking.records import TIER_CONFIG, TIER_DOCS, C, RankedChunk, Scored
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
    r"(^|/)(examples?|samples?|demos?|benchmarks?|benches|fuzz|fuzzing|playground)/", re.I
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
def is_example_path(path: str) -> bool:
    """Code that shows or exercises the project: `examples/`, `samples/`, `benchmarks/`..."""
    return bool(_EXAMPLE_PATH.search(path.replace("\\", "/")))


@functools.lru_cache(maxsize=1 << 16)
def is_vendored_path(path: str) -> bool:
    """Someone else's code copied in: `vendor/`, `third_party/`, `node_modules/`..."""
    return bool(_VENDORED_PATH.search(path.replace("\\", "/")))


@functools.lru_cache(maxsize=1 << 16)
def is_generated_path(path: str) -> bool:
    """Generated code by its path: `*_pb2.py`, `*.pb.go`, `*.generated.ts`, `*.min.js`..."""
    return bool(_GENERATED_PATH.search(path.replace("\\", "/")))


def penalty_factor(chunk: RankedChunk, intent: QueryIntent, settings: RankingSettings) -> float:
    """The product of the penalties that apply to one chunk (each at most once)."""
    factor = 1.0
    path = chunk.path
    if not intent.tests and is_test_path(path):
        factor *= settings.test_factor
    if getattr(chunk, "generated", False) or is_generated_path(path):
        factor *= settings.generated_factor
    if is_vendored_path(path):
        factor *= settings.vendored_factor
    if not intent.examples and is_example_path(path):
        factor *= settings.example_factor
    if chunk.tier == TIER_DOCS and not intent.docs:
        factor *= settings.docs_factor
    if chunk.tier == TIER_CONFIG and not intent.config:
        factor *= settings.config_factor
    if chunk.end_line - chunk.start_line < settings.fragment_lines and (
        chunk.symbol not in intent.identifiers or not chunk.symbol
    ):
        factor *= settings.fragment_factor
    return factor


def apply_penalties(
    candidates: Sequence[Scored[C]], intent: QueryIntent, settings: RankingSettings
) -> list[Scored[C]]:
    return [(chunk, score * penalty_factor(chunk, intent, settings)) for chunk, score in candidates]
