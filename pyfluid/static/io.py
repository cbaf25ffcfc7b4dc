"""``paddle.static.io``: inference models, checkpoints, variables and raw files, as the
module Paddle 2.6 lays out (the implementations live in ``pyfluid.io``)."""
from __future__ import annotations

import os
import warnings
from typing import Any

from ..executor.scope import global_scope
from ..framework.program import Program
from ..framework.program_state import is_belong_to_optimizer, is_parameter, is_persistable
from ..io import atomic
from ..io.checkpoint import load, load_program_state, save, set_program_state
from ..io.inference import (_normalize_path_prefix, _valid_program, deserialize_persistables,
                            deserialize_program, load_inference_model, normalize_program,
                            save_inference_model, serialize_persistables, serialize_program)
from ..io.save_vars import load_vars, save_vars
from ..io.variables import combined_bytes, persistables

__all__ = ["deserialize_persistables", "deserialize_program", "get_program_persistable_vars",
           "is_belong_to_optimizer", "is_parameter", "is_persistable", "load",
           "load_from_file", "load_inference_model", "load_program_state", "load_vars",
           "normalize_program", "save", "save_inference_model", "save_to_file", "save_vars",
           "serialize_persistables", "serialize_program", "set_program_state"]

_get_valid_program = _valid_program


def save_to_file(path: str, content: bytes) -> None:
    """Write ``content`` (bytes) to ``path`` atomically."""
    if not isinstance(content, bytes):
        raise ValueError("'content' type should be bytes.")
    atomic.write_file(path, content)


def load_from_file(path: str) -> bytes:
    """The bytes of the file at ``path``."""
    if not os.path.isfile(path):
        raise ValueError(f"There is no file named {path}")
    with open(path, "rb") as f:
        return f.read()


def get_program_persistable_vars(program: Program) -> list:
    return [v for v in program.list_vars() if is_persistable(v)]


def _serialize_program(program: Program) -> bytes:
    return program.desc.serialize_to_string()


def _serialize_persistables(program: Program, executor: Any) -> bytes | None:
    """The ``.pdiparams`` bytes of ``program``'s persistables (None, with a warning, when it
    has none)."""
    variables = persistables(program)
    if not variables:
        warnings.warn("no variable in your model, please ensure there are any variables in "
                      "your model to save", stacklevel=2)
        return None
    return combined_bytes(variables, global_scope())


_ = _normalize_path_prefix    # Paddle's helper name, re-exported for callers of static.io
