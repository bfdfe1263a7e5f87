"""Monorepo-scale indexing on one machine: a synthetic monorepo of 100,000 files.

The tree (built once, seeded, under benches/data/monorepo; a stamp says what it holds):
copies of the Python standard library, the pinned sdists (benches/data/src) and the 38
repositories of the repository benchmark (benches/data/repos, 19 languages) under renamed
directories, each copy with its identifiers renamed (snake_case and camelCase names get the
copy's code name, so copies are distinct code, not duplicates), beside what real monorepos
also hold: vendored copies (third_party/, vendor/: unchanged), copied directories
(archive/: exact twins of a copy), generated code (protobuf/GraphQL-like stubs with
"Code generated ... DO NOT EDIT." or "@generated"), minified bundles, lockfiles and large
JSON fixtures.

Measured in one run, each index built cold in its own process (wall time, and the peak RSS
of that process alone):

- walk + chunk: `sharc.walk` and `sharc.chunk_files` (with the embedding policy) over every
  file, in batches; the same pass counts the chunks the policy keeps keyword-only, by rule,
  and the distinct texts among those it embeds (what dedup leaves to the model);
- keyword-only index: `sharc index --keyword-only` (the baseline of the ratios below);
- first keyword result: seconds from the start of a cold `sharc index` (default model) until
  a keyword search in another process finds a chunk (the indexer is then stopped);
- full index with the fast model: `sharc index --model fast`;
- embedding alone, the default model and the fast model on the same seeded sample of the
  chunks the policy embeds (block by block in turn); the default model's time for the whole
  tree is estimated from its rate and the chunks that need the model (it is not run on it).

Targets (issue #12, 2 cores): first keyword result <= 30 s, full fast index <= 2x the
keyword-only index, peak RSS <= 2 GB.

    python -m benches.speed.monorepo [--files 100000] [--quick] [--sample 600]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benches.speed.common import REPO, RESULTS, machine, write_result

DATA = REPO / "benches" / "data"
TREE = DATA / "monorepo"
WORK = DATA / "speed-work" / "monorepo"
SEED = 12
GENERATOR_VERSION = 2
QUICK_FILES = 2_000

TARGETS = {"first_keyword_result_seconds": 30.0, "fast_vs_keyword_only": 2.0,
           "peak_rss_mb": 2048.0}

# Shares of the tree's files; the rest are renamed copies of the source projects.
SHARES = {
    "vendored": 0.06,  # third_party/<project>/, services/<x>/vendor/<project>/: unchanged copies
    "copied": 0.03,  # archive/<copy>-old/: exact twins of a renamed copy
    "generated": 0.04,  # protobuf / GraphQL-like stubs with a generated marker
    "lockfile": 0.005,
    "minified": 0.002,
    "data": 0.003,  # JSON fixtures over the policy's data size
}
CODE_NAMES = (
    "atlas", "borealis", "cobalt", "dune", "ember", "fjord", "granite", "harbor", "iris",
    "juniper", "kestrel", "lumen", "meridian", "nimbus", "onyx", "prism", "quartz", "raven",
    "sierra", "tundra", "umbra", "vertex", "willow", "xenon", "yarrow", "zephyr",
)
AREAS = ("services", "libs", "platform", "tools", "apps")
# Keywords that contain an underscore (C++, Rust): renaming them would break the parse.
_SNAKE = re.compile(
    r"\b(?!(?:macro_rules|static_assert|static_cast|const_cast|dynamic_cast|reinterpret_cast"
    r"|thread_local)\b)([A-Za-z][A-Za-z0-9]*_\w*)"
)
_CAMEL = re.compile(r"\b([a-z][a-z0-9]*[A-Z]\w*)")


# -- the tree -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Project:
    """A source tree to copy: its name and the files sharc indexes in it (relative paths)."""

    name: str
    root: Path
    files: tuple[str, ...]


def source_projects(stdlib_only: bool = False) -> list[Project]:
    """The standard library, the pinned sdists and the benchmark repositories that are here."""
    import sharc

    roots = [("cpython-stdlib", Path(sysconfig.get_paths()["stdlib"]))]
    if not stdlib_only:
        src, repos = DATA / "src", DATA / "repos"
        if src.is_dir():
            roots += [(p.name, p) for p in sorted(src.iterdir())
                      if p.is_dir() and not p.name.endswith(".extracted")]
        if repos.is_dir():
            roots += [(p.name, p) for p in sorted(repos.iterdir()) if p.is_dir()]
    projects = []
    for name, root in roots:
        walked = sharc.walk(root, ignore_patterns=["site-packages/", "__pycache__/"])
        files = tuple(sorted(f.path for f in walked.files))
        if files:
            projects.append(Project(name, root, files))
    return projects


def rename_identifiers(text: str, code_name: str) -> str:
    """Give every snake_case and camelCase identifier the copy's code name: the same code in
    another part of the monorepo, not a duplicate (dunders and plain words are left alone)."""
    text = _SNAKE.sub(rf"\1_{code_name}", text)
    return _CAMEL.sub(rf"\1{code_name.capitalize()}", text)


def _code_name(number: int) -> str:
    base = CODE_NAMES[number % len(CODE_NAMES)]
    return base if number < len(CODE_NAMES) else f"{base}{number // len(CODE_NAMES)}"


class _Writer:
    """Writes the tree's files and counts them by kind."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.counts: Counter[str] = Counter()
        self.bytes = 0
        self.paths: set[str] = set()

    def write(self, kind: str, relative: str, data: bytes) -> None:
        if relative in self.paths:
            raise ValueError(f"{relative} written twice: the tree would be short of files")
        self.paths.add(relative)
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.counts[kind] += 1
        self.bytes += len(data)


