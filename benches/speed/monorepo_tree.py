"""The synthetic monorepo of the monorepo benchmark (benches/speed/monorepo.py), built once.

Copies of the Python standard library, the pinned sdists (benches/data/src) and the 38
repositories of the repository benchmark (benches/data/repos, 19 languages) under renamed
directories, each copy with its identifiers renamed (snake_case and camelCase names get the
copy's code name, so copies are distinct code, not duplicates), beside what real monorepos also
hold: vendored copies (third_party/, vendor/: unchanged), copied directories (archive/: exact
twins of a copy), generated code (protobuf/GraphQL-like stubs with "Code generated ... DO NOT
EDIT." or "@generated"), minified bundles, lockfiles and large JSON fixtures. Seeded: the same
sources and seed give the same bytes; a stamp in the tree says what it holds, and a tree whose
stamp matches is reused.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import sysconfig
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benches.speed.common import REPO

DATA = REPO / "benches" / "data"
TREE = DATA / "monorepo"
SEED = 12
GENERATOR_VERSION = 2

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


# -- the files -----------------------------------------------------------------------------------


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
