"""Moving persistable variables between a scope and Paddle's tensor files, all or nothing:
values are read and checked into a staging dict first, and only then committed to the scope."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..framework.program import Program
from ..framework.program_state import is_persistable
from ..framework.variable import Variable
from ..ops.types import VarType, dtype_name, to_numpy_dtype
from .errors import ModelFileError
from .safe_read import path_inside, read_file
from .tensor_stream import TensorReader, TensorStreamError, tensor_from_bytes, tensor_to_bytes


def persistables(program: Program) -> list[Variable]:
    """What ``save_combine``/``load_combine`` move: persistable, non feed/fetch/reader/RAW
    variables of every block, one per name, sorted by name."""
    unique = {}
    for var in program.list_vars():
        if is_persistable(var) and var.type != VarType.RAW:
            unique.setdefault(var.name, var)
    return [unique[name] for name in sorted(unique)]


def scope_arrays(variables: Iterable[Variable], scope) -> list[np.ndarray]:
    """The values of ``variables`` in ``scope``; a missing value is an error naming it."""
    arrays = []
    for var in variables:
        held = scope.find_var(var.name)
        if held is None or not held.is_initialized():
            raise ValueError(f"cannot save variable '{var.name}': it has no value in the scope. "
                             "Run the startup program (and training) before saving.")
        arrays.append(np.asarray(held.get_tensor()))
    return arrays


def combined_bytes(variables: list[Variable], scope) -> bytes:
    """The ``.pdiparams`` stream of ``variables`` (already in file order)."""
    arrays = scope_arrays(variables, scope)
    return b"".join(tensor_to_bytes(a, dtype=VarType.BF16 if v._dtype == VarType.BF16 else None)
                    for v, a in zip(variables, arrays))


def read_combined(data: bytes, variables: list[Variable], source: str) -> dict[str, np.ndarray]:
    """Parse a ``.pdiparams`` stream holding exactly ``variables`` in order (load_combine)."""
    reader = TensorReader(data)
    staged = {}
    for i, var in enumerate(variables):
        try:
            array, _ = reader.read()
        except TensorStreamError as exc:
            raise ModelFileError(source, f"while reading variable '{var.name}' (#{i + 1} of "
                                 f"{len(variables)} the program needs): {exc}") from None
        staged[var.name] = check_value(var, array, source)
    if not reader.at_end:
        raise ModelFileError(source, "Not allowed to load partial data via load_combine_op, "
                             "please use load_op instead. "
                             f"({reader.remaining} bytes follow the {len(variables)} variables the "
                             "program needs: the file belongs to another model or is corrupt)")
    return staged


def read_separate(dirname: str, variables: list[Variable]) -> dict[str, np.ndarray]:
    """One record per file named like the variable (the ``save_vars(dirname)`` layout); a
    name may not lead outside ``dirname``."""
    staged = {}
    for var in variables:
        path = path_inside(dirname, var.name)
        try:
            array, _ = tensor_from_bytes(read_file(path))
        except TensorStreamError as exc:
            raise ModelFileError(path, f"variable '{var.name}': {exc}") from None
        staged[var.name] = check_value(var, array, path)
    return staged


def check_value(var: Variable, array: np.ndarray, source: str) -> np.ndarray:
    """The loaded value must fit the variable's declared dtype and shape (-1 = any)."""
    if var._dtype is not None and var._dtype.is_dtype and array.dtype != to_numpy_dtype(var._dtype):
        raise ModelFileError(source, f"variable '{var.name}' is declared "
                             f"{dtype_name(var._dtype)} but the file holds {array.dtype.name}")
    declared = var._shape
    if declared is not None and (len(declared) != array.ndim or any(
            d >= 0 and d != n for d, n in zip(declared, array.shape))):
        raise ModelFileError(source, f"variable '{var.name}' is declared with shape "
                             f"{list(declared)} but the file holds shape {list(array.shape)}")
    return array


def commit(scope, staged: dict[str, np.ndarray]) -> None:
    """Write checked values into the scope (after every file has been read)."""
    for name, array in staged.items():
        scope.var(name).get_tensor()._array = array

