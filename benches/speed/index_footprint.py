"""What an index costs in memory and on disk: the peak RSS of a cold index in a fresh process
(keyword-only over 1x and 3x the corpus, and with the model), against a process that only imports
sharc or only loads the model; and an index's bytes on disk, per part (`index_parts`).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
from pathlib import Path

from benches.speed.common import REPO
from benches.speed.corpus import bench_index_dir, make_tree


def index_parts(index_dir: Path) -> dict[str, int]:
    """Bytes on disk per part of an index: the usearch file, the tantivy directories (of
    chunks, and of whole files), and the manifest split into its vector journal (table and key
    index; empty once usearch is saved), the code graph's references (table and indexes) and
    the rest (code, metadata)."""
    import sqlite3

    manifest = index_dir / "manifest.sqlite"
    with contextlib.closing(sqlite3.connect(f"file:{manifest}?mode=ro", uri=True)) as db:
        pages = dict(db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
    journal = pages.get("vectors", 0) + pages.get("sqlite_autoindex_vectors_1", 0)
    references = sum(size for name, size in pages.items() if name.startswith("refs"))
    manifest_bytes = sum(
        _disk_bytes(index_dir / name) for name in ("manifest.sqlite", "manifest.sqlite-wal")
    )
    return {
        "usearch_vectors": _disk_bytes(index_dir / "vectors.usearch"),
        "keyword": _disk_bytes(index_dir / "keyword"),
        "keyword_files": _disk_bytes(index_dir / "keyword-files"),
        "manifest_vector_journal": journal,
        "manifest_references": references,
        "manifest_rest": manifest_bytes - journal - references,
    }


def _disk_bytes(path: Path) -> int:
    """The size of a file, or of every file under a directory; 0 if it does not exist."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size if path.exists() else 0


# The peak RSS of the child alone: VmHWM starts afresh at exec, while ru_maxrss keeps the
# high-water mark of the parent that forked it.
_PEAK = "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
_RSS_CHILD = f"""
import sys, sharc
index = sharc.Index.open(sys.argv[1], index_dir=sys.argv[2])
index.update(embed=sys.argv[3] == "embed")
{_PEAK}
"""
_MODEL_ONLY_CHILD = f"""
import sharc
from sharc.embedding import load_embedder
load_embedder().embed_documents(["def f(): pass"] * 32)
{_PEAK}
"""


def memory(work: Path, sizes: dict[str, int], embedded_sizes: dict[str, int]) -> dict:
    """Peak RSS of a cold index in a fresh process: keyword-only over `sizes` files, and with
    the model over `embedded_sizes` (the growth from 1x to 3x is what streaming must keep
    small), each against the process that only imports sharc, or only loads the model."""
    results: dict = {}
    for name, files in sizes.items():
        results[name] = _peak_of_cold_index(work, f"mem-{name}", files, embed=False)
    results["embedded"] = {
        name: _peak_of_cold_index(work, f"mem-embedded-{name}", files, embed=True)
        for name, files in embedded_sizes.items()
    }
    imports = f"import sharc, sharc.index, sharc.keyword, tantivy; {_PEAK}"
    results["import_only_rss_mb"] = _child_peak_kib(["-c", imports]) / 1024
    results["model_only_rss_mb"] = _child_peak_kib(["-c", _MODEL_ONLY_CHILD]) / 1024
    return results


def _peak_of_cold_index(work: Path, name: str, files: int, *, embed: bool) -> dict:
    root = make_tree(work / name, files)
    index_dir = bench_index_dir(work, name)
    # A cold build every time: an index left by an earlier run would make this a no-op sync.
    shutil.rmtree(index_dir, ignore_errors=True)
    mode = "embed" if embed else "keyword"
    rss_kib = _child_peak_kib(["-c", _RSS_CHILD, str(root), str(index_dir), mode])
    source = sum(p.stat().st_size for p in root.rglob("*.py"))
    index_bytes = _disk_bytes(index_dir)
    return {
        "files": files,
        "peak_rss_mb": rss_kib / 1024,
        "source_mb": source / 1e6,
        "index_vs_source" if embed else "keyword_index_vs_source": index_bytes / source,
    }


def _child_peak_kib(arguments: list[str]) -> int:
    """Run Python with `arguments` in a fresh process; its peak RSS (the last line it prints)."""
    output = subprocess.run(
        [sys.executable, *arguments], capture_output=True, text=True, check=True, cwd=REPO
    )
    return int(output.stdout.strip().splitlines()[-1])
