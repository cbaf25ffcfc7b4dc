"""``paddle.base.executor``: the Executor, scopes, and the feed/fetch helpers Paddle's own
code and tests call."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..executor import Executor, LoDTensor, Scope, global_scope, scope_guard
from ..ops.types import VarType, convert_dtype, to_numpy_dtype

__all__ = ["Executor", "Scope", "global_scope", "scope_guard"]


def _as_lodtensor(data: Any, place: Any = None, dtype: Any = None) -> LoDTensor:
    """An array, a Python scalar, list or tuple as a LoDTensor; non-arrays need ``dtype``."""
    if not isinstance(data, np.ndarray):
        assert dtype is not None, "The dtype should be given when feed data is not np.ndarray"
        np_dtype = to_numpy_dtype(convert_dtype(dtype) if isinstance(dtype, VarType) else dtype)
        if np.isscalar(data):
            data = np.array(data).astype(np_dtype)
        elif isinstance(data, (list, tuple)):
            data = np.array(data)
            if data.dtype == np.object_:
                raise TypeError("\n\tFaild to convert input data to a regular ndarray :\n\t* "
                                "Usually this means the input data contains nested lists with "
                                "different lengths. Please consider using "
                                "'base.create_lod_tensor' to convert it to a LoD-Tensor.")
            data = data.astype(np_dtype)
        else:
            raise TypeError(f"Convert data of type {type(data)} to Tensor is not supported")
    return LoDTensor(data)


def _fetch_var(name: Any, scope: Scope | None = None, return_numpy: bool = True):
    """The value of variable ``name`` (or a Variable's) in ``scope`` (the global one by
    default), as an array (or the LoDTensor itself)."""
    name = getattr(name, "name", name)
    if not isinstance(name, str):
        raise TypeError(f"_fetch_var expects a variable name, got {type(name)}")
    var = (scope if scope is not None else global_scope()).find_var(name)
    if var is None:
        raise ValueError(f"Cannot find {name} in scope. Perhaps you need to make the variable "
                         "persistable by using var.persistable = True in your program.")
    tensor = var.get_tensor()
    return np.array(tensor) if return_numpy else tensor