def build_tree(root: Path, files: int, seed: int = SEED, *, stdlib_only: bool = False) -> dict:
    """Build the monorepo of `files` files under `root`, or reuse it if its stamp matches."""
    stamp_path = root / ".monorepo-stamp.json"
    projects = source_projects(stdlib_only)
    wanted = {
        "version": GENERATOR_VERSION,
        "files": files,
        "seed": seed,
        "sources": {p.name: len(p.files) for p in projects},
    }
    if stamp_path.exists():
        stamp = json.loads(stamp_path.read_text())
        if {key: stamp.get(key) for key in wanted} == wanted:
            return stamp
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    started = time.perf_counter()
    rng = random.Random(seed)
    out = _Writer(root)
    budget = {kind: max(1, round(files * share)) for kind, share in SHARES.items()}
    renamed = files - sum(budget.values())
    contents = {p.name: [(p.root / f).read_bytes() for f in p.files] for p in projects}

    copies = _renamed_copies(out, projects, contents, renamed, rng)
    _vendored(out, projects, contents, budget["vendored"], rng)
    _copied(out, copies, budget["copied"], rng)
    _generated(out, budget["generated"], rng)
    _lockfiles(out, [directory for directory, _ in copies], budget["lockfile"], rng)
    _minified(out, budget["minified"], rng)
    _data_files(out, budget["data"], rng)
    stamp = {
        **wanted,
        "files_written": sum(out.counts.values()),
        "bytes": out.bytes,
        "by_kind": dict(sorted(out.counts.items())),
        "build_seconds": round(time.perf_counter() - started, 1),
    }
    stamp_path.write_text(json.dumps(stamp, indent=2) + "\n")
    return stamp


def _renamed_copies(
    out: _Writer, projects: list[Project], contents: dict[str, list[bytes]], files: int,
    rng: random.Random,
) -> list[tuple[str, list[str]]]:
    """Copies of the projects, round after round in a shuffled order, each under a renamed
    directory with its identifiers renamed; the last copy is cut to hit `files`. Returns each
    copy's directory and files (relative to the tree)."""
    copies: list[tuple[str, list[str]]] = []
    written = number = 0
    while written < files:
        order = projects[:]
        rng.shuffle(order)
        for project in order:
            if written >= files:
                break
            name = _code_name(number)
            area = AREAS[rng.randrange(len(AREAS))]
            directory = f"{area}/{name}-{project.name.lower()}"
            take = min(len(project.files), files - written)
            paths = []
            for relative, data in zip(project.files[:take], contents[project.name][:take]):
                try:
                    data = rename_identifiers(data.decode("utf-8"), name).encode("utf-8")
                except UnicodeDecodeError:
                    pass  # copied as it is
                out.write("renamed_copy", f"{directory}/{relative}", data)
                paths.append(f"{directory}/{relative}")
            copies.append((directory, paths))
            written += take
            number += 1
    return copies


