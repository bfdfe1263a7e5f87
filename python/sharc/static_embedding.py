"""The fast model: static token vectors distilled from the default model, numpy only.

A text's vector is the normalised sum of one stored vector per token, the text tokenized as
the default model tokenizes it (its ``tokenizer.json``, [CLS] ... [SEP], cut at 256 tokens).
The vectors were fitted so that this sum points where all-MiniLM-L6-v2's embedding of the
text points (projected on its top principal axes); a vector's length is its token's weight.

Two pooling settings, in ``sharc-static.json`` under ``pooling``, bend that sum for search
(both measured on CoSQA dev and on doc-comment/code pairs of registry packages; see
``tools/static_model/README.md``): a token met ``n`` times in a text counts ``n ** count_power``
times, not ``n`` (code repeats its identifiers, and a name used ten times is not ten times the
topic), and in a query each token's vector is scaled by its length to the power
``query_weight_power - 1``, evening out the weights the fit learnt from long code texts (a
question's every word matters). 1.0 and 1.0 give the plain sum the fit optimised.
``tools/static_model`` rebuilds them from registry packages; ``sharc-static.json`` beside the
weights records how (`sharc.model_config.static_settings` reads it).

Queries can also go through the teacher itself (``teacher_query_share`` under ``pooling``): a
query is one short text, embedded in a few milliseconds by the default model, and its vector
projected on the axes the static vectors live on (``projection``) meets the stored vectors
better than the static sum of its tokens does. The query's vector is then the normalised mix
``share * projected teacher + (1 - share) * static``. The teacher is loaded on the first
query, never for documents, so indexing stays encoder-free; ``load_embedder("fast")`` hands
it the default model, while `load_static_embedder` alone embeds queries statically.

No encoder runs for documents, so there is no late chunking, and no onnxruntime until a query
asks for the teacher: `load_static_embedder` needs numpy and tokenizers only. Load it as
``load_embedder("fast")``.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from sharc.errors import ModelError
from sharc.model_config import (
    FAST_MODEL,
    MINILM_TOKENIZER_SHA256,
    STATIC_DIRECTORY,
    static_settings,
)
from sharc.model_files import load_tokenizer
from sharc.vectors import normalize

if TYPE_CHECKING:
    from tokenizers import Tokenizer

LOG = logging.getLogger("sharc")


class QueryEncoder(Protocol):
    """What the fast model needs of its teacher: query vectors in the teacher's space."""

    dimension: int

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


WEIGHTS_FILE = "static-minilm.npz"

# Characters where tokenizing piece by piece would part from the tokenizer: ASCII controls,
# which it deletes (joining the letters around them into one word) where the ASCII path
# below would cut, and the controls Python's split() takes for whitespace (\x1c-\x1f, \x85).
# A text holding one is tokenized whole by the tokenizer itself.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x85]")
_ASCII_WORDS = re.compile(r"[a-z0-9]+|[^a-z0-9]")
# Distinct whitespace-separated pieces and ASCII words remembered with their token ids: about
# 30 MB of pieces at most (a big repository has a few hundred thousand; the cache starts over
# when full, while the words, fewer and more often met, carry on).
_PIECE_CACHE_LIMIT = 100_000
_WORD_CACHE_LIMIT = 200_000


