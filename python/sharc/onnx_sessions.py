"""What an ONNX Runtime session runs on: the provider's name, the CUDA device, and the physical
cores this process may use (its intra-op threads).

Standard library only; the session itself is made in `sharc.embedding`.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any

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