def _vendored(
    out: _Writer, projects: list[Project], contents: dict[str, list[bytes]], files: int,
    rng: random.Random,
) -> None:
    """Unchanged copies of projects where monorepos vendor them."""
    written = 0
    used: set[str] = set()
    while written < files:
        project = projects[rng.randrange(len(projects))]
        if rng.random() < 0.5:
            directory = f"third_party/{project.name.lower()}-{rng.randrange(1, 9)}.{rng.randrange(20)}"
        else:
            owner = _code_name(rng.randrange(3 * len(CODE_NAMES)))
            directory = f"services/{owner}-gateway/vendor/{project.name.lower()}"
        if directory in used:
            continue
        used.add(directory)
        take = min(len(project.files), files - written)
        for relative, data in zip(project.files[:take], contents[project.name][:take]):
            out.write("vendored", f"{directory}/{relative}", data)
        written += take


def _copied(
    out: _Writer, copies: list[tuple[str, list[str]]], files: int, rng: random.Random
) -> None:
    """Directories copied whole (a fork kept "for now"): exact twins of a renamed copy."""
    written = 0
    used: set[str] = set()
    while written < files:
        directory, paths = copies[rng.randrange(len(copies))]
        if directory in used:
            continue
        used.add(directory)
        take = min(len(paths), files - written)
        for path in paths[:take]:
            relative = path[len(directory) + 1 :]
            twin = f"archive/{directory.replace('/', '-')}-old/{relative}"
            out.write("copied", twin, (out.root / path).read_bytes())
        written += take


_WORDS = (
    "account", "address", "audit", "balance", "batch", "billing", "cart", "catalog", "channel",
    "checkout", "cluster", "comment", "config", "contact", "coupon", "customer", "device",
    "event", "feature", "invoice", "item", "ledger", "license", "location", "message", "metric",
    "node", "order", "payment", "permission", "plan", "policy", "price", "product", "profile",
    "quota", "refund", "region", "report", "review", "role", "route", "schedule", "session",
    "shipment", "subscription", "tenant", "ticket", "token", "transfer", "user", "vendor",
    "warehouse", "webhook",
)


def _camel(words: list[str]) -> str:
    return "".join(word.capitalize() for word in words)


def _generated(out: _Writer, files: int, rng: random.Random) -> None:
    """Generated stubs, one message type per group of small symbols, in Go, Python and
    TypeScript, each with its generator's marker."""
    for number in range(files):
        service = _camel(rng.sample(_WORDS, 2))
        messages = [_camel(rng.sample(_WORDS, 2)) + str(rng.randrange(100))
                    for _ in range(rng.randrange(4, 30))]
        kind = number % 3
        owner = _code_name(rng.randrange(3 * len(CODE_NAMES)))
        if kind == 0:
            text = _go_stub(service, messages)
            path = f"gen/go/{owner}/{service.lower()}pb/{service.lower()}_{number}.pb.go"
        elif kind == 1:
            text = _python_stub(service, messages)
            path = f"gen/python/{owner}/{service.lower()}_{number}_pb2.py"
        else:
            text = _typescript_stub(service, messages)
            path = f"apps/{owner}-web/src/__generated__/{service}{number}.graphql.ts"
        out.write("generated", path, text.encode())


def _go_stub(service: str, messages: list[str]) -> str:
    parts = [
        "// Code generated by protoc-gen-go. DO NOT EDIT.\n// versions:\n//  protoc-gen-go v1.31.0\n"
        f"// source: {service.lower()}.proto\n\npackage {service.lower()}pb\n\n"
        'import (\n\tprotoreflect "google.golang.org/protobuf/reflect/protoreflect"\n)\n'
    ]
    for message in messages:
        fields = [(_camel([word]), word) for word in ("id", "name", "created", "state")]
        body = "".join(
            f"\t{field} string `protobuf:\"bytes,{i + 1},opt,name={tag},proto3\" json:\"{tag},omitempty\"`\n"
            for i, (field, tag) in enumerate(fields)
        )
        parts.append(f"type {message} struct {{\n\tstate protoimpl.MessageState\n{body}}}\n")
        parts.append(f"func (x *{message}) Reset() {{\n\t*x = {message}{{}}\n}}\n")
        parts.append(f"func (x *{message}) ProtoReflect() protoreflect.Message {{\n"
                     f"\treturn file_{service.lower()}_proto_msgTypes[0].MessageOf(x)\n}}\n")
        for field, _ in fields:
            parts.append(f"func (x *{message}) Get{field}() string {{\n\tif x != nil {{\n"
                         f"\t\treturn x.{field}\n\t}}\n\treturn \"\"\n}}\n")
    return "\n".join(parts)


