"""``paddle.base.core``: what Paddle's C++ core module shows a Python user, over pyfluid's own
objects: scopes and tensors (the executor's), places (CPU only; the CUDA ones fail as a
CPU-only Paddle build does), the desc objects (views of the IR) and the enums."""
from __future__ import annotations

from typing import Any

from ..executor import CPUPlace, LoDTensor, LoDTensorArray, Scope

from ..framework.desc import BlockDesc, OpDesc, VarDesc
from ..framework.program import ProgramDesc
from ..framework.variable import Parameter
from ..ops.types import AttrType, VarType

__all__ = ["AttrType", "BlockDesc", "CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "Graph",
           "LoDTensor", "LoDTensorArray", "OpDesc", "Place", "ProgramDesc", "Scope", "VarDesc",
           "XPUPlace", "get_cuda_device_count", "grad_var_suffix", "is_compiled_with_cinn",
           "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "is_float16_supported", "kEmptyVarName", "kGradVarSuffix"]

kGradVarSuffix = "@GRAD"
kEmptyVarName = "@EMPTY@"
Tensor = LoDTensor


def grad_var_suffix() -> str:
    return kGradVarSuffix


def is_compiled_with_cuda() -> bool:
    """False: pyfluid runs on the CPU only (as a CPU build of Paddle answers)."""
    return False


is_compiled_with_rocm = is_compiled_with_xpu = is_compiled_with_cinn = is_compiled_with_cuda
is_compiled_with_ipu = is_compiled_with_custom_device = is_compiled_with_cuda


def is_float16_supported(place: Any = None) -> bool:
    return False


def get_cuda_device_count() -> int:
    return 0


class CUDAPlace:
    """A GPU place: a CPU-only build cannot make one (Paddle's CPU build says the same)."""

    def __init__(self, device_id: int = 0):
        raise RuntimeError("Cannot use GPU because you have installed CPU version PaddlePaddle "
                           "(pyfluid runs on the CPU only). Change CUDAPlace(0) to CPUPlace().")


class CUDAPinnedPlace:
    def __init__(self):
        raise RuntimeError("(PermissionDenied) Cannot use CUDAPinnedPlace in CPU only version, "
                           "pyfluid runs on the CPU only: use CPUPlace().")


class XPUPlace:
    def __init__(self, device_id: int = 0):
        raise RuntimeError("Cannot use XPU: pyfluid runs on the CPU only. Use CPUPlace().")


class Place:
    """A place holder that ``set_place`` fills (always the CPU here)."""

    def __init__(self):
        self._place = CPUPlace()

    def set_place(self, place: Any) -> None:
        if not isinstance(place, (CPUPlace, Place)):
            raise TypeError(f"pyfluid runs on the CPU only; cannot set place {place!r}")
        self._place = CPUPlace()

    def is_cpu_place(self) -> bool:
        return True

    def is_gpu_place(self) -> bool:
        return False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (CPUPlace, Place))

    def __hash__(self) -> int:
        return hash("cpu")

    def __repr__(self) -> str:
        return "Place(cpu)"


class Graph:
    """``core.Graph(program.desc)``: Paddle's SSA graph of a program. pyfluid runs programs
    directly, so a Graph only records the program it was built from."""

    def __init__(self, program_desc: ProgramDesc):
        if not isinstance(program_desc, ProgramDesc):
            raise TypeError(f"core.Graph expects a ProgramDesc, got {type(program_desc)}")
        self._program = program_desc._program


def _create_loaded_parameter(parameters: list, scope: Scope, executor: Any = None) -> None:
    """Create an empty variable in ``scope`` for each Parameter (what Paddle does before
    loading values into them)."""
    for param in parameters:
        if not isinstance(param, Parameter):
            raise TypeError(f"_create_loaded_parameter expects Parameters, got {type(param)}")
        scope.var(param.name)

