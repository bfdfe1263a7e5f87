"""The fast vectors: the fast model's vectors beside the index's model's, so that semantic search
answers seconds into a cold index on a CPU, long before the default model has embedded
everything.

An update with the default model (or any model but the fast one) brings two vector sets in line
(`sharc.vector_sets.FAST_SET`, then `DEFAULT_SET`), each with its own usearch files, journal and
tombstones, both keyed by the chunks' keys: the fast one first (a static model: thousands of
chunks a second), then the default one, committed in steps as ever. Search reads one set at a
time, the one the manifest's `searched_vectors` names:

- a new index, or one whose chunks were all keyed again (another model), reads the fast set
  from the commit that makes it whole;
- the commit that makes the default set whole switches search to it, in the same transaction;
  later updates keep both in line (the fast one costs little) and search stays on the default
  set, whose lag while an update runs is that of any update.

The fast set's journal is keyed by the chunks' vector keys, which name the index's model, not
the fast one: the id of the fast model that made the set is kept (`FAST_MODEL_ID`), and another
id drops the set, to be made again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sharc.file_cohesion import measure as measure_cohesion
from sharc.stores import VectorsState, recorded_state
from sharc.update_types import CancelCheck, UpdateReport, VectorChanges
from sharc.vector_sets import DEFAULT_SET, FAST_MODEL_ID, FAST_SET, SEARCHED_VECTORS

if TYPE_CHECKING:
    from sharc.embedding import Embedder
    from sharc.manifest import Manifest, RemovedChunk


def fast_model_identity() -> tuple[str, int]:
    """The fast model's id and dimension, without loading it."""
    from sharc.model_config import FAST_MODEL, expected_model_id, model_config

    return expected_model_id(FAST_MODEL), model_config(FAST_MODEL)[0].dimension


def drop_fast_set(manifest: Manifest, index_dir: Path) -> None:
    """Remove the fast set (an index turned to the fast model itself, or with the fast set
    turned off); search reads the default set from then on. Commits."""
    made = manifest.get_meta(FAST_MODEL_ID) or any(
        (index_dir / name).exists() for name in (FAST_SET.main, FAST_SET.delta)
    )
    if not made:
        return
    from sharc.vector_segments import remove_set  # numpy: not for an update with nothing to do

    remove_set(index_dir, manifest, FAST_SET)
    manifest.set_meta(FAST_MODEL_ID, "")
    manifest.set_meta(SEARCHED_VECTORS, DEFAULT_SET.name)
    manifest.commit()


@dataclass
class FastStage:
    """One update's fast stage: `prepare` before any chunking step commits, `sync` after."""

    root: Path
    index_dir: Path
    load_embedder: Callable[[], Embedder]
    state: VectorsState | None = None
    #: Whether search is to read the fast set once it is whole (see the module's rules).
    switch_to_fast: bool = False

    def prepare(self, manifest: Manifest, *, rekeyed: bool, default_in_line: bool) -> None:
        """Read the recorded state (before the chunking steps move the generation on); drop a
        set another fast model made."""
        model_id, _ = fast_model_identity()
        made_by = manifest.get_meta(FAST_MODEL_ID)
        if made_by != model_id:
            if made_by:
                from sharc.vector_segments import remove_set

                remove_set(self.index_dir, manifest, FAST_SET)
            manifest.set_meta(FAST_MODEL_ID, model_id)
            manifest.commit()
        self.state = None if rekeyed else recorded_state(manifest, self.index_dir, FAST_SET)
        first = manifest.get_meta(SEARCHED_VECTORS) is None and not default_in_line
        self.switch_to_fast = rekeyed or first
        if self.state is None:
            # Every key is compared, so the model is needed: it loads (a second) while the
            # tree is chunked. A no-op update never gets here with a state out of line.
            threading.Thread(target=self._preload, name="sharc-fast-model", daemon=True).start()

    def _preload(self) -> None:
        try:
            self.load_embedder()
        except Exception:  # noqa: BLE001 - loading it again in `sync` reports the error
            pass

    def sync(
        self,
        manifest: Manifest,
        changes: VectorChanges,
        retired: list[RemovedChunk],
        result: UpdateReport,
        report: Callable[..., None],
        is_cancelled: CancelCheck,
        *,
        compact: bool,
    ) -> None:
        """Bring the fast set in line with the manifest: the changed keys alone when it was in
        line, else every key; at its whole commit, switch search to it if it is due."""
        model_id, dimension = fast_model_identity()
        state = self.state
        incremental = (
            state is not None
            and not compact
            and state.dimension == dimension
            and not state.needs_compaction(len(changes))
        )
        own = UpdateReport()  # the fast stage's failures, reported once in `result`
        if incremental and not changes:
            assert state is not None
            done = replace(state, generation=manifest.generation())
        else:
            from sharc.vector_sync import VectorSync

            sync = VectorSync(
                root=self.root, index_dir=self.index_dir, manifest=manifest,
                dimension=dimension, mode="independent", model_id=model_id,
                load_embedder=self.load_embedder, result=own,
                report=lambda phase, **counts: report(phase, vectors=FAST_SET.name, **counts),
                is_cancelled=is_cancelled, vector_set=FAST_SET,
            )
            if incremental:
                assert state is not None
                done = sync.apply(state, changes, retired)
            else:
                done = sync.compact(retired, fold=compact)
        result.fast_chunks_embedded += own.chunks_embedded
        for path, reason in own.failed:
            result.fail(path, f"fast vectors: {reason}")
        complete = not own.failed
        manifest.set_meta(FAST_SET.complete, "1" if complete else "0")
        switched = complete and self.switch_to_fast
        if complete:
            done.record(manifest, FAST_SET)
            if switched:
                manifest.set_meta(SEARCHED_VECTORS, FAST_SET.name)
        manifest.commit()
        if switched:
            report("ready", vectors=FAST_SET.name)
        # After the set is searchable: the measure serves its ranking, not its readiness.
        measure_cohesion(manifest, self.index_dir, FAST_SET, model_id,
                         changes.paths if incremental else None, report)
        # A second sync in this update (the chunks were keyed again) starts from a full compare.
        self.state = None
