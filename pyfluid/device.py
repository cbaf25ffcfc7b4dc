"""``paddle.device``: which device runs the ops. pyfluid runs on the CPU only, so the device
is always ``'cpu'``; asking for another one fails as a CPU-only Paddle build does."""
from __future__ import annotations

from .base.core import (CPUPlace, CUDAPinnedPlace, CUDAPlace, XPUPlace, get_cuda_device_count,
                        is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_rocm,
                        is_compiled_with_xpu)

__all__ = ["CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "XPUPlace", "get_all_device_type",
           "get_available_device", "get_cuda_device_count", "get_device",
           "is_compiled_with_cinn", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_xpu", "set_device"]


def set_device(device: str) -> CPUPlace:
    """Select the device; only ``'cpu'`` exists. Returns its place."""
    if not isinstance(device, str):
        raise ValueError(f"The device must be a string which is like 'cpu', but received "
                         f"{device!r}")
    kind = device.lower().split(":")[0]
    if kind == "cpu":
        return CPUPlace()
    if kind in ("gpu", "xpu", "npu", "ipu", "mlu"):
        raise ValueError(f"The device should not be '{device}', since PaddlePaddle is not "
                         f"compiled with {'CUDA' if kind == 'gpu' else kind.upper()} "
                         "(pyfluid runs on the CPU only)")
    raise ValueError(f"The device must be a string which is like 'cpu', 'gpu', 'gpu:x', "
                     f"'xpu', 'xpu:x', but received {device!r}")


def get_device() -> str:
    return "cpu"


def get_all_device_type() -> list[str]:
    return ["cpu"]


def get_available_device() -> list[str]:
    return ["cpu"]