def _python_stub(service: str, messages: list[str]) -> str:
    parts = [
        "# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n"
        f"# source: {service.lower()}.proto\n\"\"\"Generated protocol buffer code.\"\"\"\n"
        "from google.protobuf import descriptor as _descriptor\n"
    ]
    for message in messages:
        parts.append(
            f"class {message}(_message.Message):\n    __slots__ = ('id', 'name', 'state')\n"
            f"    DESCRIPTOR = _descriptor.Descriptor(name='{message}', full_name="
            f"'{service.lower()}.{message}')\n\n"
            f"    def __init__(self, id=None, name=None, state=None):\n"
            f"        self.id, self.name, self.state = id, name, state\n"
        )
    parts.append(
        f"class {service}Stub(object):\n    def __init__(self, channel):\n"
        + "".join(f"        self.Get{m} = channel.unary_unary('/{service}/Get{m}')\n"
                  for m in messages)
    )
    return "\n\n".join(parts)


def _typescript_stub(service: str, messages: list[str]) -> str:
    parts = [f"/* eslint-disable */\n// @generated by graphql-codegen for {service}\n"]
    for message in messages:
        parts.append(
            f"export type {message} = {{\n  __typename?: '{message}';\n  id: string;\n"
            f"  name?: string | null;\n  state: number;\n}};\n"
        )
        parts.append(
            f"export function use{message}Query(variables: {{ id: string }}) {{\n"
            f"  return useQuery<{message}>({message}Document, {{ variables }});\n}}\n"
        )
    return "\n".join(parts)


def _lockfiles(out: _Writer, directories: list[str], files: int, rng: random.Random) -> None:
    """Lockfiles of several ecosystems at the top of renamed copies."""
    for number in range(files):
        kind = number % 4
        name = ("package-lock.json", "Cargo.lock", "go.sum", "yarn.lock")[kind]
        # The next copy that has no lockfile of this kind yet.
        directory = next(
            directories[(number + step) % len(directories)]
            for step in range(len(directories))
            if f"{directories[(number + step) % len(directories)]}/{name}" not in out.paths
        )
        packages = [(f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}",
                     f"{rng.randrange(5)}.{rng.randrange(30)}.{rng.randrange(12)}")
                    for _ in range(rng.randrange(80, 600))]
        if kind == 0:
            body = json.dumps({"name": directory.rsplit("/", 1)[-1], "lockfileVersion": 3,
                               "packages": {f"node_modules/{p}": {
                                   "version": v,
                                   "resolved": f"https://registry.npmjs.org/{p}/-/{p}-{v}.tgz",
                                   "integrity": "sha512-" + hashlib.sha512(
                                       f"{p}{v}".encode()).hexdigest()[:86]}
                                   for p, v in packages}}, indent=2)
        elif kind == 1:
            body = "# This file is automatically @generated by Cargo.\nversion = 3\n\n" + "".join(
                f'[[package]]\nname = "{p}"\nversion = "{v}"\nsource = '
                f'"registry+https://github.com/rust-lang/crates.io-index"\nchecksum = '
                f'"{hashlib.sha256(p.encode() + v.encode()).hexdigest()}"\n\n'
                for p, v in packages)
        elif kind == 2:
            body = "".join(
                f"github.com/{p}/{p} v{v} h1:{hashlib.sha256(p.encode()).hexdigest()[:43]}=\n"
                for p, v in packages)
        else:
            body = "# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n\n" + "".join(
                f'"{p}@^{v}":\n  version "{v}"\n  resolved "https://registry.yarnpkg.com/{p}/-/'
                f'{p}-{v}.tgz"\n\n' for p, v in packages)
        out.write("lockfile", f"{directory}/{name}", body.encode())


