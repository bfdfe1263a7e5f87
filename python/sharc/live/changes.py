"""What a live index's next job should update: the files that changed on disk against the
manifest's record of them, and the syntax guard's verdict on the edited ones.

Functions of the root and the index directory; the walk that also refreshes the watcher's
ignore sets is the facade's (`sharc.live.LiveIndex._walk`), passed in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sharc.errors import SharcError

if TYPE_CHECKING:
    from sharc._core import WalkedFile
    from sharc.manifest import Manifest

# Parsing every file of a branch switch would delay the sync for little gain: the guard is for
# edits, a few files at a time.
GUARD_MAX_FILES = 2000
# Past this many changed paths (a branch switch), a sync walks the whole tree instead.
SCOPED_SYNC_MAX_PATHS = 5000
AST_TIER = 1


@dataclass(frozen=True)
class Plan:
    hold: frozenset[str]
    changed: int
    deleted: int
    #: The paths the update looks at; None: the whole tree.
    scope: frozenset[str] | None = None


def plan_update(
    *,
    force: bool,
    paths: frozenset[str] | None,
    from_watcher: bool,
    clean: bool,
    previously_held: frozenset[str],
    walk: Callable[[frozenset[str] | None], list[WalkedFile]],
    indexed: Callable[[frozenset[str] | None], dict[str, tuple[int, int]]],
    guard: Callable[[Sequence[WalkedFile]], frozenset[str]],
) -> Plan | None:
    """Walk, compare with the manifest, and run the syntax guard.

    Returns None for a watcher-triggered sync in which no walked file changed.
    """
    if force:
        return Plan(frozenset(), 0, 0)
    # What the watcher saw is enough only after a job that left the index in line with
    # the disk; the held files are looked at again every time.
    scope = paths | previously_held if paths is not None and clean else None
    if scope is not None and ("" in scope or len(scope) > SCOPED_SYNC_MAX_PATHS):
        scope = None  # an ignore file changed, or so much that walking it all is cheaper
    walked = walk(scope)
    known = indexed(scope)
    on_disk = {f.path: f for f in walked}
    changed = [
        f for path, f in on_disk.items() if known.get(path) != (f.size, f.mtime_ns)
    ]
    deleted = len(known.keys() - on_disk.keys())
    # After a cancelled or failed job, chunks may still wait for their vectors.
    if from_watcher and clean and not changed and not deleted:
        return None
    # Only files the index already holds have a previous state to keep.
    candidates = {f.path: f for f in changed if f.path in known}
    candidates.update((p, on_disk[p]) for p in previously_held if p in on_disk)
    guarded = [candidates[p] for p in sorted(candidates)]
    return Plan(guard(guarded), len(changed), deleted, scope)


def walk_settings(given: Mapping[str, Any], index_dir: Path) -> dict[str, Any]:
    """The walk settings `update` uses: the ones given, else those the index remembers."""
    if given["ignore_patterns"] or given["custom_extensions"] or given["max_file_size"]:
        stored: dict[str, Any] = {}
    else:
        stored = stored_settings(index_dir)
    settings: dict[str, Any] = {
        "ignore_patterns": list(given["ignore_patterns"] or stored.get("ignore_patterns", ())),
        "custom_extensions": list(
            given["custom_extensions"] or stored.get("custom_extensions", ())
        ),
    }
    max_size = given["max_file_size"] or stored.get("max_file_size")
    if max_size:
        settings["max_file_size"] = int(max_size)
    return settings


def stored_settings(index_dir: Path) -> dict[str, Any]:
    manifest = open_manifest(index_dir)
    if manifest is None:
        return {}
    try:
        raw = manifest.get_meta("settings")
        return json.loads(raw) if raw else {}
    except Exception:  # noqa: BLE001 - unreadable settings: fall back to defaults
        return {}
    finally:
        manifest.close()


def indexed_files(
    index_dir: Path, scope: frozenset[str] | None = None
) -> dict[str, tuple[int, int]]:
    """Path -> (size, mtime_ns) of every file in the manifest (at or below `scope`)."""
    manifest = open_manifest(index_dir)
    if manifest is None:
        return {}
    try:
        return manifest.file_stats(scope)
    except Exception:  # noqa: BLE001 - a manifest being rebuilt reads as empty
        return {}
    finally:
        manifest.close()


def open_manifest(index_dir: Path) -> Manifest | None:
    from sharc.manifest import Manifest

    path = index_dir / "manifest.sqlite"
    if not path.exists():
        return None
    try:
        return Manifest(path, writable=False)
    except SharcError:
        return None


def syntax_guard(root: Path, files: Sequence[WalkedFile]) -> frozenset[str]:
    """The Tier-1 files among `files` that do not parse."""
    from sharc import _core

    parsed = [f for f in files if f.tier == AST_TIER]
    if not parsed or len(parsed) > GUARD_MAX_FILES:
        return frozenset()
    results = _core.chunk_files(os.fspath(root), [(f.path, f.language) for f in parsed])
    # A file out of its time budget is no half-typed edit: it is indexed as it is.
    return frozenset(
        f.path
        for f, chunked in zip(parsed, results, strict=True)
        if not chunked.error and not chunked.out_of_time and chunked.syntax_errors
    )
