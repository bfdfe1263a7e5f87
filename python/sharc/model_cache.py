"""Prepared copies of an encoder, built once and cached in the user cache directory.

The int8 CPU copy (:func:`prepare_quantized_model`) and the GPU copies
(:func:`prepare_gpu_model`: fp16 or fp32, attention fused, pooling inside the graph; see
`sharc.gpu_encoder`) are keyed by the source model's sha256 and a recipe name, written
atomically (temporary file, then rename) with a sidecar ``.sha256`` that guards against damage,
so concurrent processes are safe and a torn copy is rebuilt. Building needs the ``onnx``
package; loading a built copy does not.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sharc.errors import ModelError
from sharc.gpu_encoder import Precision, fold_int8_weights, gpu_graph, gpu_recipe

log = logging.getLogger(__name__)

#: Names the quantized cache file; bump it when the recipe changes.
QUANTIZATION_RECIPE = "int8-dynamic-per-channel-v1"


def model_cache_dir() -> Path:
    """Where prepared models are cached: ``models/`` under sharc's cache home."""
    from sharc.paths import cache_home

    return cache_home() / "models"


# -- the quantized copy -----------------------------------------------------------------------


def quantized_model_path(source_sha256: str, cache_dir: Path | None = None) -> Path:
    """Where the int8 copy of the model with this sha256 is cached."""
    return (cache_dir or model_cache_dir()) / f"{source_sha256[:32]}-{QUANTIZATION_RECIPE}.onnx"


def prepare_quantized_model(
    source: Path,
    *,
    source_sha256: str | None = None,
    source_bytes: bytes | None = None,
    cache_dir: Path | None = None,
) -> Path:
    """The per-channel dynamic int8 copy of ``source``, built once and cached.

    The copy is keyed by the source's sha256 and written atomically (temporary file, then
    rename), so concurrent processes are safe; the build is deterministic, so whichever
    finishes last writes the same bytes. A sidecar ``.sha256`` file guards the copy: a
    damaged copy is rebuilt. Needs the ``onnx`` package; takes a few seconds.
    """
    return quantized_copy(source, source_bytes, source_sha256, cache_dir)[0]


def quantized_copy(
    source: Path, data: bytes | None, source_sha256: str | None, cache_dir: Path | None
) -> tuple[Path, bytes]:
    """The cached int8 copy's path and bytes, built first if missing or damaged."""
    return _prepared_model(
        source,
        data,
        source_sha256,
        cache_dir,
        recipe=QUANTIZATION_RECIPE,
        build=lambda original: _quantize(original, source, _cache_target(cache_dir)),
        what="int8",
        instead="quantized=False",
    )


def _cache_target(cache_dir: Path | None) -> Path:
    return cache_dir or model_cache_dir()


def _prepared_model(
    source: Path,
    data: bytes | None,
    source_sha256: str | None,
    cache_dir: Path | None,
    *,
    recipe: str,
    build: Callable[[bytes], bytes],
    what: str,
    instead: str,
) -> tuple[Path, bytes]:
    """A cached copy of ``source`` made by ``build``: its path and bytes, built first if
    missing or damaged. ``recipe`` names it; ``instead`` is the load option that avoids it."""
    if data is None:
        try:
            data = source.read_bytes()
        except OSError as error:
            raise ModelError(f"model file {source} is unreadable ({error})") from error
    digest = hashlib.sha256(data).hexdigest()
    if source_sha256 is not None and digest != source_sha256:
        raise ModelError(f"model file {source} has sha256 {digest}, expected {source_sha256}")
    target = _cache_target(cache_dir) / f"{digest[:32]}-{recipe}.onnx"
    check = target.with_name(target.name + ".sha256")
    try:
        expected = check.read_text().strip()
        cached = target.read_bytes()
        if hashlib.sha256(cached).hexdigest() == expected:
            return target, cached
    except OSError:
        pass
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ModelError(
            f"cannot create the model cache {target.parent} ({error}); set SHARC_CACHE_DIR"
            f" to a writable directory, or load with {instead}"
        ) from error
    log.info("preparing the %s copy of %s in %s (once)", what, source, target)
    prepared = build(data)
    try:
        _write_atomically(target, prepared)
        _write_atomically(check, (hashlib.sha256(prepared).hexdigest() + "\n").encode())
    except OSError as error:
        raise ModelError(
            f"cannot write the {what} copy to {target} ({error}); set SHARC_CACHE_DIR to a"
            f" writable directory, or load with {instead}"
        ) from error
    return target, prepared


