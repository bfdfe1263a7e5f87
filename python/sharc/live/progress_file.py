"""`progress.json` in the index directory: how the process that writes an index tells the
others how far it is, and how they find that process (the pid in `writer.lock`)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sharc.update_types import Progress

PROGRESS_FILE = "progress.json"
PROGRESS_WRITE_SECONDS = 0.5


def write_progress(index_dir: Path, progress: Progress | None, state: str, started: float) -> None:
    """Publish this process's `progress` (of a job started at monotonic `started`) and `state`;
    replaced atomically, silently skipped when the index directory is gone."""
    data = {
        "pid": os.getpid(),
        "state": state,
        "phase": progress.phase if progress else "",
        "files_done": progress.files_done if progress else 0,
        "files_total": progress.files_total if progress else 0,
        "chunks_done": progress.chunks_done if progress else 0,
        "chunks_total": progress.chunks_total if progress else 0,
        "percent": round(progress.percent, 1) if progress else 0.0,
        "vectors": progress.vectors if progress else "",
        "elapsed": round(time.monotonic() - started, 2),
        "updated": time.time(),
    }
    target = index_dir / PROGRESS_FILE
    temporary = index_dir / f".{PROGRESS_FILE}.{os.getpid()}.tmp"
    try:
        if not index_dir.exists():
            return
        temporary.write_text(json.dumps(data))
        os.replace(temporary, target)
    except OSError:
        pass


def other_writer(index_dir: Path) -> dict[str, Any] | None:
    """The live process, other than this one, that holds the writer lock, and its progress."""
    try:
        holder = (index_dir / "writer.lock").read_text().strip()
        pid = int(holder) if holder else 0
    except (OSError, ValueError):
        return None
    if pid <= 0 or pid == os.getpid() or not process_alive(pid):
        return None
    info: dict[str, Any] = {"pid": pid}
    try:
        progress = json.loads((index_dir / PROGRESS_FILE).read_text())
    except (OSError, ValueError):
        return info
    if progress.get("pid") == pid and progress.get("state") == "indexing":
        info.update({k: v for k, v in progress.items() if k not in ("pid", "state")})
    return info


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
