"""Where the benchmark data lives, and the one on-disk format every set is converted to.

A dataset is a directory of source files (`root`) plus queries, each with one or more targets
(a file and, usually, a 1-based inclusive line span). Sets 1 and 2 (CoSQA, CodeSearchNet-style)
judge with the function rule, set 3 (hand-written) with the overlap rule; see `metrics`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

REPO_ROOT = Path(__file__).resolve().parents[2]
BENCH_DIR = REPO_ROOT / "benches"
QUERIES_DIR = BENCH_DIR / "queries"
RESULTS_DIR = BENCH_DIR / "results"

HitRule = Literal["function", "overlap"]


def data_dir() -> Path:
    """Built datasets and downloads (gitignored); `SHARC_BENCH_DATA` overrides."""
    override = os.environ.get("SHARC_BENCH_DATA")
    return Path(override).expanduser().resolve() if override else BENCH_DIR / "data"


def eval_dir() -> Path:
    """The shared evaluation data: `SHARC_EVAL_DIR`, else `../shared/eval` beside the repo."""
    override = os.environ.get("SHARC_EVAL_DIR")
    return (
        Path(override).expanduser().resolve() if override else REPO_ROOT.parent / "shared" / "eval"
    )


@dataclass(frozen=True)
class Target:
    """Where the answer is: a file, and a 1-based inclusive line span (None: the whole file)."""

    path: str
    start_line: int | None = None
    end_line: int | None = None

    def __post_init__(self) -> None:
        if (self.start_line is None) != (self.end_line is None):
            raise ValueError(f"{self.path}: give both start_line and end_line or neither")
        if self.start_line is not None and not 1 <= self.start_line <= self.end_line:  # type: ignore[operator]
            raise ValueError(f"{self.path}: bad span {self.start_line}-{self.end_line}")


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    targets: tuple[Target, ...]
    kind: str = ""  # free-form label: "docstring", "identifier", "concept", ...


@dataclass
class Dataset:
    """One benchmark set over one repository."""

    name: str  # e.g. "cosqa-dev", "csn/requests-2.32.3", "handwritten/click-8.1.7"
    set: str  # cosqa | csn | handwritten
    root: Path  # the directory to index
    hit_rule: HitRule
    queries: list[Query]
    version: str = ""  # what pins the data: a file hash or NAME==VER
    meta: dict[str, object] = field(default_factory=dict)

    def limited(self, limit: int | None) -> Dataset:
        """The first `limit` queries (None or 0: all), for quick runs."""
        if not limit:
            return self
        return Dataset(
            self.name,
            self.set,
            self.root,
            self.hit_rule,
            self.queries[:limit],
            self.version,
            self.meta,
        )

    # -- storage ---------------------------------------------------------------------------

    def to_json(self, path: Path) -> None:
        """Write the dataset, its root stored relative to the JSON file's directory."""
        payload = {
            "name": self.name,
            "set": self.set,
            "root": os.path.relpath(self.root, path.parent),
            "hit_rule": self.hit_rule,
            "version": self.version,
            "meta": self.meta,
            "queries": [
                {
                    "id": q.id,
                    "text": q.text,
                    "kind": q.kind,
                    "targets": [_target_json(t) for t in q.targets],
                }
                for q in self.queries
            ],
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def from_json(cls, path: Path) -> Dataset:
        payload = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            name=payload["name"],
            set=payload["set"],
            root=(path.parent / payload["root"]).resolve(),
            hit_rule=payload["hit_rule"],
            queries=[_query_from_json(q) for q in payload["queries"]],
            version=payload.get("version", ""),
            meta=payload.get("meta", {}),
        )


def _target_json(target: Target) -> dict[str, object]:
    out = asdict(target)
    if target.start_line is None:
        del out["start_line"], out["end_line"]
    return out


def _query_from_json(raw: dict[str, object]) -> Query:
    targets = tuple(
        Target(str(t["path"]), t.get("start_line"), t.get("end_line"))  # type: ignore[union-attr, arg-type]
        for t in raw["targets"]  # type: ignore[union-attr]
    )
    return Query(str(raw["id"]), str(raw["text"]), targets, str(raw.get("kind", "")))


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def split_lines(text: str) -> list[str]:
    """Lines split on `\\n` only, ends kept: the line numbering of editors, tree-sitter and ast
    (str.splitlines also breaks on form feeds and U+2028, which would shift every span)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines
