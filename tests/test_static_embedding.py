"""The fast model: static token vectors distilled from the default model (real weights, real
tokenizer, real teacher, real index)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sharc
from sharc.embedding import load_embedder
from sharc.errors import ModelError
from sharc.index import Index
from sharc.model_config import MINILM_DIRECTORY, expected_model_id, static_settings
from sharc.static_embedding import StaticEmbedder, load_static_embedder

FIXTURES = Path(__file__).parent / "fixtures"
# Mean cosine between the fast model's vector of a fixture chunk and the teacher's (projected
# on the same axes), measured over the 110 fixture chunks below: mean 0.890, worst 0.772 with the
# shipped weights and pooling (the plain sum: 0.873 and 0.760; the held-out texts of the fit:
# 0.898). A model that lost its fit (the teacher's tokens alone, idf-weighted: 0.72) fails.
MEAN_COSINE_FLOOR = 0.83
WORST_COSINE_FLOOR = 0.6

JSON_LOADER = '''def load_settings(path):
    """Read the settings file and return it as a dict."""
    with open(path) as handle:
        return json.load(handle)
'''
SOCKET_SENDER = '''def send_packet(sock, payload):
    """Send one framed packet over the socket."""
    header = struct.pack("!I", len(payload))
    sock.sendall(header + payload)
'''


@pytest.fixture(scope="module")
def fast() -> StaticEmbedder:
    return load_static_embedder()


@pytest.fixture(scope="module")
def fixture_chunks() -> list[str]:
    """``header + code`` of the chunks of the small repository and the language fixtures."""
    texts = []
    for root in (FIXTURES / "repo_small", FIXTURES / "languages"):
        walked = sharc.walk(root)
        for chunked in sharc.chunk_files(root, walked.files):
            texts.extend(chunk.header + chunk.code for chunk in chunked.chunks)
    return texts


def test_fast_is_a_model_name(fast: StaticEmbedder) -> None:
    loaded = load_embedder("fast")
    assert isinstance(loaded, StaticEmbedder)
    assert loaded.model_id == fast.model_id == static_settings()["model_id"]
    assert expected_model_id("fast") == fast.model_id
    assert loaded.dimension == fast.dimension == static_settings()["dimension"]
    assert fast.device == "cpu" and fast.max_length == 256


def test_loads_offline_without_onnxruntime() -> None:
    code = (
        "import socket, sys\n"
        "def refuse(*args, **kwargs):\n"
        "    raise OSError('network use')\n"
        "socket.socket = refuse; socket.create_connection = refuse\n"
        "from sharc.embedding import load_embedder\n"
        "model = load_embedder('fast')\n"
        "vectors = model.embed_documents(['def main(): pass'])\n"
        "print(vectors.shape[0], 'onnxruntime' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HF_HUB_OFFLINE": "1"}
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert output.stdout.split() == ["1", "False"]


def test_vectors_are_normalised_and_deterministic(
    fast: StaticEmbedder, fixture_chunks: list[str]
) -> None:
    texts = [*fixture_chunks[:40], "", "   ", "read a json file"]
    first = fast.embed_documents(texts)
    assert first.shape == (len(texts), fast.dimension) and first.dtype == np.float32
    norms = np.linalg.norm(first, axis=1)
    # A text of no tokens still has [CLS] and [SEP], as in the teacher.
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)
    # The same vectors again, from a fresh model (empty piece cache), alone and reordered.
    again = load_static_embedder().embed_documents(texts[::-1])[::-1]
    np.testing.assert_array_equal(first, again)
    alone = np.vstack([fast.embed_documents([text]) for text in texts[:5]])
    np.testing.assert_array_equal(first[:5], alone)
    queries = fast.embed_queries(texts)
    np.testing.assert_allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(queries, load_static_embedder().embed_queries(texts))
    assert fast.embed_documents([]).shape == (0, fast.dimension)
    with pytest.raises(TypeError):
        fast.embed_queries("one string")  # type: ignore[arg-type]


def test_pooling_settings(fast: StaticEmbedder) -> None:
    """A repeated token counts ``count ** count_power`` times; a query's token vectors are
    scaled by their length ** (query_weight_power - 1); 1.0 and 1.0 give the plain sum."""
    pooling = static_settings()["pooling"]
    assert fast.count_power == pooling["count_power"] < 1.0
    assert fast.query_weight_power == pooling["query_weight_power"] < 1.0
    text = "parse parse parse the config"
    ids = fast.token_ids(text)
    distinct, counts = np.unique(ids, return_counts=True)
    vectors = fast.vectors[distinct]
    summed = (counts.astype(np.float32) ** fast.count_power) @ vectors
    np.testing.assert_allclose(fast.embed_documents([text])[0],
                               summed / np.linalg.norm(summed), atol=1e-5)
    lengths = np.linalg.norm(vectors, axis=1) ** (fast.query_weight_power - 1.0)
    query = (counts.astype(np.float32) ** fast.count_power * lengths) @ vectors
    np.testing.assert_allclose(fast.embed_queries([text])[0], query / np.linalg.norm(query),
                               atol=1e-5)
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(MINILM_DIRECTORY / "tokenizer.json"))
    plain = StaticEmbedder(fast.vectors, tokenizer, model_id="plain", max_length=256)
    total = fast.vectors[ids].sum(axis=0)
    for embed in (plain.embed_documents, plain.embed_queries):
        np.testing.assert_allclose(embed([text])[0], total / np.linalg.norm(total), atol=1e-5)


def test_queries_go_through_the_teacher(fast: StaticEmbedder) -> None:
    """``load_embedder("fast")`` mixes each query's static vector with the teacher's vector of
    the query projected on the static axes, by ``teacher_query_share``; documents never load
    the teacher, and `load_static_embedder` alone keeps queries static."""
    share = static_settings()["pooling"]["teacher_query_share"]
    assert 0.0 < share <= 1.0 and fast.teacher_query_share == 0.0  # no teacher given
    loads: list[int] = []
    teacher = load_embedder()

    def load_teacher():  # type: ignore[no-untyped-def]
        loads.append(1)
        return teacher

    mixed = load_static_embedder(query_teacher=load_teacher)
    assert mixed.teacher_query_share == share
    np.testing.assert_array_equal(mixed.embed_documents([JSON_LOADER]),
                                  fast.embed_documents([JSON_LOADER]))
    assert loads == []  # documents are embedded without the teacher
    texts = ["read a json file", "send a framed packet over a socket"]
    static = fast.embed_queries(texts)
    projected = teacher.embed_queries(texts) @ fast.projection
    projected /= np.linalg.norm(projected, axis=1, keepdims=True)
    expected = share * projected + (1.0 - share) * static
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(mixed.embed_queries(texts), expected, atol=1e-5)
    mixed.embed_queries(["again"])
    assert loads == [1]  # loaded once
    assert mixed.embed_queries([]).shape == (0, mixed.dimension)
    # The teacher moves the query toward what it asks for, not away from the static sum.
    assert float(np.sum(mixed.embed_queries(texts) * static, axis=1).min()) > 0.5


def test_a_teacher_that_cannot_load_leaves_queries_static(
    fast: StaticEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[int] = []

    def broken():  # type: ignore[no-untyped-def]
        calls.append(1)
        raise ModelError("the default model's files are missing")

    mixed = load_static_embedder(query_teacher=broken)
    texts = ["parse a url"]
    with caplog.at_level("WARNING", logger="sharc"):
        np.testing.assert_array_equal(mixed.embed_queries(texts), fast.embed_queries(texts))
        np.testing.assert_array_equal(mixed.embed_queries(texts), fast.embed_queries(texts))
    assert calls == [1]  # tried once, not at every query
    assert "without its teacher" in caplog.text and "missing" in caplog.text


def test_the_fast_model_by_name_has_its_teacher() -> None:
    loaded = load_embedder("fast")
    assert isinstance(loaded, StaticEmbedder) and loaded.teacher_query_share > 0.0
    teacher = load_embedder()
    text = ["where are environment variables read"]
    projected = teacher.embed_queries(text) @ loaded.projection
    projected /= np.linalg.norm(projected)
    static = load_static_embedder().embed_queries(text)
    # Closer to the teacher's view of the query than the static sum alone is.
    assert float(loaded.embed_queries(text)[0] @ projected[0]) > float(static[0] @ projected[0])


def test_tokens_are_the_teachers(fast: StaticEmbedder, fixture_chunks: list[str]) -> None:
    from tokenizers import Tokenizer

    teacher = Tokenizer.from_file(str(MINILM_DIRECTORY / "tokenizer.json"))
    teacher.no_padding()
    teacher.enable_truncation(256)
    tricky = [
        "Café naïve résumé: ¿qué tal?  Ünïcödé",
        "数据 处理 函数 def 读取(path): return 文件",
        "zero\u200bwidth and soft\xadhyphen and bom\ufeff here",
        "tabs\tand\x0bvertical\x0ctabs\x1cseparators\x85next line\u2028line",
        "combining marks alone: \u0301 \u0308a and emoji 😀 🚀 and \ue000 private",
        "x" * 150 + " " + "y" * 99 + " long_words_and_under_scores",
        " ".join(f"word{n}" for n in range(600)),  # far past 256 tokens
        "(" * 300,
        "ctrl\x01inside\x7fwords and \ufffd replacement, a\u0378b unassigned",
        "İstanbul ǅemal STRASSE ß ﬁle Ωmega ΣΊΣΥΦΟΣ",
        "한국어 텍스트 and العربية\u200fمع and हिन्दी",
    ]
    for text in [*fixture_chunks, *tricky]:
        assert fast.token_ids(text) == teacher.encode(text).ids, text[:60]


def test_close_to_the_teacher(fast: StaticEmbedder, fixture_chunks: list[str]) -> None:
    teacher = load_embedder()
    assert fast.projection is not None
    projected = teacher.embed_documents(fixture_chunks) @ fast.projection
    projected /= np.linalg.norm(projected, axis=1, keepdims=True)
    cosines = np.sum(fast.embed_documents(fixture_chunks) * projected, axis=1)
    assert len(fixture_chunks) > 50
    assert cosines.mean() >= MEAN_COSINE_FLOOR, cosines.mean()
    assert cosines.min() >= WORST_COSINE_FLOOR, cosines.min()


def test_semantic_sanity(fast: StaticEmbedder) -> None:
    query = fast.embed_queries(["read a json file"])[0]
    json_loader, socket_sender = fast.embed_documents([JSON_LOADER, SOCKET_SENDER])
    assert query @ json_loader > query @ socket_sender + 0.1


def test_no_late_chunking(fast: StaticEmbedder) -> None:
    with pytest.raises(ModelError, match="no late chunking"):
        fast.embed_late_batch([("def f(): pass", [(0, 5)])])


def test_corrupt_weights_fail_their_hash(tmp_path: Path) -> None:
    from sharc.model_config import STATIC_DIRECTORY

    directory = tmp_path / "static-minilm"
    directory.mkdir()
    for name in ("sharc-static.json", "static-minilm.npz"):
        data = (STATIC_DIRECTORY / name).read_bytes()
        if name.endswith(".npz"):
            data = data[:-10] + b"0123456789"
        (directory / name).write_bytes(data)
    with pytest.raises(ModelError, match="sha256"):
        load_static_embedder(directory)


def test_index_with_the_fast_model_answers(small_repo: Path, tmp_path: Path) -> None:
    index = Index.open(small_repo, index_dir=tmp_path / "index", model="fast")
    report = index.update()
    assert report.chunks_embedded > 0 and not report.failed
    stats = index.stats()
    assert stats.model == load_static_embedder().model_id
    # Vectors alone (no keyword arm) find the password check by its meaning.
    semantic = list(index.search("check a password against its stored hash", mode="semantic"))
    assert semantic[0].path == "taskboard/auth.py"
    index.close()
    # The index remembers its model: opened without one, it searches with the fast model.
    reopened = Index.open(small_repo, index_dir=tmp_path / "index")
    assert reopened.search("push a message on the queue", limit=3)[0].path.startswith("notifier/")
    assert reopened.update().chunks_embedded == 0
    reopened.close()


def test_late_mode_with_the_fast_model_says_why(small_repo: Path, tmp_path: Path) -> None:
    index = Index.open(small_repo, index_dir=tmp_path / "index", model="fast",
                       embedding_mode="late")
    report = index.update()
    assert report.failed
    assert all("no late chunking" in reason for _, reason in report.failed)
    index.close()


# -- the command line and the MCP server -------------------------------------------------------


def test_sharc_index_model_fast(small_repo: Path, tmp_path: Path) -> None:
    def sharc_cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "sharc.cli", *args], capture_output=True,
                              text=True, env={**os.environ, "NO_COLOR": "1"})

    index_dir = str(tmp_path / "idx")
    built = sharc_cli("index", str(small_repo), "--index-dir", index_dir, "--model", "fast")
    assert built.returncode == 0, built.stderr
    assert "hint:" not in built.stderr  # nothing to offer: it is the fast model
    status = sharc_cli("status", str(small_repo), "--index-dir", index_dir, "--json")
    assert json.loads(status.stdout)["model"] == load_static_embedder().model_id
    found = sharc_cli("search", "hash a password with a salt", "--path", str(small_repo),
                      "--index-dir", index_dir, "--json", "--limit", "3")
    assert json.loads(found.stdout.splitlines()[0])["path"] == "taskboard/auth.py"


def test_the_mcp_server_builds_with_the_model_it_is_given(
    small_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sharc.mcp_server import build_server

    monkeypatch.setenv("SHARC_MODEL", "fast")
    _, service = build_server([small_repo], debounce=0.1)
    try:
        assert service.model == "fast"
        assert service.live(small_repo.resolve()).settings["model"] == "fast"
    finally:
        service.close()
    _, explicit = build_server([small_repo], debounce=0.1, model="all-MiniLM-L6-v2")
    assert explicit.model == "all-MiniLM-L6-v2"
    explicit.close()
