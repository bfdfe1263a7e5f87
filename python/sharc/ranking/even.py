"""A second opinion on the order of files: the even ranking, and its blend with the staged one.

The staged pipeline (`sharc.ranking.pipeline`) was tuned question by question on one set of
repositories, and gains there what it partly loses elsewhere. The even ranking is what the
field's simplest strong tools do with the same two arms, nothing tuned: each arm's raw scores
scaled 0-1 over its hits and added half and half; a lift for the files whose name or folder
holds the question's words; a lift for the files with many candidates; tests, examples and
compatibility shims scaled down; code only. Alone it trails the staged ranking on the questions
the stages were tuned on (the repository benchmark's dev third, file NDCG@10 82.2 against 85.0)
and on questions written later about the same repositories (69.5 against 71.0), and leads it
on the repositories held out (81.7 against 80.5; architecture questions 74.8 against 68.5):
two rankings that err differently (`python -m benches.quality.even_alone`). For a question in
words, the two file orders are merged by weighted reciprocal rank (`even_share`), and each
file takes the place the merge gives it, with the scores of the staged order. A file whose
parts are unrelated (`sharc.file_cohesion`) is judged by its best part alone, and the even
opinion of it counts as little: CoSQA's modules of sixteen unrelated functions.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import PurePosixPath

from sharc.ranking.penalties import (
    is_documentation,
    is_example_path,
    is_generated_path,
    is_test_path,
    is_vendored_path,
)
from sharc.ranking.query import lower_words
from sharc.ranking.records import TIER_CODE, TIER_TEXT, C, RankedChunk, Scored

#: A file named by the question's words rises by this times the best score, times the share
#: of the words its name and folder hold (from a tenth of them).
PATH_LIFT = 1.0
PATH_SHARE_FROM = 0.1
#: Each file's best candidate rises by this times the best score, times the file's summed
#: candidate scores over the largest file's.
FILE_LIFT = 0.2
#: Where a file lies, scaled: tests, examples and compatibility shims; a package's
#: `__init__.py`; a TypeScript declaration file.
ASIDE_FACTOR = 0.3
PACKAGE_FILE_FACTOR = 0.5
DECLARATION_FACTOR = 0.7
#: The shortest word of a question, and of a path, that matches another word it begins.
PREFIX_LETTERS = 3

#: The field's short list, not `sharc.ranking.query.STOPWORDS`: the even ranking is that
#: ranker as it is, and the longer list drops words that name files (`use`, `way`).
_STOPWORDS = frozenset(
    "a an and are as at be by do does for from has have how if in is it not of on or the to was"
    " what when where which who why with".split()
)
_QUESTION_WORD = re.compile(r"[A-Za-z_]\w*")
_ASIDE_DIRECTORY = re.compile(r"(?:^|/)(?:compat|_compat|legacy|single_include)(?:/|$)")
_PACKAGE_FILES = frozenset({"__init__.py", "package-info.java"})


def question_words(query: str) -> frozenset[str]:
    """The words of a question that can name a file: longer than two letters, not a stop word."""
    words = (word.lower() for word in _QUESTION_WORD.findall(query))
    return frozenset(w for w in words if len(w) > 2 and w not in _STOPWORDS)


def path_share(path: str, words: Collection[str]) -> float:
    """The share of `words` that the file's name or its folder's name holds, a word matching
    a part of the name it equals, begins or is begun by, the shorter `PREFIX_LETTERS` long
    at least (`plugin` for "plugins", `config` for "configuration"; `retry` is not
    "retries")."""
    return _path_share(path, frozenset(words))


@functools.lru_cache(maxsize=1 << 14)  # a search's opinions read mostly the same files
def _path_share(path: str, words: frozenset[str]) -> float:
    if not words:
        return 0.0
    parts, beginnings = _name_parts(path)

    matched = sum(
        1 for word in words if word in beginnings or not parts.isdisjoint(_beginnings(word))
    )
    return matched / len(words)


@functools.lru_cache(maxsize=1 << 12)
def _beginnings(word: str) -> frozenset[str]:
    """A word and its beginnings `PREFIX_LETTERS` long or more."""
    return frozenset(word[:end] for end in range(PREFIX_LETTERS, len(word) + 1)) | {word}


@functools.lru_cache(maxsize=1 << 16)  # a search reads ~100 paths, mostly seen before
def _name_parts(path: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of a file's name and of its folder's name, lower-cased (`PluginLoader.ts`
    in `core/`: plugin, loader, core), and their beginnings `PREFIX_LETTERS` long or more."""
    place = PurePosixPath(path)
    parts = frozenset(lower_words(place.stem + " " + place.parent.name))
    beginnings = frozenset(
        part[:end] for part in parts for end in range(PREFIX_LETTERS, len(part) + 1)
    )
    return parts, beginnings


