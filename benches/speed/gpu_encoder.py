"""Encoder throughput on a GPU: the default model's fp16 and fp32 graphs (pooling inside the
graph, IO binding), at several sequence lengths and batch token budgets, against the device's
fp16 FLOP bound. ``fp16`` and ``fp32`` are the graphs load_embedder runs (attention fused into
MultiHeadAttention); ``fp16-unfused`` keeps the exported attention, to show what fusing gives.

Sequences are windows of exactly ``length`` tokens ([CLS] + ``length - 2`` tokens of real
Python source + [SEP]), so no token is padding; the clock covers the encoder calls, the copies of
ids to the device and of pooled rows back, not tokenization. Each configuration runs once to
warm up, then ``--repeats`` times; the best run is kept.

FLOPs per token: 2 per non-embedding weight (6 layers x (4 d^2 + 2 d 4d), d = 384: 10.6 M
weights) plus attention's two L x L products, 4 L d per layer. The bound is the device's dense
fp16 tensor peak: 989.4 TFLOP/s for an H200 SXM (NVIDIA's figure without sparsity), or
``--peak-tflops``. With ``--device cpu`` (for tests, and as a baseline) the bound is the cores'
nominal float32 FMA peak (cores x clock x 2 units x SIMD lanes x 2), since CPUs have no fp16
tensor units.

Also records how close the vectors are: fp16 and fp32 on the device against the shipped graph on
the CPU provider (the vectors any other machine would store), over real code chunks.

    python -m benches.speed.gpu_encoder [--device cuda] [--out benches/results/speed_gpu_encoder.json]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benches.speed.common import RESULTS, machine, write_result

LAYERS = 6
WIDTH = 384
FFN = 4 * WIDTH
#: Weights a token's vector is multiplied by, per layer: Q, K, V, output, and the two FFN ones.
NON_EMBEDDING_WEIGHTS = LAYERS * (4 * WIDTH * WIDTH + 2 * WIDTH * FFN)
H200_FP16_DENSE_TFLOPS = 989.4


def flops_per_token(length: int) -> float:
    """Forward FLOPs per token of a ``length``-token sequence."""
    return 2.0 * NON_EMBEDDING_WEIGHTS + LAYERS * 4.0 * length * WIDTH


def code_corpus(limit_chars: int = 2_000_000) -> list[str]:
    """Top-level functions and classes of the standard library, in a fixed order."""
    texts: list[str] = []
    total = 0
    for path in sorted(Path(ast.__file__).parent.glob("*.py")):
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        lines = source.splitlines(keepends=True)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.end_lineno is not None:
                text = "".join(lines[node.lineno - 1 : node.end_lineno])
                texts.append(text)
                total += len(text)
        if total >= limit_chars:
            break
    return texts


def token_windows(embedder: Any, texts: list[str], length: int, count: int) -> list[list[int]]:
    """``count`` sequences of exactly ``length`` ids: [CLS] + a window of code + [SEP]."""
    body = length - len(embedder._lead) - len(embedder._trail)
    stream: list[int] = []
    for encoding in embedder._tokenizer.encode_batch(texts, add_special_tokens=False):
        stream.extend(encoding.ids)
        if len(stream) >= body * count:
            break
    while len(stream) < body * count:  # a small corpus is reused
        stream.extend(stream[: body * count - len(stream)])
    return [
        embedder._lead + stream[i * body : (i + 1) * body] + embedder._trail for i in range(count)
    ]


def encode_all(embedder: Any, sequences: list[list[int]]) -> np.ndarray:
    """Pooled vectors of every sequence through the graph's pooled output, in batch order."""
    out = np.empty((len(sequences), embedder.dimension), dtype=np.float32)
    for rows, ids, mask in embedder._batches(sequences):
        out[rows] = embedder._run_pooled(ids, mask)
    return out


def nominal_cpu_peak_tflops() -> float:
    """The cores' float32 FMA bound in TFLOP/s: cores x clock x 2 FMA units x lanes x 2 FLOPs
    (16 lanes with AVX-512, else 8). A nominal figure, for the CPU baseline only."""
    from sharc.embedding import physical_cores

    megahertz, lanes = 2000.0, 8
    try:
        info = Path("/proc/cpuinfo").read_text()
        megahertz = float(
            next(x for x in info.splitlines() if x.startswith("cpu MHz")).split(":")[1]
        )
        lanes = 16 if " avx512f" in info else 8
    except (OSError, StopIteration, ValueError):
        pass
    return physical_cores() * megahertz * 1e6 * 2 * lanes * 2 / 1e12


def device_name(device: str) -> str:
    if device != "cuda":
        return machine().get("cpu_model", "cpu")
    import subprocess

    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown GPU"


