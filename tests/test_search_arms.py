"""The arms a search ranks (`sharc.search_arms`), each over a stand-in store that records
what it was asked: the real stores are exercised through `Index.search` elsewhere."""

from __future__ import annotations

from typing import Any

import numpy as np
from sharc.search_arms import keyword_arm, query_vectors


class _Keyword:
    """A keyword store answering with fixed hits, as `KeywordStore` would."""

    def __init__(self, keyed: list[tuple[int | None, float]]) -> None:
        self.keyed = keyed
        self.asked: list[tuple[str, dict[str, Any]]] = []

    def key_scores(self, query: str, limit: int, **options: Any) -> list[tuple[int | None, float]]:
        self.asked.append(("key_scores", options))
        return self.keyed[:limit]

    def search_keyed(self, query: str, limit: int, **options: Any) -> list[tuple[str, float, int | None]]:
        self.asked.append(("search_keyed", options))
        return [(f"stored::{key}", score, key) for key, score in self.keyed[:limit]]


def test_keyword_hits_are_named_by_their_keys_in_the_order_search_keyed_gives() -> None:
    store = _Keyword([(3, 2.0), (1, 2.0), (2, 1.5), (9, 1.0)])
    known = {1: "b.py::one", 2: "a.py::two", 3: "a.py::three", 9: "c.py::nine"}
    looked_up: list[list[int]] = []

    def ids_of(keys: list[int]) -> dict[int, str]:
        looked_up.append(list(keys))
        return {key: known[key] for key in keys if key in known}

    keys: dict[str, int] = {}
    arm = keyword_arm(store, ["python"], "/src/", keys, ids_of)  # type: ignore[arg-type]
    assert arm("parse", 10) == [  # ties in id order
        ("a.py::three", 2.0), ("b.py::one", 2.0), ("a.py::two", 1.5), ("c.py::nine", 1.0)
    ]
    assert looked_up == [[3, 1, 2, 9]]
    assert keys == {"a.py::three": 3, "b.py::one": 1, "a.py::two": 2, "c.py::nine": 9}
    assert store.asked == [("key_scores", {"languages": ["python"], "path_prefix": "src"})]

    # Mid-update, the keyword index holds a changed chunk under a key the manifest does not
    # have yet: the stored documents name the hits, as before the keys.
    del known[9]
    store.asked.clear()
    assert arm("parse", 10)[-1] == ("stored::9", 1.0)
    assert [name for name, _ in store.asked] == ["key_scores", "search_keyed"]


def test_keyword_hits_without_keys_come_from_the_stored_documents() -> None:
    # A segment written before the `key` field: its hits have no key to look up.
    store = _Keyword([(3, 2.0), (None, 1.0)])
    arm = keyword_arm(store, [], None, None, lambda keys: {3: "a.py::three"})  # type: ignore[arg-type]
    assert arm("parse", 10) == [("stored::3", 2.0), ("stored::None", 1.0)]
    assert [name for name, _ in store.asked] == ["key_scores", "search_keyed"]
    # Without a way to look keys up, the stored documents name every hit.
    store.asked.clear()
    assert keyword_arm(store, [], None)("parse", 1) == [("stored::3", 2.0)]  # type: ignore[arg-type]
    assert [name for name, _ in store.asked] == ["search_keyed"]


def test_a_query_is_embedded_once_per_text() -> None:
    embedded: list[str] = []

    class _Embedder:
        def embed_queries(self, texts: list[str]) -> np.ndarray:
            embedded.extend(texts)
            return np.ones((len(texts), 4), dtype=np.float32) * len(embedded)

    vector_of = query_vectors(lambda: _Embedder())  # type: ignore[arg-type, return-value]
    first = vector_of("retry with backoff")
    assert vector_of("retry with backoff") is first  # the crowded search's second ask
    vector_of("parse a URL")
    assert embedded == ["retry with backoff", "parse a URL"]