class StaticEmbedder:
    """The fast model, with the interface of `sharc.embedding.Embedder` minus late chunking.

    Thread-safe; every method returns float32 L2-normalised rows. Build one with
    :func:`load_static_embedder` (or ``load_embedder("fast")``).
    """

    device = "cpu"
    #: A vector is a lookup and a sum, a tenth of a millisecond a chunk.
    static = True
    query_prefix = ""
    document_prefix = ""
    batch_chunks = 1024
    """Chunks per embedding batch (each journaled and committed as one): about a tenth of a
    second of this model's work, as 32 are of the default model's."""

    def __init__(
        self,
        vectors: np.ndarray,
        tokenizer: Tokenizer,
        *,
        model_id: str,
        max_length: int,
        projection: np.ndarray | None = None,
        count_power: float = 1.0,
        query_weight_power: float = 1.0,
        teacher_query_share: float = 0.0,
        query_teacher: Callable[[], QueryEncoder] | None = None,
    ) -> None:
        from tokenizers import Tokenizer

        if not 0.0 <= teacher_query_share <= 1.0:
            raise ValueError(f"teacher_query_share must lie in 0-1, got {teacher_query_share}")

        self.model_id = model_id
        """Names the vectors: the same text gives the same vector under the same id."""
        self.dimension = int(vectors.shape[1])
        self.max_length = max_length
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.projection = projection
        """The teacher's principal axes the vectors live on ([384, dimension]), if stored."""
        self.count_power = float(count_power)
        self.query_weight_power = float(query_weight_power)
        # A text has at most max_length tokens: each count's weight, looked up.
        self._count_weights = np.arange(max_length + 1, dtype=np.float32) ** self.count_power
        self._query_scales: np.ndarray | None = None
        if self.query_weight_power != 1.0:
            lengths = np.maximum(np.linalg.norm(self.vectors, axis=1), 1e-6)
            self._query_scales = (lengths ** (self.query_weight_power - 1.0)).astype(np.float32)
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._pieces = tokenizer
        self._whole = Tokenizer.from_str(tokenizer.to_str())
        self._whole.enable_truncation(max_length)
        frame = self._whole.encode("a")
        self._cls, self._sep = frame.ids[0], frame.ids[-1]
        self._cache: dict[str, tuple[int, ...]] = {}
        self._words: dict[str, tuple[int, ...]] = {}
        self.teacher_query_share = float(teacher_query_share)
        """How much of a query's vector comes from the teacher (0 without a teacher)."""
        if query_teacher is None or projection is None:
            self.teacher_query_share = 0.0
        self._load_teacher = query_teacher
        self._teacher: QueryEncoder | None = None
        self._teacher_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"StaticEmbedder({self.model_id!r}, dimension={self.dimension})"

    # -- the interface of Embedder -----------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text; text past ``max_length`` tokens is cut off, as the teacher does."""
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """One row per query (the teacher uses no query prefix; token weights evened out by
        ``query_weight_power``), mixed with the teacher's own vector of the query, projected,
        by ``teacher_query_share``."""
        static = self._embed(texts, self._query_scales)
        teacher = self._query_teacher() if len(static) else None
        if teacher is None:
            return static
        projected = normalize(np.asarray(teacher.embed_queries(list(texts))) @ self.projection)
        share = self.teacher_query_share
        return normalize(share * projected + (1.0 - share) * static)

    def _query_teacher(self) -> QueryEncoder | None:
        """The teacher, loaded on the first query that needs it; None where the mix is off or
        the teacher cannot be loaded (logged once: queries are then embedded statically)."""
        if self.teacher_query_share <= 0.0 or self._load_teacher is None:
            return None
        assert self.projection is not None  # a share above 0 has one (`__init__`)
        axes = self.projection.shape[0]
        with self._teacher_lock:
            if self._teacher is None and self._load_teacher is not None:
                try:
                    teacher = self._load_teacher()
                    if teacher.dimension != axes:
                        raise ModelError(f"the teacher gives {teacher.dimension} dimensions,"
                                         f" the fast model's projection takes {axes}")
                    self._teacher = teacher
                except (ModelError, OSError, ImportError) as error:
                    LOG.warning("the fast model embeds queries without its teacher: %s", error)
                    self._load_teacher = None
            return self._teacher

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens in each text, without special tokens or truncation."""
        encodings = self._pieces.encode_batch(_text_list(texts), add_special_tokens=False)
        return [len(encoding.ids) for encoding in encodings]

    def embed_late(self, text: str, spans: Sequence[Any], *, header: str = "") -> np.ndarray:
        raise self._no_late()

    def embed_late_batch(self, files: Sequence[Any]) -> list[np.ndarray]:
        raise self._no_late()

    def _no_late(self) -> ModelError:
        return ModelError(
            f"the fast model ({self.model_id}) has static token vectors and no encoder, so no"
            " late chunking; open the index with embedding_mode='independent'"
        )

    # -- tokens and vectors ------------------------------------------------------------------

    def token_ids(self, text: str) -> list[int]:
        """The ids the teacher's tokenizer gives ``text`` (special tokens, truncation).

        The tokenizer splits on whitespace before anything else, so each whitespace-separated
        piece is tokenized once and remembered: code repeats its pieces, and this is several
        times faster than tokenizing every text whole.
        """
        if _UNSAFE.search(text):
            return list(self._whole.encode(text).ids)
        limit = self.max_length - 1
        ids = [self._cls]
        cache = self._cache
        # Every piece gives at least one token, so `limit` pieces always fill the sequence.
        pieces = text.split(maxsplit=limit)
        if len(pieces) > limit:
            pieces[limit:] = pieces[limit].split()
        for piece in pieces:
            found = cache.get(piece)
            if found is None:
                found = self._remember(piece)
            ids.extend(found)
            if len(ids) >= limit:
                del ids[limit:]
                break
        ids.append(self._sep)
        return ids

    def _remember(self, piece: str) -> tuple[int, ...]:
        if len(self._cache) >= _PIECE_CACHE_LIMIT:
            self._cache.clear()
        if len(self._words) >= _WORD_CACHE_LIMIT:
            self._words.clear()
        if piece.isascii():
            # ASCII the tokenizer lowercases and cuts into runs of letters and digits and
            # single punctuation marks; words repeat far more than pieces do.
            found: tuple[int, ...] = ()
            words = self._words
            for word in _ASCII_WORDS.findall(piece.lower()):
                ids = words.get(word)
                if ids is None:
                    ids = tuple(self._pieces.encode(word, add_special_tokens=False).ids)
                    words[word] = ids
                found += ids
        else:
            found = tuple(self._pieces.encode(piece, add_special_tokens=False).ids)
        self._cache[piece] = found
        return found

    def _embed(self, texts: Sequence[str], scales: np.ndarray | None = None) -> np.ndarray:
        texts = _text_list(texts)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        vectors, weigh = self.vectors, self._count_weights
        for row, text in enumerate(texts):
            counts = Counter(self.token_ids(text))
            tokens = list(counts)
            weights = weigh[list(counts.values())]
            if scales is not None:
                weights = weights * scales[tokens]
            np.matmul(weights, vectors[tokens], out=out[row])
        return normalize(out)


def _text_list(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("pass a sequence of strings, not one string")
    return list(texts)


def load_static_embedder(
    directory: Path = STATIC_DIRECTORY,
    *,
    query_teacher: Callable[[], QueryEncoder] | None = None,
) -> StaticEmbedder:
    """Load the fast model shipped in ``sharc/models/static-minilm`` (checked by sha256).

    ``query_teacher`` loads the default model (all-MiniLM-L6-v2, the teacher) for queries, on
    the first one; without it, queries are embedded statically."""
    settings = static_settings(directory)
    weights = directory / WEIGHTS_FILE
    try:
        data = weights.read_bytes()
    except OSError as error:
        raise ModelError(f"the fast model's {weights} is unreadable ({error}); reinstall sharc") from error
    digest = hashlib.sha256(data).hexdigest()
    if digest != settings["weights_sha256"]:
        raise ModelError(
            f"the fast model's {weights} has sha256 {digest}, expected"
            f" {settings['weights_sha256']}: it is corrupt or another version; reinstall sharc"
        )
    with np.load(io.BytesIO(data)) as stored:
        values = stored["vectors"]
        scales = stored["scales"].astype(np.float32)
        projection = stored["projection"].astype(np.float32) if "projection" in stored else None
    vectors = values.astype(np.float32) * scales[:, None]
    tokenizer = load_tokenizer(
        (directory / settings["tokenizer"]).resolve(), MINILM_TOKENIZER_SHA256, True
    )
    if tokenizer.get_vocab_size() != len(vectors):
        raise ModelError(
            f"the fast model has {len(vectors)} token vectors but its tokenizer"
            f" {tokenizer.get_vocab_size()} tokens; reinstall sharc"
        )
    pooling = settings.get("pooling", {})
    return StaticEmbedder(
        vectors,
        tokenizer,
        model_id=str(settings["model_id"]),
        max_length=int(settings["max_length"]),
        projection=projection,
        count_power=float(pooling.get("count_power", 1.0)),
        query_weight_power=float(pooling.get("query_weight_power", 1.0)),
        teacher_query_share=float(pooling.get("teacher_query_share", 0.0)),
        query_teacher=query_teacher,
    )


__all__ = [
    "FAST_MODEL",
    "STATIC_DIRECTORY",
    "QueryEncoder",
    "StaticEmbedder",
    "load_static_embedder",
]