def _quantize(data: bytes, source: Path, workdir: Path) -> bytes:
    """Per-channel dynamic int8 quantization of every MatMul weight.

    Weights stored as int8 with a Cast and a per-channel Mul (the shipped MiniLM) are first
    folded back to float32, which quantize_dynamic needs; embedding tables keep their stored
    form. Per-tensor int8 loses too much (cosine to float 0.945 against 0.994 per channel).
    """
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as error:
        raise ModelError(
            f"quantizing {source} needs the onnx package ({error}); hint: pip install onnx,"
            " or load with quantized=False"
        ) from error
    try:
        model = onnx.load_from_string(data)
    except Exception as error:
        raise ModelError(f"model file {source} is not a readable ONNX model ({error})") from error
    _fold_int8_matmul_weights(model)
    handle, scratch = tempfile.mkstemp(suffix=".onnx", dir=workdir)
    os.close(handle)
    try:
        with _quiet_root_logger():
            quantize_dynamic(
                model,
                scratch,
                op_types_to_quantize=["MatMul"],
                per_channel=True,
                weight_type=QuantType.QInt8,
            )
        return Path(scratch).read_bytes()
    except Exception as error:
        raise ModelError(
            f"quantizing {source} failed ({error}); load with quantized=False"
        ) from error
    finally:
        Path(scratch).unlink(missing_ok=True)


def _fold_int8_matmul_weights(model: Any) -> None:
    """Replace ``Mul(Cast(int8 initializer), scale initializer)`` feeding MatMuls by floats."""
    fold_int8_weights(model, into=frozenset({"MatMul"}))


# -- the GPU copy -----------------------------------------------------------------------------


def gpu_model_path(
    source_sha256: str,
    precision: Precision = "fp16",
    pooling: str = "mean",
    cache_dir: Path | None = None,
    *,
    fused: bool = True,
) -> Path:
    """Where the GPU copy (``precision``, ``pooling`` inside the graph, attention ``fused``) of
    the model with this sha256 is cached."""
    recipe = gpu_recipe(precision, pooling, fused=fused)
    return _cache_target(cache_dir) / f"{source_sha256[:32]}-{recipe}.onnx"


def prepare_gpu_model(
    source: Path,
    *,
    precision: Precision = "fp16",
    pooling: str = "mean",
    output: str = "last_hidden_state",
    fused: bool = True,
    source_sha256: str | None = None,
    source_bytes: bytes | None = None,
    cache_dir: Path | None = None,
) -> Path:
    """The GPU copy of ``source`` (`sharc.gpu_encoder.gpu_graph`: weights folded to floats,
    attention fused unless ``fused=False``, float16 for ``precision="fp16"``, ``pooling`` and
    normalisation inside the graph), built once and cached like
    :func:`prepare_quantized_model`. Needs the ``onnx`` package; takes a few seconds."""
    return gpu_copy(
        source,
        source_bytes,
        source_sha256,
        precision=precision,
        pooling=pooling,
        output=output,
        fused=fused,
        cache_dir=cache_dir,
    )[0]


def gpu_copy(
    source: Path,
    data: bytes | None,
    source_sha256: str | None,
    *,
    precision: Precision,
    pooling: str,
    output: str,
    cache_dir: Path | None,
    fused: bool = True,
) -> tuple[Path, bytes]:
    def build(original: bytes) -> bytes:
        try:
            import onnx  # noqa: F401
        except ImportError as error:
            raise ModelError(
                f"preparing the {precision} copy of {source} needs the onnx package ({error});"
                " hint: pip install onnx, or load with precision='fp32'"
            ) from error
        try:
            return gpu_graph(
                original, precision=precision, pooling=pooling, output=output, fused=fused
            )
        except Exception as error:  # onnx and its converters raise untyped exceptions
            raise ModelError(
                f"preparing the {precision} copy of {source} failed ({error}); load with"
                " precision='fp32'"
            ) from error

    return _prepared_model(
        source,
        data,
        source_sha256,
        cache_dir,
        recipe=gpu_recipe(precision, pooling, fused=fused),
        build=build,
        what=precision,
        instead="precision='fp32'",
    )


@contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """Silence onnxruntime.quantization's advice, which it logs on (and configures) the root
    logger."""
    root = logging.getLogger()
    guard = logging.NullHandler()
    added = not root.handlers
    if added:
        root.addHandler(guard)  # keeps logging.warning() from calling basicConfig()
    previous = root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)
        if added:
            root.removeHandler(guard)


def _write_atomically(path: Path, data: bytes) -> None:
    handle, scratch = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(scratch, 0o644)  # mkstemp's 0600 would lock out a shared SHARC_CACHE_DIR
        os.replace(scratch, path)
    except BaseException:
        Path(scratch).unlink(missing_ok=True)
        raise


__all__ = [
    "QUANTIZATION_RECIPE",
    "gpu_copy",
    "gpu_model_path",
    "model_cache_dir",
    "prepare_gpu_model",
    "prepare_quantized_model",
    "quantized_copy",
    "quantized_model_path",
]