def agreement(device: str, embedders: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    """Cosine of each precision's vectors to the shipped graph's on the CPU provider."""
    from sharc.embedding import load_embedder

    reference = load_embedder(device="cpu", precision="fp32", batch_tokens=8192)
    expected = reference.embed_documents(texts)
    result: dict[str, Any] = {"chunks": len(texts), "reference": "fp32, CPU provider"}
    lowest = 1.0
    for precision, embedder in embedders.items():
        cosines = (embedder.embed_documents(texts) * expected).sum(axis=1)
        result[precision] = {
            "min_cosine": round(float(cosines.min()), 7),
            "mean_cosine": round(float(cosines.mean()), 7),
        }
        lowest = min(lowest, float(cosines.min()))
    result["min_cosine"] = round(lowest, 7)
    result["device"] = device
    return result


def load_variant(variant: str, device: str, budget: int) -> Any:
    """``fp16`` / ``fp32``: what load_embedder gives (attention fused); ``fp16-unfused`` /
    ``fp32-unfused``: the same graph with the exported attention left as it is."""
    from sharc import embedding

    precision, _, unfused = variant.partition("-")
    if not unfused:
        return embedding.load_embedder(
            device=device, precision=precision, batch_tokens=budget, io_binding=True
        )
    config, _ = embedding.model_config(None)
    source = embedding._default_model_path()
    path = embedding.prepare_gpu_model(source, precision=precision, fused=False)  # type: ignore[arg-type]
    tokenizer = embedding._load_tokenizer(
        embedding.MINILM_DIRECTORY / config.tokenizer_file, config.tokenizer_sha256, True
    )
    providers = embedding.choose_providers(device, None)
    session = embedding.create_session(path, path.read_bytes(), providers, None)
    return embedding.Embedder(
        config,
        session,
        tokenizer,
        model_path=path,
        quantized=False,
        batch_tokens=budget,
        precision=precision,
        io_binding=True,
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--lengths", default="64,128,256", help="tokens per sequence")
    parser.add_argument(
        "--budgets", default="8192,16384,32768,65536,131072", help="padded tokens per call"
    )
    parser.add_argument(
        "--precisions",
        default="fp16,fp32,fp16-unfused",
        help="fp16, fp32 (attention fused, as loaded), fp16-unfused, fp32-unfused",
    )
    parser.add_argument(
        "--chunks", type=int, default=0, help="sequences per run (default: 1M tokens' worth)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--agreement-chunks", type=int, default=0, help="default: 512 (cuda)")
    parser.add_argument("--peak-tflops", type=float, default=0.0)
    parser.add_argument("--out", type=Path, default=RESULTS / "speed_gpu_encoder.json")
    return parser.parse_args(argv)


def import_onnxruntime(device: str) -> Any:
    """onnxruntime, with the CUDA libraries its CUDA provider links against loaded first."""
    if device == "cuda":
        # A PyTorch built for the same CUDA loads cuBLAS, cuDNN and the runtime that
        # onnxruntime's CUDA provider links against (onnxruntime's own advice).
        with contextlib.suppress(ImportError):
            import torch  # noqa: F401
    import onnxruntime

    if device == "cuda" and hasattr(onnxruntime, "preload_dlls"):
        # CUDA and cuDNN from the nvidia-* wheels (PyTorch's) are not on the loader's path;
        # preload_dlls finds them, and prints what it did, so keep stdout for the results.
        with contextlib.redirect_stdout(sys.stderr):
            onnxruntime.preload_dlls()
    return onnxruntime


def fp16_peak(device: str, peak_tflops: float) -> tuple[float, str]:
    """The bound in TFLOP/s the runs are measured against, and where the figure comes from."""
    if device == "cuda":
        peak = peak_tflops or H200_FP16_DENSE_TFLOPS
        peak_source = "--peak-tflops" if peak_tflops else "H200 SXM dense fp16 tensor peak (NVIDIA)"
    else:
        peak = peak_tflops or nominal_cpu_peak_tflops()
        peak_source = "--peak-tflops" if peak_tflops else "the cores' nominal float32 FMA peak"
    return peak, peak_source


def load_checked(precision: str, device: str, budget: int) -> Any:
    """``load_variant``, refusing an embedder on another device or at another precision."""
    from sharc.embedding import Embedder

    embedder = load_variant(precision, device, budget)
    assert isinstance(embedder, Embedder)
    if embedder.device != device or embedder.precision != precision.split("-")[0]:
        raise SystemExit(
            f"asked for {precision} on {device}, got {embedder!r}; is"
            " onnxruntime-gpu installed and the onnx package present?"
        )
    return embedder


def best_seconds(
    embedder: Any, sequences: list[list[int]], budget: int, length: int, repeats: int
) -> float:
    """One warm-up call's worth of sequences, then the fastest of ``repeats`` full runs."""
    encode_all(embedder, sequences[: max(1, budget // length)])  # warm-up
    best = float("inf")
    for _ in range(max(1, repeats)):
        started = time.perf_counter()
        encode_all(embedder, sequences)
        best = min(best, time.perf_counter() - started)
    return best


def run_record(
    precision: str, length: int, budget: int, count: int, best: float, peak: float
) -> dict[str, Any]:
    """One configuration's row of ``runs``, as it was measured."""
    from sharc.embedding import GPU_BATCH_ROWS

    tokens = count * length
    tflops = tokens * flops_per_token(length) / best / 1e12
    return {
        "precision": precision,
        "length": length,
        "budget": budget,
        "rows_per_call": min(count, max(1, budget // length), GPU_BATCH_ROWS),
        "chunks": count,
        "tokens": tokens,
        "seconds": round(best, 4),
        "tokens_per_s": round(tokens / best, 1),
        "chunks_per_s": round(count / best, 1),
        "tflops": round(tflops, 3),
        "percent_of_fp16_peak": round(100.0 * tflops / peak, 3),
    }


def measure_throughput(
    args: argparse.Namespace,
    precisions: list[str],
    budgets: list[int],
    lengths: list[int],
    corpus: list[str],
    peak: float,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every precision x budget x length, each printed to stderr as it ends: the runs, and the
    embedder of each precision (for the agreement check)."""
    from sharc.embedding import GPU_BATCH_ROWS

    runs: list[dict[str, Any]] = []
    embedders: dict[str, Any] = {}
    windows: dict[int, list[list[int]]] = {}
    for precision in precisions:
        embedder = load_checked(precision, args.device, budgets[0])
        embedders[precision] = embedder
        for budget in budgets:
            # What load_embedder(batch_tokens=budget) sets, without a new session each time.
            embedder._batch_tokens = budget
            embedder._batch_rows = GPU_BATCH_ROWS
            for length in lengths:
                count = args.chunks or max(1, 1_000_000 // length)
                if length not in windows:
                    windows[length] = token_windows(embedder, corpus, length, count)
                best = best_seconds(embedder, windows[length], budget, length, args.repeats)
                run = run_record(precision, length, budget, count, best, peak)
                runs.append(run)
                print(
                    f"{precision} L={length:4d} budget={budget:7d}: {run['tokens_per_s']:>12,.0f}"
                    f" tokens/s {run['chunks_per_s']:>10,.0f} chunks/s"
                    f" {run['percent_of_fp16_peak']:6.2f}% of {peak:.4g} TFLOP/s",
                    file=sys.stderr,
                    flush=True,
                )
    return runs, embedders


def check_agreement(
    args: argparse.Namespace, embedders: dict[str, Any], corpus: list[str], first_budget: int
) -> dict[str, Any]:
    """``agreement`` over a sample of the corpus, each embedder at the agreement run's budget."""
    sample = args.agreement_chunks or (512 if args.device == "cuda" else args.chunks or 16)
    for embedder in embedders.values():
        embedder._batch_tokens = 65536 if args.device == "cuda" else first_budget
    return agreement(args.device, embedders, corpus[::7][:sample])


def best_of_runs(
    runs: list[dict[str, Any]], precisions: list[str], lengths: list[int]
) -> dict[str, dict[str, Any]]:
    """The fastest run of each precision and length, keyed ``{precision}_L{length}``."""
    return {
        f"{precision}_L{length}": max(
            (r for r in runs if r["precision"] == precision and r["length"] == length),
            key=lambda r: r["tokens_per_s"],
        )
        for precision in precisions
        for length in lengths
    }


def speed_ratio(
    best_runs: dict[str, dict[str, Any]], precisions: list[str], lengths: list[int], a: str, b: str
) -> dict[str, float]:
    """``a``'s best tokens/s over ``b``'s at each length; empty unless both were run."""
    if a not in precisions or b not in precisions:
        return {}
    return {
        f"L{n}": round(
            best_runs[f"{a}_L{n}"]["tokens_per_s"] / best_runs[f"{b}_L{n}"]["tokens_per_s"], 3
        )
        for n in lengths
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    onnxruntime = import_onnxruntime(args.device)
    lengths = [int(x) for x in args.lengths.split(",")]
    budgets = [int(x) for x in args.budgets.split(",")]
    precisions = args.precisions.split(",")
    peak, peak_source = fp16_peak(args.device, args.peak_tflops)

    corpus = code_corpus()
    runs, embedders = measure_throughput(args, precisions, budgets, lengths, corpus, peak)
    checked = check_agreement(args, embedders, corpus, budgets[0])
    best_runs = best_of_runs(runs, precisions, lengths)
    result = {
        "benchmark": "gpu_encoder",
        "command": "python -m benches.speed.gpu_encoder " + " ".join(argv or sys.argv[1:]),
        "device": args.device,
        "device_name": device_name(args.device),
        "onnxruntime": onnxruntime.__version__,
        "providers": onnxruntime.get_available_providers(),
        "model": "all-MiniLM-L6-v2",
        "non_embedding_weights": NON_EMBEDDING_WEIGHTS,
        "flops_per_token": {str(n): flops_per_token(n) for n in lengths},
        "peak_fp16_tflops": round(peak, 3),
        "peak_source": peak_source,
        "runs": runs,
        "best": best_runs,
        "fp16_over_fp32_tokens_per_s": speed_ratio(best_runs, precisions, lengths, "fp16", "fp32"),
        "fused_over_unfused_fp16_tokens_per_s": speed_ratio(
            best_runs, precisions, lengths, "fp16", "fp16-unfused"
        ),
        "agreement": checked,
        "machine": machine(),
    }
    write_result(args.out, result)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
