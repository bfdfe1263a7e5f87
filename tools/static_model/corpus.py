"""Turn the fetched packages into the training texts of the fast model.

    python -m tools.static_model.corpus chunk     # unpack + chunk every package (sharc itself)
    python -m tools.static_model.corpus sample    # dedupe, balance languages -> corpus.jsonl

`chunk` unpacks each pinned archive, walks it with ``sharc.walk`` and chunks it with
``sharc.chunk_files`` under the default embedding policy, keeping what an index would embed
(``chunk.text``: header + code), one gzipped JSON-lines file per package. `sample` drops exact
duplicates (by code), caps each package and each language so that no one of them dominates,
adds short natural-language texts (the first sentences of doc comments and docstrings, and
identifiers split into words) because queries are short and worded, and writes the result in
a seeded random order, so any prefix of it is a fair sample.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
import shutil
import sys
import tarfile
import tempfile
import zipfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from tools.static_model.fetch import DOWNLOADS, LOCK, WORK

CHUNKS = WORK / "chunks"
CORPUS = WORK / "corpus.jsonl"
EXTRA = WORK / "corpus-short.jsonl"
SEED = 20261201
PER_PACKAGE = 2500  # chunks kept from one package in one language at most
FILES_PER_PACKAGE = 3000  # files chunked from one package at most (a seeded sample)
PER_LANGUAGE = 12000  # chunks kept from one language at most
#: Data and markup an index embeds but nobody asks about in words: fewer of them.
LANGUAGE_CAPS = {"json": 2000, "yaml": 2000, "toml": 1500, "xml": 1000, "ini": 600, "css": 1500,
                 "other": 1000}
SHORT_TEXTS = 40000  # doc-comment sentences and split identifiers in the corpus
EXTRA_SHORT_TEXTS = 150000  # more of them, in corpus-short.jsonl
PROSE_LANGUAGES = {"markdown", "rst", "text", "asciidoc", "org", "html", "xml"}


# -- chunk ------------------------------------------------------------------------------------


def _archives(entry: dict[str, Any], source: str) -> list[Path]:
    if source == "debian":
        directory = DOWNLOADS / "debian" / entry["name"]
        return sorted(p for p in directory.iterdir() if ".tar." in p.name
                      and ".debian.tar." not in p.name and not p.name.endswith(".asc"))
    folder = "crates" if source == "crates" else "pypi"
    return [DOWNLOADS / folder / entry["filename"]]


def _unpack(archive: Path, into: Path) -> None:
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as bundle:
            bundle.extractall(into)
        return
    with tarfile.open(archive) as bundle:  # .crate is a gzipped tarball too
        bundle.extractall(into, filter="data")


def chunk_package(source: str, entry: dict[str, Any]) -> tuple[str, int]:
    """Chunk one package into ``chunks/<source>/<name>.jsonl.gz``; returns (name, chunks)."""
    import sharc
    from sharc.embed_policy import policy_from_settings

    target = CHUNKS / source / f"{entry['name']}.jsonl.gz"
    if target.is_file():
        return entry["name"], -1
    policy = policy_from_settings(None)
    count = 0
    with tempfile.TemporaryDirectory(dir=WORK) as scratch:
        root = Path(scratch)
        for archive in _archives(entry, source):
            try:
                _unpack(archive, root)
            except (tarfile.TarError, zipfile.BadZipFile, OSError) as error:
                print(f"{source}/{entry['name']}: {archive.name}: {error}", file=sys.stderr)
        files = sharc.walk(root).files
        if len(files) > FILES_PER_PACKAGE:
            chosen = set(random.Random(SEED).sample(range(len(files)), FILES_PER_PACKAGE))
            files = [f for i, f in enumerate(files) if i in chosen]
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".part")
        with gzip.open(partial, "wt", encoding="utf-8") as out:
            for start in range(0, len(files), 200):
                batch = files[start : start + 200]
                for chunked in sharc.chunk_files(root, batch, policy=policy):
                    skip = chunked.keyword_only.chunk_ids if chunked.keyword_only else frozenset()
                    for chunk in chunked.chunks:
                        if chunk.id in skip or not chunk.code.strip():
                            continue
                        out.write(json.dumps({
                            "text": chunk.text, "code": chunk.code, "language": chunk.language,
                            "kind": chunk.kind, "symbol": chunk.symbol, "path": chunk.path,
                        }) + "\n")
                        count += 1
        partial.replace(target)
    return entry["name"], count


def chunk_all(jobs: int) -> None:
    lock = json.loads(LOCK.read_text())
    work = [(source, entry) for source, entries in lock.items() for entry in entries.values()]
    with ProcessPoolExecutor(jobs) as pool:
        futures = [pool.submit(chunk_package, source, entry) for source, entry in work]
        for (source, _), future in zip(work, futures):
            try:
                name, count = future.result()
            except Exception as error:  # one broken archive does not stop the corpus
                print(f"FAILED {source}: {error}", file=sys.stderr)
                continue
            print(f"{source}/{name}: {'cached' if count < 0 else f'{count} chunks'}",
                  file=sys.stderr)


# -- sample -----------------------------------------------------------------------------------

_COMMENT = re.compile(r"^\s*(?:///?|#+|--+|;+|\*|/\*\*?|\"\"\"|''')\s?(.*)$")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)])[.!?](?:\s|$)")
_WORDY = re.compile(r"^[A-Za-z][A-Za-z0-9 ,'()/_-]*[A-Za-z0-9)]$")
_IDENTIFIER_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def doc_sentences(code: str) -> Iterator[str]:
    """First sentences of comment blocks and docstrings: 3 to 24 words of prose."""
    block: list[str] = []
    for line in [*code.splitlines(), ""]:
        match = _COMMENT.match(line)
        text = match.group(1).strip().rstrip("*/").strip() if match else ""
        if match and text and not text.startswith(("@", "TODO", "FIXME", "-*-", "!")):
            block.append(text)
            continue
        if block:
            paragraph = " ".join(block)
            sentence = _SENTENCE_END.split(paragraph, maxsplit=1)[0].strip()
            if 3 <= len(sentence.split()) <= 24 and _WORDY.match(sentence):
                yield sentence
            block = []


def split_identifier(symbol: str) -> str:
    """``parseConfigFile`` / ``parse_config_file`` -> ``parse config file``."""
    return " ".join(part.lower() for part in _IDENTIFIER_PARTS.findall(symbol))


def _read(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def sample(per_package: int, per_language: int, short_texts: int, extra_short_texts: int) -> None:
    rng = random.Random(SEED)
    seen: set[bytes] = set()
    by_language: dict[str, list[dict[str, Any]]] = defaultdict(list)
    sentences: dict[str, str] = {}
    identifiers: dict[str, str] = {}
    for path in sorted(CHUNKS.glob("*/*.jsonl.gz")):
        package = f"{path.parent.name}/{path.name.removesuffix('.jsonl.gz')}"
        records = list(_read(path))
        rng.shuffle(records)
        kept: Counter[str] = Counter()  # per language: a package of several languages
        for record in records:
            digest = hashlib.blake2b(record["code"].encode(), digest_size=12).digest()
            if digest in seen:
                continue
            seen.add(digest)
            for sentence in doc_sentences(record["code"]):
                sentences.setdefault(sentence.lower(), sentence)
            words = split_identifier(record["symbol"] or "")
            if len(words.split()) >= 2:
                identifiers.setdefault(words, words)
            language = "prose" if record["language"] in PROSE_LANGUAGES else record["language"]
            if kept[language] < per_package:
                by_language[language].append(
                    {"text": record["text"], "language": record["language"], "package": package}
                )
                kept[language] += 1
    rows: list[dict[str, Any]] = []
    for language in sorted(by_language):
        records = by_language[language]
        rng.shuffle(records)
        rows.extend(records[: min(per_language, LANGUAGE_CAPS.get(language, per_language))])
    pool = sorted(sentences.values())
    rng.shuffle(pool)
    names = sorted(identifiers.values())
    rng.shuffle(names)
    rows.extend({"text": s, "language": "sentence", "package": ""}
                for s in pool[: short_texts * 4 // 5])
    rows.extend({"text": s, "language": "identifier", "package": ""}
                for s in names[: short_texts // 5])
    rng.shuffle(rows)
    # More short texts than the corpus holds, in a file of their own: cheap for the teacher
    # (a few tokens each), and where a static model parts most from it (queries are short).
    extra = [{"text": s, "language": "sentence", "package": ""}
             for s in pool[short_texts * 4 // 5 :][:extra_short_texts * 4 // 5]]
    extra += [{"text": s, "language": "identifier", "package": ""}
              for s in names[short_texts // 5 :][:extra_short_texts // 5]]
    rng.shuffle(extra)
    for path, texts in ((CORPUS, rows), (EXTRA, extra)):
        with path.open("w", encoding="utf-8") as out:
            for row in texts:
                out.write(json.dumps(row) + "\n")
        counts = Counter(row["language"] for row in texts)
        print(f"{len(texts)} texts ({len(seen)} distinct chunks seen) -> {path}",
              file=sys.stderr)
        for language, count in counts.most_common():
            print(f"  {language:16} {count:7}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("chunk", "sample", "clean"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--per-package", type=int, default=PER_PACKAGE)
    parser.add_argument("--per-language", type=int, default=PER_LANGUAGE)
    parser.add_argument("--short-texts", type=int, default=SHORT_TEXTS)
    parser.add_argument("--extra-short-texts", type=int, default=EXTRA_SHORT_TEXTS)
    args = parser.parse_args(argv)
    if args.step == "chunk":
        chunk_all(args.jobs)
    elif args.step == "sample":
        sample(args.per_package, args.per_language, args.short_texts, args.extra_short_texts)
    else:
        shutil.rmtree(CHUNKS, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