def _minified(out: _Writer, files: int, rng: random.Random) -> None:
    """Minified one-line bundles, 50-400 KB, where a web app's build output is checked in."""
    for _ in range(files):
        size = rng.randrange(50_000, 400_000)
        modules, total, module = [], 0, 0
        while total < size:
            word = rng.choice(_WORDS)
            text = (
                f'{module}:(e,t,n)=>{{"use strict";n.d(t,{{{word}:()=>r}});var o=n({module % 89}),'
                f'i=n.n(o);function r(e,t){{return i()(e).map(function(n){{return n.{word}*t+'
                f'{rng.randrange(1000)}}}).filter(Boolean)}}}}'
            )
            modules.append(text)
            total += len(text) + 1
            module += 1
        bundle = ("(()=>{var e={" + ",".join(modules) + "};var t={};function n(r){var o=t[r];"
                  "if(void 0!==o)return o.exports;var i=t[r]={exports:{}};return e[r](i,i.exports,"
                  "n),i.exports}n(0)})();\n")
        owner = _code_name(rng.randrange(3 * len(CODE_NAMES)))
        digest = hashlib.sha1(bundle.encode()).hexdigest()[:8]
        out.write("minified", f"apps/{owner}-web/public/static/js/main.{digest}.js", bundle.encode())


def _data_files(out: _Writer, files: int, rng: random.Random) -> None:
    """JSON test fixtures larger than the policy's data size."""
    for number in range(files):
        rows = [{"id": rng.randrange(10**9), "kind": rng.choice(_WORDS),
                 "name": f"{rng.choice(_WORDS)} {rng.choice(_WORDS)}",
                 "amount": round(rng.random() * 1000, 2), "active": rng.random() < 0.5}
                for _ in range(rng.randrange(400, 3000))]
        owner = _code_name(rng.randrange(3 * len(CODE_NAMES)))
        out.write("data", f"services/{owner}-api/testdata/fixtures/{rng.choice(_WORDS)}_{number}.json",
                  json.dumps(rows, indent=2).encode())


# -- measurements -------------------------------------------------------------------------------


def walk_and_chunk(root: Path, sample_size: int, seed: int = SEED) -> tuple[dict, list[str]]:
    """`sharc.walk` then `sharc.chunk_files` (default embedding policy) over every file, in
    batches (timed: those calls only). Also counts what the policy keeps keyword-only and the
    distinct texts it embeds, and draws a seeded sample of the embedded texts."""
    import sharc
    from sharc.embed_policy import policy_from_settings

    policy = policy_from_settings(None)
    rng = random.Random(seed)
    started = time.perf_counter()
    walked = sharc.walk(root)
    walk_seconds = time.perf_counter() - started
    chunk_seconds = 0.0
    chunks = embeddable = errors = 0
    keyword_only: Counter[str] = Counter()
    keyword_only_files: Counter[str] = Counter()
    distinct: set[int] = set()
    sample: list[str] = []
    batch = 2_000
    for start in range(0, len(walked.files), batch):
        files = walked.files[start : start + batch]
        began = time.perf_counter()
        chunked = sharc.chunk_files(root, files, policy=policy)
        chunk_seconds += time.perf_counter() - began
        for result in chunked:
            errors += result.error is not None
            chunks += len(result.chunks)
            skip = result.keyword_only.chunk_ids if result.keyword_only else frozenset()
            if result.keyword_only:
                keyword_only[result.keyword_only.rule] += len(skip)
                keyword_only_files[result.keyword_only.rule] += 1
            for chunk in result.chunks:
                if chunk.id in skip:
                    continue
                # What the index's vector key digests: the text less the chunk's own path.
                text = chunk.header.replace(chunk.path, "") + chunk.code
                distinct.add(hash(text))
                embeddable += 1
                # Reservoir sampling: a uniform sample of the embedded texts, seeded.
                if len(sample) < sample_size:
                    sample.append(chunk.header + chunk.code)
                elif (slot := rng.randrange(embeddable)) < sample_size:
                    sample[slot] = chunk.header + chunk.code
    seconds = walk_seconds + chunk_seconds
    source = sum(f.size for f in walked.files)
    return {
        "files": len(walked.files),
        "skipped_by_walk": len(walked.skipped),
        "source_mb": round(source / 1e6, 1),
        "chunks": chunks,
        "chunk_errors": errors,
        "walk_seconds": round(walk_seconds, 2),
        "chunk_seconds": round(chunk_seconds, 2),
        "seconds": round(seconds, 2),
        "files_per_s": round(len(walked.files) / seconds),
        "chunks_per_s": round(chunks / seconds),
        "mb_per_s": round(source / 1e6 / seconds, 2),
        "policy": {
            "embedded_chunks": embeddable,
            "keyword_only_chunks": sum(keyword_only.values()),
            "keyword_only_chunks_by_rule": dict(sorted(keyword_only.items())),
            "keyword_only_files_by_rule": dict(sorted(keyword_only_files.items())),
            "distinct_embedded_texts": len(distinct),
            "duplicate_texts_saved": embeddable - len(distinct),
        },
    }, sample


