"""``paddle.fluid``: the fluid-era (Paddle 1.x) static API, as thin wrappers over the modern
one, so that tutorials written against it (``import paddle.fluid as fluid``) run."""
from __future__ import annotations

from typing import Sequence

from ..executor import CPUPlace, Executor, Scope, global_scope, scope_guard
from ..framework import (Program, Variable, default_main_program, default_startup_program,
                         program_guard)
from ..param_attr import ParamAttr
from ..static import data as _static_data
from . import layers, optimizer
from ..framework import unique_name  # noqa: E402  (paddle.fluid.unique_name)


def data(name: str, shape: Sequence[int | None], dtype="float32", lod_level: int = 0) -> Variable:
    """``fluid.data``: a fed input of the main program (None or -1 for unknown dims)."""
    return _static_data(name=name, shape=shape, dtype=dtype, lod_level=lod_level)


__all__ = ["CPUPlace", "Executor", "ParamAttr", "Program", "Scope", "Variable", "data",
           "default_main_program", "default_startup_program", "global_scope", "layers",
           "optimizer", "program_guard", "scope_guard", "unique_name"]
