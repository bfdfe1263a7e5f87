"""The retrieval-quality benchmark's configurations: the ablation grid (`Config`), the sets and
depth it runs at, and how `--configs` patterns select rows.

A configuration names what to build and how to search it; `benches.quality.engines` builds it
and `benches.quality.run` scores it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass

EMBEDDING_MODES = ("independent", "late", "combined")
SETS = ("cosqa", "csn", "handwritten")
DEFAULT_DEPTH = 100


def rrf_weights():  # type: ignore[no-untyped-def]
    """RRF as sharc ran it before score fusion, at its best on the dev sets (k=20; keyword
    weight 0.25 against 1.0 for sentences, 0.8 against 1.0 mixed, 1.0 against 0.35 for
    identifiers), as keyword shares, without the name-word lift."""
    import dataclasses

    from sharc.ranking import DEFAULT_SETTINGS

    return dataclasses.replace(
        DEFAULT_SETTINGS, method="rrf", k=20, natural_keyword=0.25 / 1.25,
        mixed_keyword=0.8 / 1.8, identifier_keyword=1.0 / 1.35, name_words_lift=0.0,
    )


@dataclass(frozen=True)
class Config:
    """One row of the ablation grid."""

    name: str
    engine: str  # sharc | baseline
    embedding_mode: str | None = None  # sharc: independent | late | combined | None (keyword)
    search_mode: str = "semantic"  # sharc: semantic | keyword | hybrid
    boosts: bool = True  # sharc hybrid: structural boosts on
    fusion: str = "score"  # sharc hybrid: score (the default weights) | rrf (rrf_weights())
    chunker: str | None = None  # baseline: fixed | langchain | sharc-no-header | sharc-header

    @property
    def build_key(self) -> tuple[str, str | None]:
        """Configurations with the same key share one index."""
        if self.engine == "baseline":
            return ("baseline", self.chunker)
        return ("sharc", self.embedding_mode)


def default_embedding_mode() -> str:
    try:
        from sharc.index import DEFAULT_EMBEDDING_MODE

        return str(DEFAULT_EMBEDDING_MODE)
    except ImportError:
        return "independent"


def all_configs(default_mode: str | None = None) -> list[Config]:
    from benches.quality.baselines import CHUNKERS

    default_mode = default_mode or default_embedding_mode()
    configs = [Config("sharc:keyword", "sharc", None, "keyword")]
    for mode in EMBEDDING_MODES:
        configs.append(Config(f"sharc:{mode}:semantic", "sharc", mode, "semantic"))
        configs.append(Config(f"sharc:{mode}:hybrid", "sharc", mode, "hybrid"))
        if mode == default_mode:
            configs.append(
                Config(
                    f"sharc:{mode}:hybrid-rrf", "sharc", mode, "hybrid", boosts=False, fusion="rrf"
                )
            )
            configs.append(
                Config(f"sharc:{mode}:hybrid-rrf-boosts", "sharc", mode, "hybrid", fusion="rrf")
            )
    configs.extend(Config(f"baseline:{c}", "baseline", chunker=c) for c in CHUNKERS)
    return configs


def ablation_groups(default_mode: str) -> dict[str, list[str]]:
    """Which rows make up each README ablation table."""
    return {
        "retrieval": [
            "sharc:keyword",
            f"sharc:{default_mode}:semantic",
            f"sharc:{default_mode}:hybrid-rrf",
            f"sharc:{default_mode}:hybrid-rrf-boosts",
            f"sharc:{default_mode}:hybrid",
        ],
        "vectors": [f"sharc:{m}:{s}" for s in ("semantic", "hybrid") for m in EMBEDDING_MODES],
        "chunking": [
            "baseline:fixed",
            "baseline:langchain",
            "baseline:sharc-no-header",
            "baseline:sharc-header",
        ],
    }


def select_configs(configs: Sequence[Config], patterns: str | None) -> list[Config]:
    if not patterns:
        return list(configs)
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen = [c for c in configs if any(fnmatch.fnmatchcase(c.name, p) for p in wanted)]
    if not chosen:
        raise SystemExit(f"no configuration matches {patterns!r}; see --list")
    return chosen