# Runs `sharc` in this process and prints its peak RSS at exit: VmHWM starts afresh at exec,
# while ru_maxrss of a child keeps the high-water mark of the process that forked it.
_CLI_WITH_PEAK = """
import atexit, sys
def _peak():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM'):
            print('peak_rss_kib', line.split()[1], file=sys.stderr, flush=True)
atexit.register(_peak)
from sharc.cli import main
sys.exit(main(sys.argv[1:]))
"""
_EMBEDDED = re.compile(r"(\d+) chunks embedded")


def sharc_index(root: Path, index_dir: Path, *options: str) -> dict:
    """A cold `sharc index` in its own process: wall seconds, peak RSS, what it reported."""
    import sharc

    shutil.rmtree(index_dir, ignore_errors=True)
    command = [sys.executable, "-c", _CLI_WITH_PEAK, "index", str(root), "--index-dir",
               str(index_dir), *options]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[3:])} failed:\n{done.stderr[-3000:]}")
    peak = re.search(r"peak_rss_kib (\d+)", done.stderr)
    embedded = _EMBEDDED.search(done.stderr)
    index = sharc.Index.open(root, index_dir=index_dir)
    stats = index.stats()
    index.close()
    return {
        "command": "sharc index " + " ".join(options),
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(int(peak.group(1)) / 1024, 1) if peak else None,
        "files": stats.files,
        "chunks": stats.chunks,
        "embedded_chunks": stats.embedded_chunks,
        "keyword_only_chunks": stats.keyword_only_chunks,
        "keyword_only_files": stats.keyword_only_files,
        "chunks_embedded_by_model": int(embedded.group(1)) if embedded else None,
        "index_mb": round(stats.size_bytes / 1e6, 1),
        "model": stats.model,
        "report": next((line.strip() for line in reversed(done.stderr.splitlines())
                        if line.lstrip("\r").startswith("indexed ")), ""),
    }


def first_keyword_result(root: Path, index_dir: Path, timeout: float) -> dict:
    """Seconds from the start of a cold `sharc index` (default model) until a keyword search in
    another process (this one) finds a chunk; the indexer is stopped then."""
    import sharc
    import sharc.keyword  # noqa: F401 - the poller's imports are not the indexer's time
    import sharc.ranking  # noqa: F401

    shutil.rmtree(index_dir, ignore_errors=True)
    command = [sys.executable, "-m", "sharc.cli", "index", str(root), "--index-dir",
               str(index_dir)]
    polls = 0
    started = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          stdin=subprocess.DEVNULL) as process:
        try:
            while True:
                polls += 1
                if _keyword_hit(sharc, root, index_dir):
                    seconds = time.perf_counter() - started
                    break
                if process.poll() is not None:
                    raise RuntimeError(f"sharc index of {root} ended before a keyword hit")
                if time.perf_counter() - started > timeout:
                    seconds = None
                    break
                time.sleep(0.05)
        finally:
            process.kill()
    index = sharc.Index.open(root, index_dir=index_dir)
    files = index.stats().files
    index.close()
    shutil.rmtree(index_dir, ignore_errors=True)
    return {
        "seconds": None if seconds is None else round(seconds, 2),
        "timed_out_after_seconds": timeout if seconds is None else None,
        "files_searchable_when_stopped": files,
        "polls": polls,
    }


