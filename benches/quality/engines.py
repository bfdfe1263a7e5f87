"""Index builders for the retrieval-quality benchmark: `Engines` turns a dataset and a
configuration into a `Built` index (sharc's pipeline or a chunking baseline) ready to answer
queries.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benches.quality import metrics
from benches.quality.configs import Config, default_embedding_mode, rrf_weights
from benches.quality.dataset import Dataset


@dataclass
class Built:
    """An index ready to answer: `search(texts, config) -> ranked lists of located results`."""

    search: Callable[[Sequence[str], Config, int], list[list[Any]]]
    index_seconds: float
    info: dict[str, Any] = field(default_factory=dict)
    close: Callable[[], None] = lambda: None


class Engines:
    """Builds indexes for configurations; `index_factory` and `embedder_factory` are seams for
    tests (default: `sharc.Index.open` and `sharc.embedding.load_embedder`).

    With `index_cache`, sharc indexes persist there (one per dataset and embedding mode) and a
    rerun only syncs them: for tuning search-side settings without re-embedding. The index time
    reported for a reused index is the one recorded when it was built cold. A change to the
    chunker or the embedder is not a file change: clear the cache after one.

    `ranking` (`--ranking`): `field=value,...` over `DEFAULT_SETTINGS` for sharc's score-fusion
    searches; empty for the defaults.
    """

    def __init__(
        self,
        *,
        index_factory: Callable[..., Any] | None = None,
        embedder_factory: Callable[[], Any] | None = None,
        cache_path: Path | None = None,
        use_cache: bool = True,
        index_cache: Path | None = None,
        ranking: str = "",
    ) -> None:
        self._index_factory = index_factory
        self.index_cache = index_cache
        self._embedder_factory = embedder_factory
        self._embedder: Any = None
        self.cache_path = cache_path
        self.use_cache = use_cache
        self.ranking = ranking
        self.model_id: str | None = None

    def index_factory(self) -> Callable[..., Any]:
        if self._index_factory is None:
            from sharc.index import Index

            self._index_factory = Index.open
        return self._index_factory

    def embedder(self) -> Any:
        if self._embedder is None:
            if self._embedder_factory is None:
                from sharc.embedding import load_embedder

                self._embedder_factory = load_embedder
            self._embedder = self._embedder_factory()
            self.model_id = getattr(self._embedder, "model_id", None)
        return self._embedder

    def build(self, dataset: Dataset, config: Config, workdir: Path) -> Built:
        if config.engine == "baseline":
            return self._build_baseline(dataset, config)
        return self._build_sharc(dataset, config, workdir)

    def _build_sharc(self, dataset: Dataset, config: Config, workdir: Path) -> Built:
        label = config.embedding_mode or "keyword"
        index_dir = workdir / f"index-{label}"
        if self.index_cache is not None:
            index_dir = self.index_cache / dataset.name.replace("/", "__") / label
        sidecar = index_dir.parent / f"{label}.build.json"
        reused = (index_dir / "manifest.sqlite").exists() and sidecar.is_file()
        index = self.index_factory()(
            dataset.root,
            index_dir=index_dir,
            embedding_mode=config.embedding_mode or default_embedding_mode(),
        )
        started = time.perf_counter()
        report = index.update(embed=config.embedding_mode is not None)
        seconds = time.perf_counter() - started
        info: dict[str, Any] = {}
        with contextlib.suppress(Exception):
            stats = index.stats()
            info = {
                "files": stats.files,
                "chunks": stats.chunks,
                "embedded_chunks": stats.embedded_chunks,
                "model": stats.model,
                "size_bytes": stats.size_bytes,
            }
            self.model_id = self.model_id or stats.model or None
        skipped = getattr(report, "skipped", None)
        if skipped is not None:
            info["skipped_files"] = len(skipped)
        if self.index_cache is not None:
            if reused:
                info["index_reused"] = True
                info["sync_seconds"] = round(seconds, 3)
                seconds = float(json.loads(sidecar.read_text())["index_seconds"])
            else:
                sidecar.parent.mkdir(parents=True, exist_ok=True)
                sidecar.write_text(
                    json.dumps({"index_seconds": seconds, "root": str(dataset.root)})
                )

        def search(texts: Sequence[str], cfg: Config, depth: int) -> list[list[Any]]:
            from sharc.ranking import DEFAULT_SETTINGS

            from benches.quality.tune_repos import parse_variant

            defaults = parse_variant(self.ranking, DEFAULT_SETTINGS)
            settings = rrf_weights() if cfg.fusion == "rrf" else defaults
            index.ranking_settings = settings if cfg.boosts else settings.plain()
            return [
                metrics.read_in_order(index.search(t, limit=depth, mode=cfg.search_mode))[:depth]
                for t in texts
            ]

        return Built(search, seconds, info, getattr(index, "close", lambda: None))

    def _build_baseline(self, dataset: Dataset, config: Config) -> Built:
        from benches.quality.baselines import BaselineIndex, EmbeddingCache, default_cache_path

        embedder = self.embedder()
        cache_path = (self.cache_path or default_cache_path()) if self.use_cache else None
        cache = EmbeddingCache(cache_path, getattr(embedder, "model_id", "unknown"))
        try:
            built = BaselineIndex.build(dataset.root, config.chunker or "", embedder, cache)
        finally:
            cache.close()

        def search(texts: Sequence[str], cfg: Config, depth: int) -> list[list[Any]]:
            return built.search_many(texts, depth)

        info = {"chunks": len(built.chunks), "cache_hits": built.cache_hits}
        return Built(search, built.index_seconds, info)
