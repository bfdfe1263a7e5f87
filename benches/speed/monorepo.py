"""Monorepo-scale indexing on one machine: a synthetic monorepo of 100,000 files.

The tree (`benches.speed.monorepo_tree`, built once, seeded, under benches/data/monorepo):
renamed copies of the Python standard library, the pinned sdists and the 38 benchmark
repositories (19 languages), with vendored copies, copied directories, generated code, minified
bundles, lockfiles and large JSON fixtures, as real monorepos hold.

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

A machine shared with other jobs can make a step take hours: the figures so far are saved after
each step, `--steps` runs some of them and `--merge` keeps the others' figures. The
`fast_embedding_probe` step (only when named) runs the fast model's embedding phase at full scale
on the keyword-only index for `--probe-seconds`, for an estimate when the whole fast index does
not fit the time at hand; `--attach-run` keeps a complete run on a smaller tree beside it.

    python -m benches.speed.monorepo [--files 100000] [--quick] [--sample 600]
    python -m benches.speed.monorepo --steps fast_embedding_probe --merge
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benches.speed.common import REPO, RESULTS, keyword_hit, machine, write_result
from benches.speed.monorepo_tree import DATA, SEED, TREE, build_tree

WORK = DATA / "speed-work" / "monorepo"
QUICK_FILES = 2_000

TARGETS = {"first_keyword_result_seconds": 30.0, "fast_vs_keyword_only": 2.0,
           "peak_rss_mb": 2048.0}


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
            rules = result.keyword_only_rules()
            skip = rules.keys()
            for rule, count in Counter(rules.values()).items():
                keyword_only[rule] += count
                keyword_only_files[rule] += 1
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


# Runs `sharc` in this process and prints its peak RSS and CPU time at exit: VmHWM starts
# afresh at exec, while ru_maxrss of a child keeps the high-water mark of the process that
# forked it. CPU seconds (every thread, user + system) do not grow with a shared machine's load.
_CLI_WITH_PEAK = """
import atexit, os, sys
def _peak():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM'):
            print('peak_rss_kib', line.split()[1], file=sys.stderr, flush=True)
    times = os.times()
    print('cpu_seconds', times.user + times.system, file=sys.stderr, flush=True)
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
    cpu = re.search(r"cpu_seconds ([\d.]+)", done.stderr)
    embedded = _EMBEDDED.search(done.stderr)
    index = sharc.Index.open(root, index_dir=index_dir)
    stats = index.stats()
    index.close()
    return {
        "command": "sharc index " + " ".join(options),
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(int(peak.group(1)) / 1024, 1) if peak else None,
        "cpu_seconds": round(float(cpu.group(1)), 1) if cpu else None,
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
                if keyword_hit(sharc, root, index_dir):
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


STEPS = ("walk_chunk", "keyword_only_index", "first_keyword_result", "fast_index",
         "embedding_sample")
#: Run only when named in --steps (after keyword_only_index, on its index).
EXTRA_STEPS = ("fast_embedding_probe",)


def measure(
    root: Path, work: Path, sample_size: int, first_timeout: float,
    on_step: Callable[[dict], None] | None = None,
    steps: Sequence[str] = STEPS,
    previous: dict | None = None,
    probe_seconds: float = 600.0,
) -> dict:
    """The figures of the benchmark on the tree at `root` (`steps` of them; the others taken
    from `previous`, an earlier run's); `on_step` gets the figures so far after each step (a
    long run on a shared machine keeps what it measured). Each step records the 1-minute load
    average before and after it."""
    result: dict[str, Any] = {
        name: previous[name] for name in (*STEPS, *EXTRA_STEPS) if previous and name in previous
    }
    sample: list[str] = []

    def step(name: str, run: Callable[[], dict]) -> None:
        if name not in steps:
            return
        before = os.getloadavg()[0]
        result[name] = {**run(), "load_average_1min": [round(before, 2),
                                                        round(os.getloadavg()[0], 2)]}
        _log(name, result[name])
        if on_step is not None:
            on_step(summarise(result))

    def chunked() -> dict:
        figures, drawn = walk_and_chunk(root, sample_size)
        sample.extend(drawn)
        return figures

    def embedded() -> dict:
        if not sample:
            sample.extend(draw_sample(root, sample_size))
        return embedding_sample(sample)

    step("walk_chunk", chunked)
    step("keyword_only_index",
         lambda: sharc_index(root, work / "index-keyword", "--keyword-only"))
    step("first_keyword_result",
         lambda: first_keyword_result(root, work / "index-first", first_timeout))
    if "fast_index" in steps:
        step("fast_index", lambda: sharc_index(root, work / "index-fast", "--model", "fast"))
        shutil.rmtree(work / "index-fast", ignore_errors=True)  # 1.7M chunks' vectors: disk
    if sample_size:
        step("embedding_sample", embedded)
    step("fast_embedding_probe",
         lambda: fast_embedding_probe(root, work / "index-keyword", probe_seconds))
    return summarise(result)


def fast_embedding_probe(root: Path, index_dir: Path, seconds: float) -> dict:
    """The fast model's embedding phase at the tree's full scale, for `seconds`: an update
    with the fast model of the keyword-only index (every file unchanged: only vectors to
    make), stopped then. For when the whole fast index does not fit the time at hand; the
    index is left with part of its vectors."""
    import sharc
    from sharc.errors import CancelledError

    marks: list[tuple[float, int, int]] = []

    def progress(update: Any) -> None:
        if update.phase == "embedding":
            marks.append((time.perf_counter(), update.chunks_done, update.chunks_total))

    started = time.perf_counter()
    deadline = started + seconds
    index = sharc.Index.open(root, index_dir=index_dir, model="fast")
    try:
        index.update(progress=progress, cancel=lambda: time.perf_counter() > deadline)
        finished = True
    except CancelledError:
        finished = False
    finally:
        index.close()
    if not marks:
        return {"finished": finished, "seconds": round(time.perf_counter() - started, 1)}
    (first, _, total), (last, done, _) = marks[0], marks[-1]
    return {
        "finished": finished,
        "seconds_before_embedding": round(first - started, 1),
        "embedding_seconds": round(last - first, 1),
        "chunks_embedded": done,
        "chunks_to_embed": total,
        "chunks_per_s": round(done / (last - first), 1) if last > first else None,
    }


def draw_sample(root: Path, size: int, seed: int = SEED, files: int = 3_000) -> list[str]:
    """A seeded sample of the texts the policy embeds, from a seeded subset of the files (when
    the walk + chunk step, which samples all of them, is not run)."""
    import sharc
    from sharc.embed_policy import policy_from_settings

    walked = sharc.walk(root).files
    subset = random.Random(seed).sample(walked, min(files, len(walked)))
    texts = []
    for result in sharc.chunk_files(root, subset, policy=policy_from_settings(None)):
        skip = result.keyword_only.chunk_ids if result.keyword_only else frozenset()
        texts.extend(c.header + c.code for c in result.chunks if c.id not in skip)
    return random.Random(seed).sample(texts, min(size, len(texts)))


def summarise(result: dict) -> dict:
    """Ratios, savings, estimates and the targets, from the figures measured so far."""
    result = dict(result)
    keyword, fast = result.get("keyword_only_index"), result.get("fast_index")
    first = result.get("first_keyword_result", {}).get("seconds")
    targets: dict[str, Any] = {}
    ratios: dict[str, Any] = {}
    if fast:
        model_chunks = fast["chunks_embedded_by_model"] or 0
        result["savings"] = {
            "chunks": fast["chunks"],
            "keyword_only_by_policy": fast["keyword_only_chunks"],
            "keyword_only_files": fast["keyword_only_files"],
            "keyword_only_by_rule": result.get("walk_chunk", {}).get("policy", {}).get(
                "keyword_only_chunks_by_rule"),
            "embeddable_chunks": fast["embedded_chunks"],
            "embedded_by_model": model_chunks,
            "dedup_saved": fast["embedded_chunks"] - model_chunks,
            "model_calls_vs_all_chunks": round(model_chunks / max(1, fast["chunks"]), 3),
        }
    if keyword and fast:
        ratio = fast["seconds"] / keyword["seconds"]
        ratios["fast_index_vs_keyword_only"] = round(ratio, 2)
        if keyword.get("cpu_seconds") and fast.get("cpu_seconds"):
            ratios["fast_index_vs_keyword_only_cpu_seconds"] = round(
                fast["cpu_seconds"] / keyword["cpu_seconds"], 2)
        targets["fast_vs_keyword_only"] = {
            "target": TARGETS["fast_vs_keyword_only"], "measured": round(ratio, 2),
            "met": ratio <= TARGETS["fast_vs_keyword_only"]}
        cpu_ratio = ratios.get("fast_index_vs_keyword_only_cpu_seconds")
        if cpu_ratio is not None:
            # Wall time on a shared machine follows its load; CPU seconds do not. Both count.
            targets["fast_vs_keyword_only"]["measured_cpu_seconds"] = cpu_ratio
            targets["fast_vs_keyword_only"]["met"] &= cpu_ratio <= TARGETS["fast_vs_keyword_only"]
    probe = result.get("fast_embedding_probe")
    if not fast and keyword and probe and probe.get("chunks_per_s"):
        seconds = (keyword["seconds"] + probe["seconds_before_embedding"]
                   + probe["chunks_to_embed"] / probe["chunks_per_s"])
        result["fast_index_estimate"] = {
            "note": "not measured whole: the keyword-only index, plus the probe's time before"
                    " embedding and its chunks to embed at its rate",
            "seconds": round(seconds),
            "vs_keyword_only": round(seconds / keyword["seconds"], 2),
        }
        targets["fast_vs_keyword_only"] = {
            "target": TARGETS["fast_vs_keyword_only"], "measured": None,
            "estimated": round(seconds / keyword["seconds"], 2),
            "met": seconds / keyword["seconds"] <= TARGETS["fast_vs_keyword_only"],
            "note": "estimated (fast_index_estimate)"}
    walked = result.get("walk_chunk")
    if not fast and walked:
        policy = walked["policy"]
        result["savings"] = {
            "chunks": walked["chunks"],
            "keyword_only_by_policy": policy["keyword_only_chunks"],
            "keyword_only_by_rule": policy["keyword_only_chunks_by_rule"],
            "embeddable_chunks": policy["embedded_chunks"],
            "embedded_by_model": policy["distinct_embedded_texts"],
            "dedup_saved": policy["duplicate_texts_saved"],
            "model_calls_vs_all_chunks": round(
                policy["distinct_embedded_texts"] / max(1, walked["chunks"]), 3),
            "source": "walk_chunk (the policy and distinct texts counted there)",
        }
    sample, savings = result.get("embedding_sample"), result.get("savings")
    if sample and savings:
        seconds = savings["embedded_by_model"] / sample["default_chunks_per_s"]
        base = keyword["seconds"] if keyword else 0.0
        result["default_model_estimate"] = {
            "note": "not run: the default model's embedding time for the chunks that need the"
                    " model (after the policy and dedup), at its sampled rate, plus the"
                    " keyword-only index",
            "embedding_seconds": round(seconds),
            "index_seconds": round(seconds + base),
            "index_hours": round((seconds + base) / 3600, 2),
            "without_policy_and_dedup_embedding_seconds": round(
                savings["chunks"] / sample["default_chunks_per_s"]),
        }
    if keyword and first is not None:
        ratios["first_keyword_result_vs_keyword_only"] = round(first / keyword["seconds"], 3)
    if "first_keyword_result" in result:
        targets["first_keyword_result_seconds"] = {
            "target": TARGETS["first_keyword_result_seconds"], "measured": first,
            "met": first is not None and first <= TARGETS["first_keyword_result_seconds"]}
    peaks = [r["peak_rss_mb"] for r in (keyword, fast) if r and r.get("peak_rss_mb")]
    if peaks:
        targets["peak_rss_mb"] = {"target": TARGETS["peak_rss_mb"], "measured": max(peaks),
                                  "met": max(peaks) <= TARGETS["peak_rss_mb"]}
    result["ratios"], result["targets"] = ratios, targets
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
    parser.add_argument("--steps", default=",".join(STEPS),
                        help="comma-separated: " + ", ".join(STEPS))
    parser.add_argument("--probe-seconds", type=float, default=600.0,
                        help="how long fast_embedding_probe embeds")
    parser.add_argument("--merge", action="store_true",
                        help="keep the other steps' figures already in --out")
    parser.add_argument("--attach-run", type=Path, action="append", default=[], metavar="JSON",
                        help="a complete run on a smaller tree, kept whole under"
                        " runs_on_smaller_trees (repeatable)")
    parser.add_argument("--merge-from", type=Path, action="append", default=[], metavar="JSON",
                        help="take the steps not run from this result file too (repeatable)")
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
        "commands": ["python -m benches.speed.monorepo " + " ".join(argv or sys.argv[1:])],
        "tree": {**tree_stamp, "path": str(tree.relative_to(REPO)) if tree.is_relative_to(REPO)
                 else str(tree)},
        "targets_note": "issue #12, 2 cores",
    }

    def partial(figures: dict) -> None:
        write_result(out, {**head, **figures, "complete": False, "machine": {
            **machine(), "load_average_before": load_before,
            "load_average_after": os.getloadavg()}})

    steps = [name.strip() for name in args.steps.split(",") if name.strip()]
    if unknown := set(steps) - set(STEPS) - set(EXTRA_STEPS):
        parser.error(f"unknown steps: {', '.join(sorted(unknown))}")
    previous: dict[str, Any] = {}
    previous_smaller: dict[str, Any] = {}
    earlier_commands: list[str] = []
    sources = ([out] if args.merge and out.exists() else []) + args.merge_from
    for number, source in enumerate(sources):
        earlier = json.loads(source.read_text())
        for name in (*STEPS, *EXTRA_STEPS):
            if name in earlier and name not in steps:
                previous.setdefault(name, earlier[name])
        previous_smaller.update(earlier.get("runs_on_smaller_trees", {}))
        # How each part of the figures was made: every command that measured some of them.
        commands = earlier.get("commands") or [earlier.get("command")]
        # The load average over the whole measurement: from the first run that took part.
        if number == 0:
            load_before = earlier.get("machine", {}).get("load_average_before", load_before)
        earlier_commands.extend(c for c in commands if c and c not in earlier_commands)
    head["commands"] = earlier_commands + head["commands"]
    figures = measure(tree, args.work, args.sample, args.first_timeout, on_step=partial,
                      steps=steps, previous=previous, probe_seconds=args.probe_seconds)
    smaller = previous_smaller
    for source in args.attach_run:
        run = json.loads(source.read_text())
        smaller[str(run["tree"]["files"])] = run
    if smaller:
        figures["runs_on_smaller_trees"] = smaller
    complete = all(name in figures for name in STEPS if name != "embedding_sample" or args.sample)
    result = {**head, **figures, "complete": complete, "machine": {
        **machine(), "load_average_before": load_before, "load_average_after": os.getloadavg()}}
    write_result(out, result)
    print(json.dumps({"ratios": result["ratios"], "targets": result["targets"]}, indent=2))
    return result


if __name__ == "__main__":
    main()