def _keyword_hit(sharc: Any, root: Path, index_dir: Path) -> bool:
    try:
        index = sharc.Index.open(root, index_dir=index_dir)
    except sharc.SharcError:
        return False
    try:
        return bool(index.search("return", mode="keyword"))
    except sharc.SharcError:  # not there yet, or being created
        return False
    finally:
        index.close()


def embedding_sample(sample: list[str], block: int = 100) -> dict:
    """The default model and the fast model on the same texts, block by block in turn (a
    shared machine slows both alike); models loaded before the clocks start."""
    from sharc.embedding import load_embedder, physical_cores

    default, fast = load_embedder(), load_embedder("fast")
    default.embed_documents(sample[:8])
    seconds = {"default": 0.0, "fast": 0.0}
    for start in range(0, len(sample), block):
        texts = sample[start : start + block]
        for name, model in (("fast", fast), ("default", default)):
            began = time.perf_counter()
            model.embed_documents(texts)
            seconds[name] += time.perf_counter() - began
    return {
        "chunks": len(sample),
        "threads": physical_cores(),
        "default_model": default.model_id,
        "default_seconds": round(seconds["default"], 2),
        "default_chunks_per_s": round(len(sample) / seconds["default"], 1),
        "fast_model": fast.model_id,
        "fast_seconds": round(seconds["fast"], 3),
        "fast_chunks_per_s": round(len(sample) / seconds["fast"], 1),
        "fast_vs_default": round(seconds["default"] / seconds["fast"], 1),
    }


def measure(
    root: Path, work: Path, sample_size: int, first_timeout: float,
    on_step: Callable[[dict], None] | None = None,
) -> dict:
    """Every figure of the benchmark on the tree at `root`, in one run; `on_step` gets the
    figures so far after each step (a long run on a shared machine keeps what it measured).
    Each step records the 1-minute load average before and after it."""
    result: dict[str, Any] = {}
    sample: list[str] = []

    def step(name: str, run: Callable[[], dict]) -> None:
        before = os.getloadavg()[0]
        result[name] = {**run(), "load_average_1min": [round(before, 2),
                                                        round(os.getloadavg()[0], 2)]}
        _log(name, result[name])
        if on_step is not None:
            on_step(result)

    def chunked() -> dict:
        figures, drawn = walk_and_chunk(root, sample_size)
        sample.extend(drawn)
        return figures

    step("walk_chunk", chunked)
    step("keyword_only_index",
         lambda: sharc_index(root, work / "index-keyword", "--keyword-only"))
    step("first_keyword_result",
         lambda: first_keyword_result(root, work / "index-first", first_timeout))
    step("fast_index", lambda: sharc_index(root, work / "index-fast", "--model", "fast"))
    shutil.rmtree(work / "index-fast", ignore_errors=True)
    if sample:
        step("embedding_sample", lambda: embedding_sample(sample))
    return summarise(result)


