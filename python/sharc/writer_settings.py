"""The settings an index remembers and an update runs with: the model, the embedding mode, the
walk's rules and the embedding policy, as asked for (`WriterSettings`) or else as remembered in
the manifest's `settings` meta key.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sharc.embed_policy import EmbedPolicy, policy_from_settings
from sharc.files import WalkSettings
from sharc.update_types import DEFAULT_EMBEDDING_MODE, EmbeddingMode

if TYPE_CHECKING:
    from sharc.manifest import Manifest


@dataclass(frozen=True)
class WriterSettings:
    """What the caller asked for; None: as the index remembers (else the default)."""

    model: str | None = None
    embedding_mode: EmbeddingMode | None = None
    walk: WalkSettings | None = None
    embed_anyway: Collection[str] | None = None
    max_embedded_per_file: int | None = None
    device: str = "auto"
    #: The fast model's vectors beside the model's (`sharc.fast_vectors`); None: as remembered.
    fast_vectors: bool | None = None


@dataclass(frozen=True)
class Resolved:
    """The settings an update runs with: those asked for, else those the index remembers."""

    model: str | None
    mode: EmbeddingMode
    walk: WalkSettings
    policy: EmbedPolicy
    stored: dict[str, Any]
    fast_vectors: bool = True


def stored_settings(manifest: Manifest) -> dict[str, Any]:
    """The settings the index remembers (empty for a new index)."""
    raw = manifest.get_meta("settings")
    return json.loads(raw) if raw else {}


def resolve(asked: WriterSettings, manifest: Manifest) -> Resolved:
    """The settings an update runs with: those `asked` for, else those the index remembers."""
    stored = stored_settings(manifest)
    walk_settings = asked.walk
    if walk_settings is None:
        walk_settings = WalkSettings(
            tuple(stored.get("ignore_patterns", ())),
            tuple(stored.get("custom_extensions", ())),
            int(stored.get("max_file_size", WalkSettings().max_file_size)),
        )
    return Resolved(
        model=asked.model if asked.model is not None else stored.get("model"),
        mode=asked.embedding_mode or stored.get("embedding_mode") or DEFAULT_EMBEDDING_MODE,
        walk=walk_settings,
        policy=policy_from_settings(
            stored.get("embed_policy"),
            off=asked.embed_anyway,
            max_chunks_per_file=asked.max_embedded_per_file,
        ),
        stored=stored,
        fast_vectors=(
            asked.fast_vectors if asked.fast_vectors is not None
            else bool(stored.get("fast_vectors", True))
        ),
    )

def apply_settings(
    manifest: Manifest, resolved: Resolved, model_id: str, *, root: Path, device: str, embed: bool
) -> bool:
    """Apply changed settings; returns whether every chunk is to be keyed again."""
    stored = resolved.stored
    rekeyed = bool(embed and stored.get("model_id") and (
        stored.get("model_id") != model_id or stored.get("embedding_mode") != resolved.mode
    ))
    if rekeyed:
        # Another model or vector mode: every chunk gets a new vector key, so every file
        # is chunked again (cheap) and embedded again (unavoidable).
        manifest.forget_files()
    if stored.get("embed_policy") != resolved.policy.as_settings():
        # Another policy (or an index from before it): every file is chunked and judged
        # again; only the files whose verdict changed are touched, and only their chunks
        # whose verdict changed gain or lose a vector.
        manifest.expire_file_stats()
    save_settings(manifest, resolved, model_id, root=root, device=device, embed=embed)
    return rekeyed

def save_settings(
    manifest: Manifest, resolved: Resolved, model_id: str, *, root: Path, device: str, embed: bool
) -> None:
    """Remember the settings of this update in the manifest (and commit)."""
    settings = {
        "model": resolved.model,
        "model_id": model_id,
        "embedding_mode": resolved.mode,
        "embed_policy": resolved.policy.as_settings(),
        "ignore_patterns": list(resolved.walk.ignore_patterns),
        "custom_extensions": list(resolved.walk.custom_extensions),
        "max_file_size": resolved.walk.max_file_size,
        "root": str(root),
        "fast_vectors": resolved.fast_vectors,
    }
    # The device the model id was worked out for: it decides the int8 copy.
    remembered = device if embed else resolved.stored.get("device")
    if remembered is not None:
        settings["device"] = remembered
    if settings != resolved.stored:
        manifest.set_meta("settings", json.dumps(settings, sort_keys=True))
    manifest.commit()
