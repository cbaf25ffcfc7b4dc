"""``paddle.static``: building and running static programs."""
from __future__ import annotations

from typing import Sequence

from ..executor import Executor, Scope, global_scope, scope_guard
from ..framework.backward import append_backward, gradients
from ..framework import (Operator, Parameter, Program, Variable, default_main_program,
                         default_startup_program, program_guard)
from ..ops.types import VarType
from . import nn  # noqa: F401
from .py_func import py_func, py_func_name, register_py_func  # noqa: F401


def data(name: str, shape: Sequence[int | None], dtype=None, lod_level: int = 0) -> Variable:
    """Declare an input of the main program; it is fed by name at ``Executor.run``."""
    block = default_main_program().global_block()
    return block.create_var(name=name, shape=shape, dtype=dtype or "float32",
                            type=VarType.LOD_TENSOR, lod_level=lod_level, stop_gradient=True,
                            is_data=True, need_check_feed=True)


class CompiledProgram:
    """Paddle's CompiledProgram: here a transparent wrapper (one CPU device)."""

    def __init__(self, program_or_graph: Program, build_strategy=None):
        self._program = program_or_graph
        self._build_strategy = build_strategy


__all__ = ["append_backward", "gradients", "CompiledProgram", "Executor", "Operator", "Parameter", "Program", "Scope",
           "Variable", "data", "default_main_program", "default_startup_program",
           "global_scope", "nn", "program_guard", "scope_guard"]
__all__ += ["py_func", "py_func_name", "register_py_func"]
from .nn import create_parameter  # noqa: E402
__all__ += ["create_parameter"]
from .metric import accuracy, auc  # noqa: E402
__all__ += ["accuracy", "auc"]
from ..io import (deserialize_persistables, deserialize_program, load, load_inference_model,  # noqa: E402
                  load_program_state, normalize_program, save, save_inference_model,
                  serialize_persistables, serialize_program, set_program_state)
__all__ += ["deserialize_persistables", "deserialize_program", "load", "load_inference_model",
            "load_program_state", "normalize_program", "save", "save_inference_model",
            "serialize_persistables", "serialize_program", "set_program_state"]
from .input_spec import InputSpec  # noqa: E402
__all__ += ["InputSpec"]
from ..framework.passes import BuildStrategy  # noqa: E402
__all__ += ["BuildStrategy"]
from ..tensor.creation import create_global_var  # noqa: E402
__all__ += ["create_global_var"]
from . import io  # noqa: E402  (paddle.static.io)
__all__ += ["io"]
from ..tensor.indexing import setitem  # noqa: E402  (paddle.static.setitem)
__all__ += ["setitem"]
from ..onnx import export_onnx  # noqa: E402
__all__ += ["export_onnx"]