@functools.lru_cache(maxsize=1 << 16)
def place_factor(path: str, tests: bool = False) -> float:
    """How far where a file lies scales it down in the even ranking (tests not, where the
    question asks for them)."""
    factor = 1.0
    if is_test_path(path) and not tests:
        factor *= ASIDE_FACTOR
    if (
        is_example_path(path)
        or is_vendored_path(path)
        or is_generated_path(path)
        or _ASIDE_DIRECTORY.search(path)
    ):
        factor *= ASIDE_FACTOR
    if PurePosixPath(path).name in _PACKAGE_FILES:
        factor *= PACKAGE_FILE_FACTOR
    if path.endswith(".d.ts"):
        factor *= DECLARATION_FACTOR
    return factor


def _scaled(hits: Sequence[tuple[str, float]]) -> dict[str, float]:
    """An arm's scores scaled 0-1 over its hits (min-max)."""
    if not hits:
        return {}
    low, high = min(s for _, s in hits), max(s for _, s in hits)
    span = max(high - low, 1e-9)
    return {chunk_id: (score - low) / span for chunk_id, score in hits}


def even_file_order(
    query: str,
    hits: Mapping[str, Sequence[tuple[str, float]]],
    records: Mapping[str, RankedChunk],
    *,
    tests: bool = False,
    gates: Mapping[str, float] | None = None,
) -> list[str]:
    """The files of the arms' code hits, best first, as the even ranking orders them
    (`tests`: the question asks for tests, which keep their place). A file's candidates
    beyond its best count as far as its gate says (`sharc.ranking.files.evidence_gates`: a
    grab-bag file of unrelated parts is judged by its best chunk alone; 1 where `gates` has
    none)."""
    arms = [_scaled(arm_hits) for arm_hits in hits.values()]
    share = 1.0 / max(1, len(arms))  # an even fusion: each arm alike
    scores: dict[str, float] = {}
    for arm in arms:
        for chunk_id, value in arm.items():
            record = records.get(chunk_id)
            if record is not None and _is_code(record):
                scores[chunk_id] = scores.get(chunk_id, 0.0) + share * value
    if not scores:
        return []
    best = max(scores.values())
    words = question_words(query)
    paths = {chunk_id: records[chunk_id].path for chunk_id in scores}
    shares = {path: _path_share(path, words) for path in set(paths.values())}
    sums: dict[str, float] = {}
    tops: dict[str, float] = {}
    for chunk_id, value in scores.items():
        path = paths[chunk_id]
        if (matched := shares[path]) >= PATH_SHARE_FROM:
            value += best * PATH_LIFT * matched
            scores[chunk_id] = value
        sums[path] = sums.get(path, 0.0) + value
        tops[path] = max(tops.get(path, 0.0), value)
    best, largest = max(scores.values()), max(sums.values())
    gates = gates or {}

    def lift(path: str) -> float:
        return best * FILE_LIFT * gates.get(path, 1.0) * sums[path] / largest if largest else 0.0

    judged = {path: (top + lift(path)) * place_factor(path, tests) for path, top in tops.items()}
    return sorted(judged, key=lambda path: -judged[path])


def _is_code(record: RankedChunk) -> bool:
    """Code chunks: of a grammar the chunker knows (tier 1), or of a language it splits as
    text (tier 4) outside a documentation directory; not documentation or configuration."""
    return record.tier in (TIER_CODE, TIER_TEXT) and not is_documentation(record)


def blend_files(
    candidates: Sequence[Scored[C]],
    even: Sequence[str],
    share: float,
    k: int,
    gates: Mapping[str, float] | None = None,
) -> list[Scored[C]]:
    """`candidates` with their files in the order of a weighted reciprocal-rank merge of the
    candidates' own file order (weight 1 - `share`) and `even` (weight `share`; files not
    among the candidates are left out), a file's share times its gate (`gates`, 1 where
    none is given: the even ranking's place for a grab-bag file of unrelated parts is the
    place of one of its parts, which the staged ranking judges better). The file merged
    into the n-th place takes the n-th best file's score, and each of its candidates keeps
    its ratio to its file's best, so that the scores keep their scale and a file's hits
    keep their grouping."""
    tops: dict[str, float] = {}
    for chunk, score in candidates:
        tops[chunk.path] = max(tops.get(chunk.path, score), score)
    own = sorted(tops, key=lambda path: -tops[path])
    gates = gates or {}
    weight = {path: share * gates.get(path, 1.0) for path in own}
    merged = {path: (1.0 - weight[path]) / (k + rank) for rank, path in enumerate(own, 1)}
    rank = 0
    for path in even:
        if path in merged:
            rank += 1
            merged[path] += weight[path] / (k + rank)
    order = sorted(own, key=lambda path: -merged[path])  # stable: ties keep their own order
    placed = dict(zip(order, sorted(tops.values(), reverse=True), strict=True))

    def rescored(chunk: C, score: float) -> float:
        top = tops[chunk.path]
        return placed[chunk.path] * (score / top) if top > 0 else placed[chunk.path]

    blended = [(chunk, rescored(chunk, score)) for chunk, score in candidates]
    blended.sort(key=lambda pair: -pair[1])
    return blended
