"""Debian bookworm source packages through a private apt configuration (the system's apt is
left alone): shared by the fast model's corpus (`tools.static_model.fetch`) and the walk +
chunk benchmark's long-tail corpus (`benches.speed.walk_chunk`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

DEBIAN_SOURCES = (
    "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
    " http://deb.debian.org/debian bookworm main\n"
)


def apt_config(base: Path) -> Path:
    """A private apt configuration under `base` with bookworm's deb-src, its lists updated
    once; pass it to apt-get as `APT_CONFIG`."""
    config = base / "apt.conf"
    if not config.is_file():
        for sub in ("lists/partial", "cache/archives/partial", "etc"):
            (base / sub).mkdir(parents=True, exist_ok=True)
        (base / "etc" / "sources.list").write_text(DEBIAN_SOURCES)
        config.write_text(
            f'Dir::Etc::SourceList "{base}/etc/sources.list";\n'
            'Dir::Etc::SourceParts "/nonexistent";\n'
            f'Dir::State::Lists "{base}/lists";\n'
            f'Dir::Cache "{base}/cache";\n'
            'Dir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n'
        )
    if not any((base / "lists").glob("*Sources*")):
        subprocess.run(["apt-get", "update"], env={**os.environ, "APT_CONFIG": str(config)},
                       check=True, capture_output=True)
    return config
