"""The GPU encoder (fp16 graph, pooling inside it, IO binding, token-budget batches), exercised
with onnxruntime's CPU provider on the real all-MiniLM-L6-v2: the same graphs and code a CUDA
machine runs, less the CUDA kernels."""

from __future__ import annotations

import ast
import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sharc import embedding, model_cache
from sharc.embedding import (
    MINILM_ONNX_SHA256,
    Embedder,
    _pool,
    gpu_model_path,
    load_embedder,
    normalize,
    prepare_gpu_model,
)
from sharc.errors import ModelError
from sharc.gpu_encoder import POOLED_OUTPUT, BoundRunner, gpu_graph, gpu_recipe
from sharc.model_config import default_precision, expected_model_id

onnx = pytest.importorskip("onnx")
onnxruntime = pytest.importorskip("onnxruntime")


def real_code(count: int = 48) -> list[str]:
    """Top-level functions and classes of a few stdlib modules: real code of varied length."""
    texts: list[str] = []
    for module in ("json.decoder", "textwrap", "argparse", "shutil"):
        path = Path(importlib.import_module(module).__file__ or "")
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines(keepends=True)
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.end_lineno is not None:
                texts.append("".join(lines[node.lineno - 1 : node.end_lineno]))
    texts.sort(key=len)
    # Short, middling and long (truncated at 256 tokens) chunks alike.
    step = max(1, len(texts) // count)
    return texts[::step][:count]


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (normalize(a) * normalize(b)).sum(axis=1)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("sharc-gpu-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SHARC_CACHE_DIR", str(directory))
        yield directory


@pytest.fixture(scope="module")
def fp32(cache_dir: Path) -> Embedder:
    """The reference: the shipped graph, pooled on the host, one sequence per call."""
    model = load_embedder(device="cpu", precision="fp32")
    assert isinstance(model, Embedder) and not model.pools_in_graph
    return model


@pytest.fixture(scope="module")
def fp16(cache_dir: Path) -> Embedder:
    """The CUDA configuration on the CPU provider: fp16 copy, IO binding, 4096-token batches."""
    model = load_embedder(device="cpu", precision="fp16", io_binding=True, batch_tokens=4096)
    assert isinstance(model, Embedder)
    return model


@pytest.fixture(scope="module")
def source_bytes() -> bytes:
    return embedding._default_model_path().read_bytes()


# -- the fp16 graph ---------------------------------------------------------------------------


def test_fp16_vectors_match_fp32(fp16: Embedder, fp32: Embedder) -> None:
    assert fp16.precision == "fp16" and fp16.pools_in_graph and fp16.io_binding
    texts = real_code()
    cosines = cosine_rows(fp16.embed_documents(texts), fp32.embed_documents(texts))
    assert cosines.min() >= 0.999, cosines.min()
    queries = ["read a json file", "wrap text to a width", "copy a directory tree"]
    assert cosine_rows(fp16.embed_queries(queries), fp32.embed_queries(queries)).min() >= 0.999


def test_fp16_late_chunking_matches_fp32(fp16: Embedder, fp32: Embedder) -> None:
    text = Path(importlib.import_module("textwrap").__file__ or "").read_text(encoding="utf-8")
    spans = [(start, start + 900) for start in range(0, len(text) - 900, 1500)]
    cosines = cosine_rows(fp16.embed_late(text, spans), fp32.embed_late(text, spans))
    assert len(spans) > 5 and cosines.min() >= 0.999, cosines.min()


def test_fp16_keeps_the_model_id(fp16: Embedder, fp32: Embedder) -> None:
    """fp16 vectors are interchangeable with fp32 ones (unlike int8's): no re-embedding."""
    assert fp16.model_id == fp32.model_id == "all-MiniLM-L6-v2"
    assert expected_model_id(None, device="cuda") == fp16.model_id


def test_fp16_graph_holds_half_weights_and_float32_io(cache_dir: Path, fp16: Embedder) -> None:
    path = gpu_model_path(MINILM_ONNX_SHA256, "fp16", "mean", cache_dir / "models")
    assert fp16.model_path == path and "fp16-mha-mean-pooled-v1" in path.name
    model = onnx.load(str(path))
    types = [tensor.data_type for tensor in model.graph.initializer]
    halves = [t for t in model.graph.initializer if t.data_type == onnx.TensorProto.FLOAT16]
    # Every weight matrix and embedding table (38 of them) is float16.
    assert sum(1 for t in halves if len(t.dims) == 2) >= 38, types
    outputs = {o.name: o.type.tensor_type.elem_type for o in model.graph.output}
    assert outputs == {
        "last_hidden_state": onnx.TensorProto.FLOAT,
        POOLED_OUTPUT: onnx.TensorProto.FLOAT,
    }
    inputs = {i.name: i.type.tensor_type.elem_type for i in model.graph.input}
    assert set(inputs.values()) == {onnx.TensorProto.INT64}
    assert not any(node.op_type == "Cast" and "_q" in node.input[0] for node in model.graph.node)
    assert [n.op_type for n in model.graph.node].count("MultiHeadAttention") == 6


def test_every_tensor_rounded_to_fp16_stays_close(source_bytes: bytes, fp32: Embedder) -> None:
    """The CPU provider runs many fp16 nodes in float32 behind inserted casts; the CUDA kernels
    store every intermediate in fp16. Rounding every float tensor of the fp32 graph to fp16
    (weights and activations, optimisations off so the roundings stay) bounds that error."""
    from onnx import TensorProto, helper, numpy_helper, shape_inference
    from sharc.gpu_encoder import fold_int8_weights

    model = onnx.load_from_string(source_bytes)
    fold_int8_weights(model)
    for tensor in model.graph.initializer:
        if tensor.data_type == TensorProto.FLOAT:
            values = numpy_helper.to_array(tensor)
            rounded = np.clip(values, -65504, 65504).astype(np.float16).astype(np.float32)
            tensor.CopyFrom(numpy_helper.from_array(rounded, tensor.name))
    model = shape_inference.infer_shapes(model)
    floats = {
        value.name
        for value in model.graph.value_info
        if value.type.tensor_type.elem_type == TensorProto.FLOAT
    }
    nodes, renamed = [], {}
    for node in model.graph.node:
        node.input[:] = [renamed.get(name, name) for name in node.input]
        nodes.append(node)
        for name in node.output:
            if name in floats:
                nodes.append(
                    helper.make_node("Cast", [name], [name + "_h"], to=TensorProto.FLOAT16)
                )
                nodes.append(helper.make_node("Cast", [name + "_h"], [name + "_r"], to=1))
                renamed[name] = name + "_r"
    assert len(renamed) > 200
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    texts = real_code(16)
    rounded = np.stack([_embed_one(session, fp32, text) for text in texts])
    cosines = cosine_rows(rounded, fp32.embed_documents(texts))
    assert cosines.min() >= 0.999, cosines.min()


def _embed_one(session: object, reference: Embedder, text: str) -> np.ndarray:
    ids = np.array([reference._truncating.encode(text).ids], dtype=np.int64)
    mask = np.ones_like(ids)
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    hidden = session.run(["last_hidden_state"], feed)[0]  # type: ignore[attr-defined]
    return _pool(hidden, mask, "mean")[0]


# -- pooling inside the graph -----------------------------------------------------------------


def padded_batch(reference: Embedder, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    encodings = reference._truncating.encode_batch(texts)
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(texts), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, encoding in enumerate(encodings):
        ids[row, : len(encoding.ids)] = encoding.ids
        mask[row, : len(encoding.ids)] = 1
    return ids, mask


@pytest.mark.parametrize("pooling", ["mean", "cls", "last"])
def test_pooled_output_equals_numpy_pooling(
    source_bytes: bytes, fp32: Embedder, pooling: str
) -> None:
    graph = gpu_graph(source_bytes, precision="fp32", pooling=pooling, output="last_hidden_state")
    session = onnxruntime.InferenceSession(graph, providers=["CPUExecutionProvider"])
    ids, mask = padded_batch(fp32, ["x = 1", "def f(a, b):\n    return a + b", real_code()[-1]])
    assert (mask == 0).any()  # rows of different lengths: the padding must not count
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    hidden, pooled = session.run(["last_hidden_state", POOLED_OUTPUT], feed)
    assert pooled.shape == (3, 384) and pooled.dtype == np.float32
    np.testing.assert_allclose(pooled, normalize(_pool(hidden, mask, pooling)), atol=2e-6)


def test_fused_attention_equals_the_exported_one(source_bytes: bytes, fp32: Embedder) -> None:
    """Each layer's ~25 attention nodes become one MultiHeadAttention with the same output,
    padding included (the mask reaches the fused node)."""
    graphs = {
        fused: gpu_graph(
            source_bytes, precision="fp32", pooling="mean", output="last_hidden_state", fused=fused
        )
        for fused in (True, False)
    }
    fused_model = onnx.load_from_string(graphs[True])
    kinds = [node.op_type for node in fused_model.graph.node]
    assert kinds.count("MultiHeadAttention") == 6 and "Softmax" not in kinds
    assert len(kinds) < len(onnx.load_from_string(graphs[False]).graph.node) / 2
    ids, mask = padded_batch(fp32, ["x = 1", "def f(a, b):\n    return a + b", real_code()[-1]])
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    hidden = {
        fused: onnxruntime.InferenceSession(graph, providers=["CPUExecutionProvider"]).run(
            ["last_hidden_state"], feed
        )[0]
        for fused, graph in graphs.items()
    }
    kept = mask.astype(bool)
    np.testing.assert_allclose(hidden[True][kept], hidden[False][kept], atol=1e-4)


def test_pooling_rejects_unknown_kinds_and_outputs(source_bytes: bytes) -> None:
    with pytest.raises(ValueError, match="pooling"):
        gpu_graph(source_bytes, precision="fp32", pooling="max", output="last_hidden_state")
    with pytest.raises(ValueError, match="no output"):
        gpu_graph(source_bytes, precision="fp32", pooling="mean", output="pooler_output")
    with pytest.raises(ValueError, match="precision"):
        gpu_graph(source_bytes, precision="bf16", pooling="mean", output="last_hidden_state")  # type: ignore[arg-type]


# -- IO binding and batches -------------------------------------------------------------------


def test_io_binding_gives_the_same_vectors(cache_dir: Path, fp16: Embedder) -> None:
    unbound = load_embedder(device="cpu", precision="fp16", io_binding=False, batch_tokens=4096)
    assert isinstance(unbound, Embedder) and unbound._runner is None
    assert isinstance(fp16._runner, BoundRunner) and fp16._runner.device_type == "cpu"
    texts = real_code(12)
    np.testing.assert_allclose(
        fp16.embed_documents(texts), unbound.embed_documents(texts), atol=1e-6
    )


def test_batches_fill_a_token_budget_in_length_order(fp16: Embedder) -> None:
    rng = np.random.default_rng(7)
    sequences = [[1] * int(n) for n in rng.integers(3, 257, size=300)]
    seen: list[int] = []
    previous = 0
    for rows, ids, mask in fp16._batches(sequences):
        assert ids.size <= 4096 or len(rows) == 1
        assert (mask.sum(axis=1) == [len(sequences[i]) for i in rows]).all()
        assert ids.shape[1] == max(len(sequences[i]) for i in rows) >= previous
        previous = ids.shape[1]
        seen.extend(int(i) for i in rows)
    assert sorted(seen) == list(range(300))
    # Full batches: many rows per call, not one.
    assert len(seen) / sum(1 for _ in fp16._batches(sequences)) > 20


def test_vectors_do_not_depend_on_the_budget(cache_dir: Path, fp16: Embedder) -> None:
    small = load_embedder(device="cpu", precision="fp16", io_binding=True, batch_tokens=300)
    assert isinstance(small, Embedder)
    texts = real_code(16)
    cosines = cosine_rows(small.embed_documents(texts), fp16.embed_documents(texts))
    assert cosines.min() >= 0.99999


# -- selection --------------------------------------------------------------------------------


def test_default_precision_by_device() -> None:
    assert default_precision(True, on_gpu=True) == "fp16"
    assert default_precision(True, on_gpu=False) == "int8"
    assert default_precision(False, on_gpu=True) == "fp32"
    assert default_precision(False, on_gpu=False) == "fp32"


def pretend_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """load_embedder sees onnxruntime offer CUDA; the session it makes runs on the CPU (this
    onnxruntime has no CUDA), so what is checked is the choice of graph."""
    cuda = ["CUDAExecutionProvider", "CPUExecutionProvider"]
    monkeypatch.setattr(embedding, "choose_providers", lambda device, providers: cuda)
    create = embedding.create_session

    def on_cpu(path: Path, data: bytes | None, providers: list[str], threads: int | None) -> Any:
        assert providers == cuda
        return create(path, data, ["CPUExecutionProvider"], threads)

    monkeypatch.setattr(embedding, "create_session", on_cpu)


def test_a_cuda_machine_gets_fp16_and_fp32_on_request(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pretend_cuda(monkeypatch)
    auto = load_embedder()
    assert isinstance(auto, Embedder)
    assert auto.precision == "fp16" and auto.pools_in_graph and not auto.quantized
    forced = load_embedder(precision="fp32")
    assert isinstance(forced, Embedder)
    assert forced.precision == "fp32" and forced.pools_in_graph
    assert "fp32-mha-mean-pooled-v1" in forced.model_path.name
    assert forced.model_id == auto.model_id == "all-MiniLM-L6-v2"


def test_cpu_keeps_int8(cache_dir: Path) -> None:
    model = load_embedder(device="cpu")
    assert isinstance(model, Embedder)
    assert model.precision == "int8" and model.model_id == "all-MiniLM-L6-v2+int8"
    assert not model.pools_in_graph and not model.io_binding


def test_precision_arguments_are_checked(cache_dir: Path) -> None:
    with pytest.raises(ValueError, match="precision"):
        load_embedder(device="cpu", precision="bf16")
    with pytest.raises(ValueError, match="not both"):
        load_embedder(device="cpu", precision="fp16", quantized=True)


def test_the_environment_sets_the_precision_everywhere(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SHARC_PRECISION reaches load_embedder's "auto" from an index, the CLI or MCP."""
    monkeypatch.setenv("SHARC_PRECISION", "fp32")
    forced = load_embedder(device="cpu")
    assert isinstance(forced, Embedder) and forced.precision == "fp32"
    assert expected_model_id(None, device="cpu") == forced.model_id == "all-MiniLM-L6-v2"
    monkeypatch.setenv("SHARC_PRECISION", "int8")
    assert expected_model_id(None, device="cuda") == "all-MiniLM-L6-v2+int8"
    assert expected_model_id("fast", device="cuda") == expected_model_id("fast", device="cpu")
    monkeypatch.setenv("SHARC_PRECISION", "bf16")
    with pytest.raises(ModelError, match="SHARC_PRECISION"):
        load_embedder(device="cpu")


# -- the cache --------------------------------------------------------------------------------


def test_gpu_copy_is_cached_reused_and_rebuilt_when_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fp16: Embedder
) -> None:
    source = embedding._default_model_path()
    built = prepare_gpu_model(source, precision="fp32", cache_dir=tmp_path)
    assert built == gpu_model_path(MINILM_ONNX_SHA256, "fp32", "mean", tmp_path)
    assert built.name.endswith(f"-{gpu_recipe('fp32', 'mean')}.onnx")
    assert sorted(p.name for p in tmp_path.iterdir()) == [built.name, built.name + ".sha256"]
    first = built.read_bytes()

    def no_rebuild(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("the cached copy should have been reused")

    monkeypatch.setattr(model_cache, "gpu_graph", no_rebuild)
    assert prepare_gpu_model(source, precision="fp32", cache_dir=tmp_path) == built
    monkeypatch.undo()
    built.write_bytes(first[:1000])  # a torn or damaged copy
    assert prepare_gpu_model(source, precision="fp32", cache_dir=tmp_path).read_bytes() == first


def test_fp16_failure_is_an_error_when_asked_and_a_fallback_when_automatic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHARC_CACHE_DIR", str(tmp_path))

    def broken(*args: object, **kwargs: object) -> bytes:
        raise RuntimeError("converter exploded")

    monkeypatch.setattr(model_cache, "gpu_graph", broken)
    with pytest.raises(ModelError, match="precision='fp32'"):
        load_embedder(device="cpu", precision="fp16")
    pretend_cuda(monkeypatch)
    fallback = load_embedder()
    assert isinstance(fallback, Embedder)
    assert fallback.precision == "fp32" and not fallback.pools_in_graph


# -- the benchmark ----------------------------------------------------------------------------


def test_benchmark_runs_on_cpu_with_tiny_sizes(tmp_path: Path, cache_dir: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root))
    try:
        from benches.speed import gpu_encoder as bench
    finally:
        sys.path.remove(str(root))
    out = tmp_path / "speed.json"
    bench.main(
        [
            "--device", "cpu", "--lengths", "16,32", "--budgets", "256,512",
            "--chunks", "8", "--repeats", "1", "--out", str(out),
            "--precisions", "fp16,fp32,fp16-unfused",
        ]
    )  # fmt: skip
    result = json.loads(out.read_text())
    assert result["device"] == "cpu" and result["peak_fp16_tflops"] > 0
    runs = result["runs"]
    assert {(r["precision"], r["length"], r["budget"]) for r in runs} == {
        (p, n, b) for p in ("fp16", "fp32", "fp16-unfused") for n in (16, 32) for b in (256, 512)
    }
    assert set(result["fused_over_unfused_fp16_tokens_per_s"]) == {"L16", "L32"}
    for run in runs:
        assert run["tokens_per_s"] > 0 and run["chunks_per_s"] > 0
        assert run["percent_of_fp16_peak"] > 0
    agreement = result["agreement"]
    assert agreement["min_cosine"] >= 0.999 and agreement["fp16-unfused"]["min_cosine"] >= 0.999
