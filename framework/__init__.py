"""The static-graph IR: Program, Block, Variable, Operator, and the passes over them."""
from .block import Block
from .context import (default_main_program, default_startup_program, disable_static,
                      enable_static, in_dynamic_mode, in_dynamic_or_pir_mode, in_pir_mode,
                      program_guard, reset_default_programs, use_pir_api)
from .errors import (ExecutionError, FeedError, FetchError, ProgramError, ShapeError,
                     UnknownOpError)
from .operator import Operator
from .program import Program
from .variable import Parameter, Variable
from . import io_utils
from .io_utils import is_belong_to_optimizer, is_parameter, is_persistable
from ..ops.types import convert_dtype as convert_np_dtype_to_dtype_

__all__ = [
    "Block", "ExecutionError", "FeedError", "FetchError", "Operator", "Parameter", "Program",
    "ProgramError",
    "ShapeError", "UnknownOpError", "Variable", "default_main_program",
    "default_startup_program", "disable_static", "enable_static", "in_dynamic_mode",
    "program_guard", "reset_default_programs",
    # Paddle's public ``paddle.framework`` (this package is what ``paddle.framework`` names)
    "convert_np_dtype_to_dtype_", "in_dynamic_or_pir_mode", "in_pir_mode", "io_utils",
    "is_belong_to_optimizer", "is_parameter", "is_persistable", "use_pir_api",
]
