"""``save_vars`` / ``load_vars`` and the fluid-era ``save_persistables`` /
``load_persistables``: chosen variables of a program to one file per variable in a folder,
or to one combined file (``filename``), in Paddle's tensor format. Loads check every value
before any reaches the scope."""
from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from ..executor.scope import global_scope
from ..framework.context import default_main_program
from ..framework.program import Program
from ..framework.program_state import is_persistable
from ..framework.variable import Variable
from . import atomic
from .tensor_stream import tensor_to_bytes
from .safe_read import read_file
from .variables import combined_bytes, commit, read_combined, read_separate, scope_arrays

__all__ = ["load_persistables", "load_vars", "save_persistables", "save_vars"]


def _chosen(main_program: Any, vars: Sequence[Variable] | None,
            predicate: Callable[[Variable], bool] | None) -> list[Variable]:
    program = default_main_program() if main_program is None else main_program
    if not isinstance(program, Program):
        raise TypeError("The type of input main_program is invalid, expected type is "
                        f"base.Program, but received {type(program)}")
    if vars is None:
        unique = {v.name: v for v in program.list_vars() if predicate is None or predicate(v)}
        return [unique[n] for n in sorted(unique)]
    return list(vars)


def save_vars(executor: Any, dirname: str | None, main_program: Any = None,
              vars: Sequence[Variable] | None = None,
              predicate: Callable[[Variable], bool] | None = None,
              filename: str | None = None) -> bytes | None:
    """Save ``vars`` (or the program's variables ``predicate`` accepts) from the global scope;
    with ``dirname=None`` the combined bytes are returned instead of written."""
    variables = _chosen(main_program, vars, predicate)
    if dirname is not None:
        os.makedirs(dirname, exist_ok=True)
    if dirname is None or filename is not None:      # combined: sorted by name, as Paddle
        data = combined_bytes(sorted(variables, key=lambda v: v.name), global_scope())
        if dirname is None:
            return data
        atomic.write_files({os.path.join(dirname, filename): data})
        return None
    arrays = scope_arrays(variables, global_scope())
    atomic.write_files({os.path.join(dirname, v.name): tensor_to_bytes(a)
                        for v, a in zip(variables, arrays)})
    return None


def load_vars(executor: Any, dirname: str | None, main_program: Any = None,
              vars: Sequence[Variable] | None = None,
              predicate: Callable[[Variable], bool] | None = None,
              filename: str | bytes | None = None) -> None:
    """Load what :func:`save_vars` wrote (``filename`` may also be the combined bytes)."""
    variables = _chosen(main_program, vars, predicate)
    ordered = sorted(variables, key=lambda v: v.name)
    if isinstance(filename, (bytes, bytearray)):
        staged = read_combined(bytes(filename), ordered, "<bytes>")
    elif filename is not None:
        path = os.path.join(dirname or "", filename)
        staged = read_combined(read_file(path), ordered, path)
    else:
        staged = read_separate(dirname, variables)
    commit(global_scope(), staged)


def save_persistables(executor: Any, dirname: str | None, main_program: Any = None,
                      filename: str | None = None) -> bytes | None:
    """Save every persistable variable (parameters and optimizer state)."""
    return save_vars(executor, dirname, main_program, predicate=is_persistable,
                     filename=filename)


def load_persistables(executor: Any, dirname: str | None, main_program: Any = None,
                      filename: str | bytes | None = None) -> None:
    load_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)
