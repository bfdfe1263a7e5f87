"""What an ONNX Runtime session runs on: the provider's name, the CUDA device, and the physical
cores this process may use (its intra-op threads).

Standard library only until a session is made (`create_session` imports ONNX Runtime).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sharc.errors import ModelError

if TYPE_CHECKING:
    from onnxruntime import InferenceSession


def provider_name(provider: Any) -> str:
    return provider[0] if isinstance(provider, tuple) else str(provider)


def device_id(session: InferenceSession) -> int:
    """The CUDA device a session runs on (its provider options' ``device_id``), else 0."""
    options = session.get_provider_options().get("CUDAExecutionProvider", {})
    try:
        return int(options.get("device_id", 0))
    except (TypeError, ValueError):
        return 0


def physical_cores() -> int:
    """Physical cores this process may use: affinity, SMT siblings and the cgroup quota."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:
        cpus = list(range(os.cpu_count() or 1))
    cores: set[tuple[str, str]] = set()
    for cpu in cpus:
        topology = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with (
                open(topology + "physical_package_id") as package,
                open(topology + "core_id") as core,
            ):
                cores.add((package.read().strip(), core.read().strip()))
        except OSError:
            cores.add(("cpu", str(cpu)))
    count = len(cores) or 1
    try:
        with open("/sys/fs/cgroup/cpu.max") as handle:
            quota, period = handle.read().split()[:2]
        if quota != "max":
            count = min(count, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return max(1, count)


def choose_providers(device: str, providers: Sequence[Any] | None) -> list[Any]:
    try:
        import onnxruntime
    except ImportError as error:
        raise ModelError(
            "ONNX Runtime is not installed; hint: pip install 'sharc[cpu]'"
            " (or 'sharc[gpu]' for CUDA; the two conflict, install one)"
        ) from error

    if providers is not None:
        if not providers:
            raise ValueError("providers must not be empty")
        return list(providers)
    available = onnxruntime.get_available_providers()
    has_cuda = "CUDAExecutionProvider" in available
    if device == "cuda" and not has_cuda:
        raise ModelError(
            "device='cuda' but onnxruntime offers no CUDAExecutionProvider"
            f" (it has {available}); hint: pip install onnxruntime-gpu, or use device='cpu'"
        )
    if device not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', not {device!r}")
    if device != "cpu" and has_cuda:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def create_session(
    path: Path, data: bytes | None, providers: list[Any], threads: int | None
) -> InferenceSession:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads if threads else physical_cores()
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # An int8 product on an x86 CPU without VNNI (AVX2, AVX-512 before Cascade Lake, most
    # AMD EPYC before Zen 4) saturates 16-bit sums and drifts from the model: cosine to the
    # float model mean 0.993 (min 0.988) over the standard library's functions on such a CPU,
    # 0.996 (min 0.992) with this set, which has ONNX Runtime compute those products unsigned
    # where the weights need it (1.0-1.2x the int8 time there; no change where VNNI is). The
    # same index then holds the same vectors on every CPU.
    options.add_session_config_entry("session.x64quantprecision", "1")
    try:
        return onnxruntime.InferenceSession(
            data if data is not None else str(path), options, providers=providers
        )
    except Exception as error:  # onnxruntime raises its own untyped exceptions
        raise ModelError(
            f"onnxruntime cannot load model file {path}: {error}; the file is corrupt or not"
            " an ONNX model"
        ) from error
