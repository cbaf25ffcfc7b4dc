"""Shape and layout functions (``paddle.tensor.manipulation``): reshape, transpose, concat,
split, cast, squeeze/unsqueeze, stack, slice, gather, take_along_axis, tile, expand, flatten. In static mode
each appends the ops, attributes and ``<layer>_<n>.tmp_<k>`` temporaries Paddle's LayerHelper
code appends; on eager Tensors the same ops run at once."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._dispatch import TENSOR_TYPES, apply_op, is_static, layer_op
from ..framework import unique_name
from ..framework.variable import Variable
from ..framework.layer_helper import LayerHelper, check_type
from ..ops.types import VarType, convert_dtype


def reshape(x, shape: Sequence[int], name: str | None = None):
    if isinstance(x, Variable):
        block = x.block.program.current_block()
        prefix = name or unique_name.generate("reshape2")     # Paddle: reshape2_<n>.tmp_0/1
        out, xshape = (block.create_var(name=unique_name.generate_with_ignorable_key(
            prefix + ".tmp"), stop_gradient=stop) for stop in (False, True))
        apply_op("reshape2", {"X": x}, {"shape": list(shape)}, name=prefix,
                 outputs={"Out": out, "XShape": xshape})
        return out
    return apply_op("reshape2", {"X": x}, {"shape": list(shape)}, name=name)[0]


def transpose(x, perm: Sequence[int], name: str | None = None):
    """Permute the dims of ``x`` (op ``transpose2``; in static mode with its XShape output,
    ``transpose_<n>.tmp_1``, as Paddle appends it)."""
    if not isinstance(x, Variable):
        out = apply_op("transpose2", {"X": x}, {"axis": list(perm)})
        return out[0] if isinstance(out, tuple) else out
    helper = LayerHelper("transpose", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    x_shape = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="transpose2", inputs={"X": [x]},
                     outputs={"Out": [out], "XShape": [x_shape]}, attrs={"axis": list(perm)})
    return out


def concat(x: Sequence[Any], axis: int = 0, name: str | None = None):
    return apply_op("concat", {"X": list(x)}, {"axis": axis}, name=name)


def cast(x, dtype):
    return apply_op("cast", {"X": x}, {"in_dtype": int(convert_dtype(x.dtype)),
                                       "out_dtype": int(convert_dtype(dtype))})


def split(x, num_or_sections, axis: int = 0, name: str | None = None) -> list:
    """Split ``x`` along ``axis`` into ``num_or_sections`` equal parts, or parts of the given
    sizes (one may be -1); returns the list of parts."""
    if isinstance(num_or_sections, int):
        count, attrs = num_or_sections, {"num": num_or_sections, "sections": [], "axis": axis}
    else:
        count = len(num_or_sections)
        attrs = {"num": 0, "sections": [int(s) for s in num_or_sections], "axis": axis}
    if isinstance(x, Variable):
        prefix = name or unique_name.generate("split")
        block = x.block.program.current_block()
        outs = [block.create_var(name=unique_name.generate_with_ignorable_key(prefix + ".tmp"))
                for _ in range(count)]
        apply_op("split", {"X": x}, attrs, outputs={"Out": outs})
        return outs
    return apply_op("split", {"X": x}, attrs)


_SQUEEZE_OUTPUTS = (("Out", None, False), ("XShape", None, False))


def _axes_list(axis: Any, api: str) -> list[int]:
    if isinstance(axis, int):
        return [axis]
    if isinstance(axis, (list, tuple)) and all(isinstance(a, int) for a in axis):
        return list(axis)
    raise TypeError(f"The type of 'axis/axes' in {api} must be int, list or tuple of ints, but "
                    f"received {type(axis)}: {axis!r}")


def squeeze(x, axis: int | Sequence[int] | None = None, name: str | None = None):
    """Remove size-1 dims (only those listed in ``axis`` when given) (``squeeze2``)."""
    axes = [] if axis is None else _axes_list(axis, "squeeze")
    return layer_op("squeeze", "squeeze2", {"X": x}, {"axes": axes}, _SQUEEZE_OUTPUTS, name)[0]


def unsqueeze(x, axis: int | Sequence[int] | Variable, name: str | None = None):
    """Insert size-1 dims at ``axis`` (``unsqueeze2``; a Tensor axis goes to AxesTensor)."""
    inputs, attrs = {"X": x}, {}
    if isinstance(axis, TENSOR_TYPES):
        axis.stop_gradient = True
        inputs["AxesTensor"] = axis
    else:
        attrs["axes"] = _axes_list(axis, "unsqueeze")
    return layer_op("unsqueeze2", "unsqueeze2", inputs, attrs, _SQUEEZE_OUTPUTS, name)[0]


def stack(x: Sequence[Any], axis: int = 0, name: str | None = None):
    """Stack same-shaped tensors along a new ``axis``."""
    if not isinstance(x, (list, tuple)):
        raise TypeError(f"The type of 'x' in stack must be list[Tensor], tuple[Tensor] or "
                        f"TensorArray, but received {type(x)}")
    axis = 0 if axis is None else axis
    return layer_op("stack", "stack", {"X": list(x)}, {"axis": axis}, (("Y", None, False),),
                    name)[0]


def slice(input, axes: Sequence[int], starts, ends):  # noqa: A001  (Paddle's name)
    """``input[starts:ends]`` on each of ``axes``; starts/ends are int lists or int Tensors."""
    inputs, attrs = {"Input": input}, {"axes": list(axes)}
    infer_flags = [1] * len(axes)
    for key, value in (("starts", starts), ("ends", ends)):
        if isinstance(value, TENSOR_TYPES):
            value.stop_gradient = True
            inputs[key.capitalize() + "Tensor"] = value
            infer_flags = [-1] * len(axes)
        elif isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
            attrs[key] = list(value)
        else:
            raise ValueError(f"Input {key} must be an Variable, python list or tuple (of ints "
                             f"here), received {value!r}.")
    attrs["infer_flags"] = infer_flags
    return layer_op("slice", "slice", inputs, attrs)[0]


def gather(x, index, axis: Any = None, name: str | None = None):
    """Rows of ``x`` (slices along ``axis``) picked by the 1-D ``index``; ``axis`` may be an
    int tensor (Paddle's ``Axis`` input)."""
    axis = 0 if axis is None else axis
    if isinstance(axis, TENSOR_TYPES):
        if convert_dtype(axis.dtype) not in (VarType.INT32, VarType.INT64):
            raise TypeError(f"gather: axis must be an int32 or int64 tensor, received "
                            f"{axis.dtype}")
        return layer_op("gather", "gather", {"X": x, "Index": index, "Axis": axis},
                        name=name)[0]
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"gather: axis must be an int or an int tensor, received {axis!r}")
    return layer_op("gather", "gather", {"X": x, "Index": index},
                    {"axis": int(axis)}, name=name)[0]


