"""Tensor arrays (``paddle.tensor.array``): ``create_array``, ``array_write``, ``array_read``,
``array_length``. In static mode an array is a LOD_TENSOR_ARRAY variable written and read by
``write_to_array`` / ``read_from_array`` ops; in dynamic mode it is a Python list."""
from __future__ import annotations

from typing import Any, Sequence

from ..engine.tensor import Tensor
from ..framework.context import in_dynamic_mode
from ..framework.layer_helper import LayerHelper, check_dtype, check_type
from ..framework.variable import Variable
from ..ops.types import VarType

__all__ = ["array_length", "array_read", "array_write", "create_array"]


def _is_array(value: Any) -> bool:
    return isinstance(value, Variable) and value.type == VarType.LOD_TENSOR_ARRAY


def _check_index(i: Any, api: str) -> None:
    check_type(i, "i", Variable, api)
    check_dtype(i.dtype, "i", ["int64"], api)


def _eager_index(i: Any, api: str) -> int:
    assert isinstance(i, Tensor), f"The index 'i' in {api} must be Variable in dygraph mode"
    assert i.shape == [1], "The shape of index 'i' should be [1] in dygraph mode"
    return int(i.item(0))


def create_array(dtype: Any, initialized_list: Sequence | None = None):
    """An empty array of ``dtype`` (holding ``initialized_list`` if given)."""
    values = []
    if initialized_list is not None:
        if not isinstance(initialized_list, (list, tuple)):
            raise TypeError("Require type(initialized_list) should be list/tuple, but received "
                            f"{type(initialized_list)}")
        values = list(initialized_list)
    for value in values:
        if not isinstance(value, (Variable, Tensor)):
            raise TypeError("All values in `initialized_list` should be Variable or "
                            f"pir.OpResult, but recevied {type(value)}.")
    if in_dynamic_mode():
        return values
    helper = LayerHelper("array")
    array = helper.create_variable(name=f"{helper.name}.out", type=VarType.LOD_TENSOR_ARRAY,
                                   dtype=dtype)
    for value in values:
        array_write(value, array_length(array), array=array)
    return array


def array_write(x, i, array=None):
    """``array[i] = x`` (a new array when ``array`` is None); returns the array."""
    if in_dynamic_mode() and not isinstance(x, Variable):
        assert isinstance(x, Tensor), \
            "The input data 'x' in array_write must be Variable in dygraph mode"
        index = _eager_index(i, "array_write")
        if array is None:
            array = create_array(x.dtype)
        assert isinstance(array, list), "The 'array' in array_write must be a list in dygraph mode"
        assert index <= len(array), ("The index 'i' should not be greater than the length of "
                                     "'array' in dygraph mode")
        if index < len(array):
            array[index] = x
        else:
            array.append(x)
        return array
    _check_index(i, "array_write")
    check_type(x, "x", Variable, "array_write")
    helper = LayerHelper("array_write")
    if array is not None and not _is_array(array):
        raise TypeError("array should be tensor array vairable in array_write Op")
    if array is None:
        array = helper.create_variable(name=f"{helper.name}.out",
                                       type=VarType.LOD_TENSOR_ARRAY, dtype=x.dtype)
    helper.append_op(type="write_to_array", inputs={"X": [x], "I": [i]},
                     outputs={"Out": [array]})
    return array


def array_read(array, i):
    """``array[i]``."""
    if in_dynamic_mode() and isinstance(array, list):
        return array[_eager_index(i, "array_read")]
    _check_index(i, "array_read")
    helper = LayerHelper("array_read")
    if not _is_array(array):
        raise TypeError("array should be tensor array vairable")
    out = helper.create_variable_for_type_inference(dtype=array.dtype)
    helper.append_op(type="read_from_array", inputs={"X": [array], "I": [i]},
                     outputs={"Out": [out]})
    return out


def array_length(array):
    """The number of elements (an int64 [1] Tensor; a Python int in dynamic mode)."""
    if in_dynamic_mode() and isinstance(array, list):
        return len(array)
    if not _is_array(array):
        raise TypeError("array should be tensor array vairable in array_length Op")
    helper = LayerHelper("array_length")
    out = helper.create_variable_for_type_inference(dtype="int64")
    out.stop_gradient = True
    helper.append_op(type="lod_array_length", inputs={"X": [array]}, outputs={"Out": [out]})
    return out
