"""Index size on disk, by part, on real repositories of the repository benchmark.

Each repository is indexed keyword-only (the vectors' size is fixed per chunk: 384 bytes and
usearch's graph) into a scratch directory; its manifest is checkpointed, then measured page by
page (`index_parts`). Baselines measured in the same run: the indexed source, and the code
graph's references stored as sharc stored them before they were keyed by chunk (each row
spelling out its path and chunk id, indexed by name, path and chunk id), rebuilt from the same
rows in a scratch database.

    python -m benches.speed.index_size [--repos spdlog,polly,...]
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sqlite3
import tempfile
from pathlib import Path

from benches.quality.repos import load_repos, unpack
from benches.speed.common import RESULTS, machine, write_result
from benches.speed.index_footprint import index_parts

#: One or two repositories per language family, where the code graph has the most rows.
DEFAULT_REPOS = ("spdlog", "polly", "automapper", "jackson-core", "attrs", "fastify")

_PATH_KEYED = """
CREATE TABLE refs (path TEXT NOT NULL, chunk_id TEXT NOT NULL, name TEXT NOT NULL,
                   kind TEXT NOT NULL, line INTEGER NOT NULL, qualifier TEXT NOT NULL);
CREATE INDEX refs_name ON refs (name);
CREATE INDEX refs_path ON refs (path);
CREATE INDEX refs_chunk ON refs (chunk_id);
"""


def path_keyed_references_bytes(manifest_path: Path, scratch: Path) -> tuple[int, int]:
    """Rows and bytes of the manifest's references in the layout that spelled out path and
    chunk id in every row."""
    from sharc.manifest import Manifest

    manifest = Manifest(manifest_path, writable=False)
    paths = sorted(manifest.files())
    rows = manifest.references_of_paths(paths)
    with contextlib.closing(sqlite3.connect(scratch)) as db:
        db.executescript(_PATH_KEYED)
        db.executemany("INSERT INTO refs VALUES (?, ?, ?, ?, ?, ?)", rows)
        db.commit()
        pages = db.execute("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'refs%'").fetchone()
    return len(rows), int(pages[0] or 0)


def measure(name: str, work: Path) -> dict[str, object]:
    import sharc

    root = unpack(next(iter(load_repos("all", [name]))))
    index_dir = work / name
    index = sharc.Index.open(root, index_dir=index_dir)
    index.update(embed=False)
    chunks = index.stats().chunks
    index.close()
    with contextlib.closing(sqlite3.connect(index_dir / "manifest.sqlite")) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    parts = index_parts(index_dir)
    references, before = path_keyed_references_bytes(
        index_dir / "manifest.sqlite", work / f"{name}.path-keyed.sqlite"
    )
    source = sum(f.size for f in sharc.walk(root).files)
    total = sum(parts.values())
    return {
        "chunks": chunks,
        "references": references,
        "source_bytes": source,
        "index_bytes": total,
        "parts_bytes": parts,
        "references_path_keyed_bytes": before,
        "references_vs_path_keyed": parts["manifest_references"] / before if before else None,
        "index_vs_index_with_path_keyed_references": total
        / (total - parts["manifest_references"] + before),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", default=",".join(DEFAULT_REPOS))
    parser.add_argument("--out", type=Path, default=RESULTS / "speed_index_size.json")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="sharc-index-size-"))
    try:
        repos = {}
        for name in args.repos.split(","):
            repos[name] = measure(name, work)
            r = repos[name]
            print(f"{name:14} {r['chunks']:6,} chunks {r['references']:7,} references"
                  f"  index {r['index_bytes'] / 1e6:6.2f} MB (source {r['source_bytes'] / 1e6:5.2f})"
                  f"  references {r['parts_bytes']['manifest_references'] / 1e6:5.2f} MB"
                  f" vs {r['references_path_keyed_bytes'] / 1e6:5.2f} path-keyed", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_result(args.out, {
        "benchmark": "index size on disk by part, keyword-only, repository benchmark repos",
        "command": "python -m benches.speed.index_size",
        "machine": machine(),
        "repos": repos,
    })
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