def take_along_axis(arr, indices, axis: int, broadcast: bool = True):
    """``arr``'s values at ``indices`` along ``axis`` (op ``take_along_axis``); with
    ``broadcast`` both are first broadcast to a common shape off ``axis``, as Paddle does."""
    if len(arr.shape) != len(indices.shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions!")
    rank = len(arr.shape)
    axis = axis + rank if axis < 0 else axis
    if broadcast:
        target = list(arr.shape)
        target[axis] = indices.shape[axis]
        if any(a < i for a, i in zip(arr.shape, indices.shape)):
            target = list(indices.shape)     # indices larger than arr: arr broadcasts instead
        indices = expand(indices, target)
        target[axis] = arr.shape[axis]
        arr = expand(arr, target)
    else:
        for i in range(rank):
            if i != axis and arr.shape[i] < indices.shape[i]:
                raise RuntimeError(f"Size does not match at dimension {i} expected index "
                                   f"{list(indices.shape)} to be smaller than self "
                                   f"{list(arr.shape)} apart from dimension {axis}")
    if convert_dtype(indices.dtype) not in (VarType.INT32, VarType.INT64):
        raise TypeError(f"take_along_axis: indices must be int32 or int64, received "
                        f"{indices.dtype}")
    return layer_op("take_along_axis", "take_along_axis", {"Input": arr, "Index": indices},
                    {"Axis": axis}, outputs=(("Result", None, False),))[0]


def _int_list(values: Any, what: str, api: str) -> list[int]:
    if not isinstance(values, (list, tuple)) or not all(
            isinstance(v, (int, np.integer)) for v in values):
        raise TypeError(f"{api}: '{what}' must be a list or tuple of ints here (Tensor values "
                        f"are not supported), received {values!r}")
    return [int(v) for v in values]


def _check_bool_stop_gradient(x, api: str) -> None:
    if x.dtype == VarType.BOOL and not x.stop_gradient:
        raise ValueError(f"When the data type of input 'x' for {api} is bool, you must set its "
                         "stop_gradient to be True by some_var.stop_gradient = True supporting "
                         "some_var is the input.")


def tile(x, repeat_times: Sequence[int], name: str | None = None):
    """Repeat ``x`` ``repeat_times[i]`` times along dim i (``np.tile``)."""
    repeats = _int_list(repeat_times, "repeat_times", "tile")
    if any(r <= 0 for r in repeats):
        raise ValueError("All elements in repeat_times must be positive for tile.")
    _check_bool_stop_gradient(x, "tile")
    return layer_op("tile", "tile", {"X": [x]}, {"repeat_times": repeats}, name=name)[0]


def expand(x, shape: Sequence[int], name: str | None = None):
    """Broadcast ``x`` to ``shape`` (-1 keeps a dim) (``expand_v2``)."""
    dims = _int_list(shape, "shape", "expand")
    if any(d <= 0 and d != -1 for d in dims):
        raise ValueError("All elements in shape of expand must be positive or -1.")
    _check_bool_stop_gradient(x, "expand")
    return layer_op("expand", "expand_v2", {"X": [x]}, {"shape": dims}, name=name)[0]


broadcast_to = expand


# -- flatten and activations -----------------------------------------------------------------
def flatten(x, start_axis: int = 0, stop_axis: int = -1, name: str | None = None):
    """Merge dims ``start_axis..stop_axis`` into one (``flatten_contiguous_range``)."""
    rank = len(x.shape)
    for what, axis in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not isinstance(axis, int) or not -max(rank, 1) <= axis < max(rank, 1):
            raise ValueError(f"The {what} should be a int, and in range [-rank(x), rank(x))")
    start = start_axis + rank if start_axis < 0 else start_axis
    stop = stop_axis + rank if stop_axis < 0 else stop_axis
    if start > stop:
        raise ValueError("The stop_axis should be larger than stat_axis")
    attrs = {"start_axis": start, "stop_axis": stop}
    if not is_static({"X": x}):
        return apply_op("flatten_contiguous_range", {"X": x}, attrs)[0]
    helper = LayerHelper("flatten", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    x_shape = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="flatten_contiguous_range", inputs={"X": x},
                     outputs={"Out": out, "XShape": x_shape}, attrs=attrs)
    return out


def tensor_array_to_tensor(input, axis: int = 1, use_stack: bool = False,
                           name: str | None = None) -> tuple:
    """The elements of an array concatenated (or stacked, ``use_stack``) along ``axis``, and
    each element's size along it (an int32 Tensor; int64 in dynamic mode)."""
    if isinstance(input, list) and not any(isinstance(v, Variable) for v in input):
        res = stack(input, axis=axis) if use_stack else concat(input, axis=axis)
        sizes = np.array([int(x.shape[axis]) for x in input], dtype=np.int64)
        from .creation import to_tensor
        return res, to_tensor(sizes)
    check_type(input, "input", (list, Variable), "tensor_array_to_tensor")
    if isinstance(input, list):
        for i, item in enumerate(input):
            check_type(item, f"input[{i}]", Variable, "tensor_array_to_tensor")
    helper = LayerHelper("tensor_array_to_tensor", name=name)
    dtype = (input[0] if isinstance(input, list) else input).dtype
    out = helper.create_variable_for_type_inference(dtype=dtype)
    out_index = helper.create_variable_for_type_inference(dtype="int32")
    helper.append_op(type="tensor_array_to_tensor", inputs={"X": input},
                     outputs={"Out": [out], "OutIndex": [out_index]},
                     attrs={"axis": axis, "use_stack": use_stack})
    return out, out_index
