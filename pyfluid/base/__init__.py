"""``paddle.base``: Paddle 2.6's name for the fluid API (``paddle.fluid`` before 2.6; pyfluid
keeps that name as an alias of this package). Thin layers over pyfluid's IR, executor and
autodiff: core, framework, executor, backward, compiler, dygraph, unique_name, plus the
fluid-era layers and optimizers that tutorials written against Paddle 1.x use."""
from __future__ import annotations

import sys
from typing import Sequence

from ..framework import unique_name
from . import core, framework, executor, backward, compiler, dygraph  # noqa: I001
from . import data_feeder, io, layers, optimizer, reader
from .backward import append_backward, gradients
from .compiler import BuildStrategy, CompiledProgram, ExecutionStrategy
from .core import (CPUPlace, CUDAPinnedPlace, CUDAPlace, LoDTensor, Scope, XPUPlace,
                   is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_rocm,
                   is_compiled_with_xpu)
from .data_feeder import DataFeeder
from .dygraph import guard as _dygraph_guard  # noqa: F401
from .executor import Executor, global_scope, scope_guard
from .framework import (Program, Variable, default_main_program, default_startup_program,
                        in_dygraph_mode, in_pir_mode, program_guard)
from ..framework.context import disable_static as enable_dygraph
from ..framework.context import enable_static as disable_dygraph
from .. import regularizer
from ..param_attr import ParamAttr
from ..static import data as _static_data

sys.modules[__name__ + ".unique_name"] = unique_name     # the generator's own module
libpaddle = core
Tensor = LoDTensor
enable_imperative, disable_imperative = enable_dygraph, disable_dygraph


def data(name: str, shape: Sequence[int | None], dtype="float32", lod_level: int = 0) -> Variable:
    """``fluid.data``: a fed input of the main program (None or -1 for unknown dims)."""
    return _static_data(name=name, shape=shape, dtype=dtype, lod_level=lod_level)


def cpu_places(device_count: int | None = None) -> list:
    return [CPUPlace() for _ in range(device_count or 1)]


__all__ = [
    "BuildStrategy", "CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "CompiledProgram", "DataFeeder",
    "ExecutionStrategy", "Executor", "LoDTensor", "ParamAttr", "Program", "Scope", "Tensor",
    "Variable", "XPUPlace", "append_backward", "backward", "compiler", "core", "cpu_places",
    "data", "data_feeder", "default_main_program", "default_startup_program",
    "disable_dygraph", "dygraph", "enable_dygraph", "executor", "framework", "global_scope",
    "gradients", "in_dygraph_mode", "in_pir_mode", "io", "is_compiled_with_cinn",
    "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu", "layers",
    "optimizer", "program_guard", "reader", "regularizer", "scope_guard", "unique_name",
]
