"""Places: where a tensor lives. pyfluid runs on the CPU only."""
from __future__ import annotations


class CPUPlace:
    """The only place pyfluid runs on."""

    def __repr__(self) -> str:
        return "Place(cpu)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CPUPlace)

    def __hash__(self) -> int:
        return hash("cpu")

    def is_cpu_place(self) -> bool:
        return True

    def is_gpu_place(self) -> bool:
        return False

    def is_cuda_pinned_place(self) -> bool:
        return False

    def is_xpu_place(self) -> bool:
        return False
