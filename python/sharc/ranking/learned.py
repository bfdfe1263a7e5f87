"""A learned combination: the pipeline's interpretable features, weighed by a linear model.

The hand-tuned stages multiply a fused score by boosts and penalties. Here the same evidence is
laid out as one row of features per candidate (each arm's scaled score and rank, the hand-tuned
score, definition and qualified matches, path and name words, file coherence, chunk length,
tier, test/doc/example flags), and a candidate's score is the dot product of its row with
weights trained on the repository benchmark's dev repositories (`benches.quality.learn_repos`,
which wrote `sharc.ranking.learned_weights`). Numpy only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sharc.ranking.boosts import definition_match, name_words_match, path_words
from sharc.ranking.coherence import file_evidence
from sharc.ranking.fusion import KEYWORD, SEMANTIC, normalise_arm
from sharc.ranking.penalties import (
    is_declaration_path,
    is_example_path,
    is_generated_path,
    is_test_path,
    is_vendored_path,
)
from sharc.ranking.query import QueryIntent, QueryKind, content_words
from sharc.ranking.records import TIER_CONFIG, TIER_DOCS, C, Scored
from sharc.ranking.settings import RankingSettings

#: The features, in the order of a row; `features` documents each.
FEATURES = (
    "hand",
    "keyword",
    "semantic",
    "keyword_identifier",
    "semantic_identifier",
    "keyword_natural",
    "semantic_natural",
    "keyword_rank",
    "semantic_rank",
    "cosine",
    "both_arms",
    "symbol_exact",
    "symbol_case_insensitive",
    "qualified",
    "type_definition",
    "extending",
    "definition_file",
    "name_words",
    "path_stem_words",
    "path_directory_words",
    "coherence",
    "file_candidates",
    "file_best",
    "lines",
    "fragment",
    "test",
    "example",
    "generated",
    "vendored",
    "declaration",
    "docs",
    "docs_asked",
    "config",
    "other_code",
)

#: The rank-scale of the `*_rank` features: `RANK_SCALE / (RANK_SCALE + rank)`, as RRF.
RANK_SCALE = 20


@dataclass(frozen=True)
class LinearWeights:
    """One weight per feature (by name; a feature not named weighs 0) and a bias, which only
    moves the displayed 0-1 score (`sigmoid(row . weights + bias)`), never the order."""

    weights: tuple[tuple[str, float], ...]
    bias: float = 0.0

    def vector(self) -> list[float]:
        named = dict(self.weights)
        unknown = set(named) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown ranking features: {sorted(unknown)}")
        return [float(named.get(name, 0.0)) for name in FEATURES]

    @classmethod
    def of(cls, settings: RankingSettings) -> LinearWeights:
        """The weights `settings` names, or the shipped ones."""
        if settings.learned_weights:
            return cls(settings.learned_weights, settings.learned_bias)
        from sharc.ranking.learned_weights import BIAS, WEIGHTS

        return cls(WEIGHTS, BIAS)


def _arm_features(
    hits: Sequence[tuple[str, float]], settings: RankingSettings, exhausted_floor: float | None
) -> tuple[dict[str, float], dict[str, int]]:
    normalised = normalise_arm(hits, settings.floor_rank, exhausted_floor)
    ranks: dict[str, int] = {}
    for rank, (item, _) in enumerate(hits, start=1):
        ranks.setdefault(item, rank)
    return normalised, ranks


def features(
    ranked: Sequence[Scored[C]],
    hits: Mapping[str, Sequence[tuple[str, float]]],
    intent: QueryIntent,
    settings: RankingSettings,
    depth: int | None = None,
) -> list[list[float]]:
    """One row of `FEATURES` for each of the first `depth` candidates of `ranked` (the
    hand-tuned stages' output, sorted best first, scores after every boost and penalty; file
    features count every candidate); `hits` are the arms' `(id, score)` lists, and a candidate
    is read for its `id` attribute (records of `sharc.manifest`)."""
    keyword, keyword_ranks = _arm_features(hits.get(KEYWORD, ()), settings, 0.0)
    semantic, semantic_ranks = _arm_features(hits.get(SEMANTIC, ()), settings, None)
    cosines = {item: score for item, score in reversed(hits.get(SEMANTIC, ()))}
    evidence = file_evidence(ranked, settings.coherence_chunks)
    per_file = Counter(chunk.path for chunk, _ in ranked)
    best_in_file: dict[str, float] = {}
    for chunk, score in ranked:  # best first
        if chunk.path not in best_in_file:
            best_in_file[chunk.path] = score
    identifier = float(intent.kind is QueryKind.IDENTIFIER)
    natural = float(intent.kind is QueryKind.NATURAL_LANGUAGE)
    by_path: dict[str, list[float]] = {}
    rows = []
    for chunk, score in ranked[:depth]:
        chunk_id = chunk.id  # type: ignore[attr-defined]
        path = chunk.path
        path_row = by_path.get(path)
        if path_row is None:
            path_row = by_path[path] = _path_features(path, intent, evidence, per_file)
        kw = keyword.get(chunk_id, 0.0)
        sem = semantic.get(chunk_id, 0.0)
        match = definition_match(chunk, intent)
        lines = chunk.end_line - chunk.start_line + 1
        docs = chunk.tier == TIER_DOCS
        rows.append([
            math.log(max(score, 1e-4)),
            kw,
            sem,
            kw * identifier,
            sem * identifier,
            kw * natural,
            sem * natural,
            _rank_feature(keyword_ranks.get(chunk_id)),
            _rank_feature(semantic_ranks.get(chunk_id)),
            cosines.get(chunk_id, 0.0),
            float(chunk_id in keyword and chunk_id in semantic),
            float(match.exact),
            float(match.case_insensitive),
            float(match.matched and match.qualified),
            float(match.matched and match.type_definition and not match.extending),
            float(match.matched and match.extending),
            float(match.matched and match.definition_file),
            name_words_match(content_words(chunk.symbol), intent.words)
            if intent.words and chunk.symbol else 0.0,
            *path_row[:4],
            float(score >= best_in_file[path]),
            math.log(lines),
            float(lines <= settings.fragment_lines and not match.matched),
            path_row[4],
            path_row[5],
            max(path_row[6], float(getattr(chunk, "generated", False))),
            path_row[7],
            path_row[8],
            float(docs and not intent.docs),
            float(docs and intent.docs),
            float(chunk.tier == TIER_CONFIG and not intent.config),
            float(chunk.tier == 4),
        ])
    return rows


def _path_features(
    path: str, intent: QueryIntent, evidence: Mapping[str, float], per_file: Mapping[str, int]
) -> list[float]:
    """The features a candidate's file decides: path words, coherence, candidates in the file,
    then test, example, generated, vendored and declaration."""
    if intent.words:
        stem_words, directory_words = path_words(path)
        stem = name_words_match(stem_words, intent.words)
        directories = name_words_match(directory_words, intent.words)
    else:
        stem = directories = 0.0
    return [
        stem,
        directories,
        evidence.get(path, 0.0),
        math.log(per_file[path]),
        float(not intent.tests and is_test_path(path)),
        float(not intent.examples and is_example_path(path)),
        float(is_generated_path(path)),
        float(is_vendored_path(path)),
        float(bool(intent.words) and is_declaration_path(path)),
    ]


def _rank_feature(rank: int | None) -> float:
    return 0.0 if rank is None else RANK_SCALE / (RANK_SCALE + rank)


def apply_learned(
    ranked: Sequence[Scored[C]],
    hits: Mapping[str, Sequence[tuple[str, float]]],
    intent: QueryIntent,
    settings: RankingSettings,
    weights: LinearWeights,
) -> list[Scored[C]]:
    """The hand-tuned order's first `settings.learned_depth` candidates scored by `weights`
    over their `features` (0-1), the rest after them in their hand-tuned order."""
    import numpy as np

    ranked = sorted(ranked, key=lambda pair: -pair[1])
    if not ranked:
        return []
    rows = np.asarray(
        features(ranked, hits, intent, settings, settings.learned_depth), dtype=np.float64
    )
    scores = rows @ np.asarray(weights.vector()) + weights.bias
    scores = 1.0 / (1.0 + np.exp(-np.clip(scores, -50.0, 50.0)))
    rescored = [(chunk, float(score)) for (chunk, _), score in zip(ranked, scores)]
    if len(ranked) > len(rescored):
        # Below every rescored candidate, in their hand-tuned order.
        lowest, boundary = float(scores.min()), max(ranked[len(rescored) - 1][1], 1e-12)
        rescored += [(chunk, lowest * score / boundary) for chunk, score in ranked[len(rescored):]]
    return rescored