def summarise(result: dict) -> dict:
    """Ratios, savings, estimates and the targets, from the measured figures."""
    keyword, fast = result["keyword_only_index"], result["fast_index"]
    model_chunks = fast["chunks_embedded_by_model"] or 0
    fast_embed_seconds = fast["seconds"] - keyword["seconds"]
    savings = {
        "chunks": fast["chunks"],
        "keyword_only_by_policy": fast["keyword_only_chunks"],
        "keyword_only_files": fast["keyword_only_files"],
        "keyword_only_by_rule": result["walk_chunk"]["policy"]["keyword_only_chunks_by_rule"],
        "embeddable_chunks": fast["embedded_chunks"],
        "embedded_by_model": model_chunks,
        "dedup_saved": fast["embedded_chunks"] - model_chunks,
        "model_calls_vs_all_chunks": round(model_chunks / max(1, fast["chunks"]), 3),
    }
    result["savings"] = savings
    if fast_embed_seconds > 0 and model_chunks:
        result["fast_index"]["embedding_chunks_per_s_over_keyword_only"] = round(
            model_chunks / fast_embed_seconds)
    sample = result.get("embedding_sample")
    if sample:
        seconds = model_chunks / sample["default_chunks_per_s"]
        result["default_model_estimate"] = {
            "note": "the default model's embedding time for the chunks the fast index sent to"
                    " the model, at its sampled rate, plus the keyword-only index; not run",
            "embedding_seconds": round(seconds),
            "index_seconds": round(seconds + keyword["seconds"]),
            "index_hours": round((seconds + keyword["seconds"]) / 3600, 2),
            "without_policy_and_dedup_seconds": round(
                result["walk_chunk"]["chunks"] / sample["default_chunks_per_s"]),
        }
    first = result["first_keyword_result"]["seconds"]
    ratio = fast["seconds"] / keyword["seconds"]
    peak = max(keyword["peak_rss_mb"] or 0, fast["peak_rss_mb"] or 0)
    result["ratios"] = {
        "fast_index_vs_keyword_only": round(ratio, 2),
        "first_keyword_result_vs_keyword_only": None if first is None
        else round(first / keyword["seconds"], 3),
    }
    result["targets"] = {
        "first_keyword_result_seconds": {
            "target": TARGETS["first_keyword_result_seconds"], "measured": first,
            "met": first is not None and first <= TARGETS["first_keyword_result_seconds"]},
        "fast_vs_keyword_only": {
            "target": TARGETS["fast_vs_keyword_only"], "measured": round(ratio, 2),
            "met": ratio <= TARGETS["fast_vs_keyword_only"]},
        "peak_rss_mb": {
            "target": TARGETS["peak_rss_mb"], "measured": peak,
            "met": peak <= TARGETS["peak_rss_mb"]},
    }
    return result


def _log(step: str, value: Any) -> None:
    print(json.dumps({step: value}), file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100_000, help="files in the tree")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_FILES:,} files")
    parser.add_argument("--sample", type=int, default=600,
                        help="chunks both models embed (0: leave the models out)")
    parser.add_argument("--tree", type=Path, help=f"where the tree is built (default {TREE})")
    parser.add_argument("--work", type=Path, default=WORK, help="where the indexes go")
    parser.add_argument("--stdlib-only", action="store_true",
                        help="copy only the standard library (no benches/data sources)")
    parser.add_argument("--first-timeout", type=float, default=300.0,
                        help="seconds to wait for the first keyword result")
    parser.add_argument("--out", type=Path, help="default benches/results/speed_monorepo.json"
                        " (with --quick: speed_monorepo_quick.json under --work)")
    args = parser.parse_args(argv)
    files = QUICK_FILES if args.quick else args.files
    tree = args.tree or (TREE if files == 100_000 else TREE.with_name(f"monorepo-{files}"))
    # A smoke run's figures are not the benchmark's: they stay beside its indexes.
    out = args.out or (args.work / "speed_monorepo_quick.json" if args.quick
                       else RESULTS / "speed_monorepo.json")
    os.environ.setdefault("SHARC_CACHE_DIR", str(DATA / "speed-work" / "cache"))
    load_before = os.getloadavg()
    tree_stamp = build_tree(tree, files, stdlib_only=args.stdlib_only)
    _log("tree", tree_stamp)
    args.work.mkdir(parents=True, exist_ok=True)
    head = {
        "benchmark": "monorepo",
        "quick": args.quick,
        "command": "python -m benches.speed.monorepo " + " ".join(argv or sys.argv[1:]),
        "tree": {**tree_stamp, "path": str(tree.relative_to(REPO)) if tree.is_relative_to(REPO)
                 else str(tree)},
        "targets_note": "issue #12, 2 cores",
    }

    def partial(figures: dict) -> None:
        write_result(out, {**head, **figures, "complete": False, "machine": {
            **machine(), "load_average_before": load_before,
            "load_average_after": os.getloadavg()}})

    figures = measure(tree, args.work, args.sample, args.first_timeout, on_step=partial)
    result = {**head, **figures, "complete": True, "machine": {
        **machine(), "load_average_before": load_before, "load_average_after": os.getloadavg()}}
    write_result(out, result)
    print(json.dumps({"ratios": result["ratios"], "targets": result["targets"]}, indent=2))
    return result


if __name__ == "__main__":
    main()
