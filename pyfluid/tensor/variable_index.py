"""Static indexing beyond ints and slices (Paddle's ``base/variable_index.py``): an index that
is itself a Tensor (``x[i]`` with ``i`` a one-element integer Variable, as converted loops
produce), and the tensor-array forms ``array[i]`` and ``array.append(x)`` that dynamic-to-static
gives a Python list appended in a loop on Tensors."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._dispatch import layer_op
from ..framework.variable import Variable
from ..ops.types import VarType

_MAX_END = 2 ** 31 - 1


def is_array(value: Any) -> bool:
    return isinstance(value, Variable) and value.type == VarType.LOD_TENSOR_ARRAY


def has_tensor_index(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(part, Variable) for item in items
               for part in ((item.start, item.stop) if isinstance(item, slice) else (item,)))


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


def tensor_getitem(x: Variable, index: Any) -> Variable:
    """``x[...]`` with Tensors among ints and step-1 slices: a ``slice`` whose starts and
    ends are tensors (Paddle's StartsTensorList / EndsTensorList)."""
    items = index if isinstance(index, tuple) else (index,)
    if len(items) > len(x.shape):
        raise IndexError(f"too many indices for Variable '{x.name}': it has {len(x.shape)} "
                         f"dims, {len(items)} were indexed")
    axes, starts, ends, decrease = [], [], [], []
    for axis, item in enumerate(items):
        if isinstance(item, slice):
            if item.step not in (None, 1):
                raise NotImplementedError(f"indexing Variable '{x.name}' with {item!r} and a "
                                          "Tensor: only step-1 slices go with a Tensor index")
            if item.start is None and item.stop is None:
                continue
            start = 0 if item.start is None else item.start
            stop = _MAX_END if item.stop is None else item.stop
        elif isinstance(item, (Variable, int, np.integer)) and not isinstance(item, bool):
            start, stop = item, item + 1
            decrease.append(axis)
        else:
            raise NotImplementedError(f"indexing Variable '{x.name}' with {item!r}")
        axes.append(axis)
        starts.append(_as_index(start))
        ends.append(_as_index(stop))
    attrs = {"axes": axes, "starts": [-1] * len(axes), "ends": [-1] * len(axes),
             "infer_flags": [-1] * len(axes), "decrease_axis": decrease}
    return layer_op("slice", "slice", {"Input": x, "StartsTensorList": starts,
                                       "EndsTensorList": ends}, attrs)[0]


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
