"""Where indexes live: outside the user's repository, in the platform's user cache directory."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


def cache_home() -> Path:
    """`$SHARC_CACHE_DIR`, else the platform's user cache directory for sharc."""
    override = os.environ.get("SHARC_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("sharc", appauthor=False))


def default_index_dir(root: Path) -> Path:
    """The index directory of a root, keyed by its absolute path (readable name + digest)."""
    absolute = str(root.resolve())
    digest = hashlib.sha256(absolute.encode()).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", root.resolve().name)[:40] or "root"
    return cache_home() / "indexes" / f"{name}-{digest}"
