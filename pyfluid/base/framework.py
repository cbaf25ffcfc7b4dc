"""``paddle.base.framework``: the static IR's classes and the mode switches, as Paddle 2.6
names them (thin names over ``pyfluid.framework``)."""
from __future__ import annotations

from ..framework import (Block, Operator, Parameter, Program, Variable, default_main_program,
                         default_startup_program, disable_static, enable_static,
                         in_dynamic_mode, in_dynamic_or_pir_mode, in_pir_mode, program_guard,
                         use_pir_api)
from ..framework.context import switch_main_program, switch_startup_program
from ..ops.types import convert_dtype as convert_np_dtype_to_dtype_
from ..ops.types import dtype_name
from .core import CPUPlace, CUDAPinnedPlace, CUDAPlace

in_dygraph_mode = in_dynamic_mode
grad_var_name = "{}@GRAD".format

__all__ = ["Block", "CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "Operator", "Parameter",
           "Program", "Variable", "convert_np_dtype_to_dtype_", "default_main_program",
           "default_startup_program", "disable_static", "dtype_is_floating", "enable_static",
           "in_dygraph_mode", "in_dynamic_mode", "in_dynamic_or_pir_mode", "in_pir_mode",
           "program_guard", "switch_main_program", "switch_startup_program", "use_pir_api"]


def dtype_is_floating(dtype) -> bool:
    return dtype_name(convert_np_dtype_to_dtype_(dtype)) in ("float16", "bfloat16", "float32",
                                                              "float64")
