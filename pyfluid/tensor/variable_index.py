"""Indexing a tensor array: ``array[i]`` and ``array.append(x)``, the forms dynamic-to-static
gives a Python list appended to in a loop on Tensors (Paddle's ``Variable.append`` and its
getitem of a LOD_TENSOR_ARRAY)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..framework.variable import Variable
from ..ops.types import VarType


def is_array(value: Any) -> bool:
    return isinstance(value, Variable) and value.type == VarType.LOD_TENSOR_ARRAY


def _as_index(value: Any) -> Variable:
    """An int or an integer Variable as an int64 Variable of shape [1]."""
    from .creation import full
    from .manipulation import cast, reshape
    if not isinstance(value, Variable):
        return full([1], int(value), "int64")
    if value.dtype not in (VarType.INT32, VarType.INT64):
        raise TypeError(f"a Tensor used as an index must hold an integer, but "
                        f"'{value.name}' is {value.dtype}")
    value = value if value.dtype == VarType.INT64 else cast(value, "int64")
    return value if tuple(value.shape) == (1,) else reshape(value, [1])


def array_getitem(array: Variable, index: Any) -> Variable:
    """``array[i]`` of a tensor array (``i`` an int, negative from the end, or a Tensor)."""
    from .array import array_length, array_read
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        i = _as_index(index) if index >= 0 else array_length(array) + int(index)
    elif isinstance(index, Variable):
        i = _as_index(index)
    else:
        raise NotImplementedError(f"indexing the tensor array '{array.name}' with {index!r}: "
                                  "use an int or an integer Tensor")
    return array_read(array, i)


def array_append(self: Variable, value: Any) -> None:
    """``array.append(x)``: write ``x`` at the array's length."""
    if self.type != VarType.LOD_TENSOR_ARRAY:
        raise TypeError("Only Variable with VarType.LOD_TENSOR_ARRAY support `append` method, "
                        f"but received type: {self.type}")
    from .array import array_length, array_write
    array_write(x=value, i=array_length(self), array=self)
