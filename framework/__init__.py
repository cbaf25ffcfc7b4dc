"""The static-graph IR: Program, Block, Variable, Operator, and the passes over them."""
from .block import Block
from .context import (default_main_program, default_startup_program, disable_static,
                      enable_static, in_dynamic_mode, program_guard, reset_default_programs)
from .errors import (ExecutionError, FeedError, FetchError, ProgramError, ShapeError,
                     UnknownOpError)
from .operator import Operator
from .program import Program
from .variable import Parameter, Variable

__all__ = [
    "Block", "ExecutionError", "FeedError", "FetchError", "Operator", "Parameter", "Program",
    "ProgramError",
    "ShapeError", "UnknownOpError", "Variable", "default_main_program",
    "default_startup_program", "disable_static", "enable_static", "in_dynamic_mode",
    "program_guard", "reset_default_programs",
]
