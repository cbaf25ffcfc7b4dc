"""Paddle 2.6's shape and indexing functions (``paddle.squeeze``, ``paddle.stack``,
``paddle.slice``, ``paddle.gather``, ``paddle.where``...): in static mode each appends the ops,
attributes and ``<layer>_<n>.tmp_<k>`` temporaries Paddle's LayerHelper code appends; on eager
Tensors the same ops run at once."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._dispatch import apply_op
from .eager.tensor import Tensor
from .framework.context import in_dynamic_mode
from .framework.layer_helper import LayerHelper
from .framework.variable import Variable
from .nn.cnn_functional import flatten  # noqa: F401  (paddle.flatten is F.flatten)
from .ops import get_op
from .ops.types import VarType, convert_dtype, dtype_name

TENSOR_TYPES = (Variable, Tensor)


def is_static(inputs: dict) -> bool:
    """Whether ops on ``inputs`` are appended to a program (as ``apply_op`` decides)."""
    values = [v for value in inputs.values()
              for v in (value if isinstance(value, (list, tuple)) else [value])]
    return not in_dynamic_mode() or any(isinstance(v, Variable) for v in values)


def layer_op(layer: str, op_type: str, inputs: dict, attrs: dict | None = None,
             outputs: Sequence[tuple[str, Any, bool]] = (("Out", None, False),),
             name: str | None = None) -> tuple:
    """Append ``op_type`` as ``LayerHelper(layer, name=name)`` does, with one temporary per
    ``(slot, dtype or None for the first input's dtype, stop_gradient)`` created in that
    order; or run it eagerly. Returns the outputs in the order of ``outputs``."""
    if not is_static(inputs):
        opdef = get_op(op_type)
        single = {s.name for s in opdef.inputs if not s.duplicable}
        result = apply_op(op_type, {k: v[0] if k in single and isinstance(v, list) else v
                                    for k, v in inputs.items()}, attrs or {})
        result = result if isinstance(result, tuple) else (result,)
        by_slot = dict(zip((s.name for s in opdef.outputs), result))
        return tuple(by_slot[slot] for slot, _, _ in outputs)
    first = next(v for value in inputs.values()
                 for v in (value if isinstance(value, (list, tuple)) else [value]))
    helper = LayerHelper(layer, name=name)
    created = [helper.create_variable_for_type_inference(
        first.dtype if dtype is None else dtype, stop_gradient=stop) for _, dtype, stop in outputs]
    helper.append_op(type=op_type, inputs=inputs, attrs=attrs or {},
                     outputs={slot: var for (slot, _, _), var in zip(outputs, created)})
    return tuple(created)


def full_constant(shape: Sequence[int], dtype: Any, value: Any):
    """``paddle.full``: a ``fill_constant`` op with Paddle's value/str_value attrs."""
    vtype = convert_dtype(dtype)
    is_int = dtype_name(vtype) in ("int8", "uint8", "int16", "int32", "int64")
    attrs = {"shape": [int(d) for d in shape], "dtype": int(vtype), "force_cpu": False,
             "value": float(int(value) if is_int else value),
             "str_value": str(int(value)) if is_int else str(float(value))}
    if not in_dynamic_mode():
        # Paddle's fill_constant builds two LayerHelpers and names its output after the second
        LayerHelper("fill_constant")
    return apply_op("fill_constant", {}, attrs, layer="fill_constant")


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


def gather(x, index, axis: int | None = None, name: str | None = None):
    """Rows of ``x`` (slices along ``axis``) picked by the 1-D ``index``."""
    axis = 0 if axis is None else axis
    if not isinstance(axis, int):
        raise NotImplementedError("gather: pass axis as a Python int (a Tensor axis is not "
                                  "supported)")
    return layer_op("gather", "gather", {"X": x, "Index": index},
                    {"axis": axis, "overwrite": False}, name=name)[0]


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


def where(condition, x=None, y=None, name: str | None = None):
    """``x`` where ``condition`` holds, else ``y`` (numbers become 1-element tensors, as in
    Paddle; operands of different shapes are broadcast first with zeros_like/cast/add)."""
    from .tensor_api import add, cast
    if np.isscalar(x):
        x = full_constant([1], np.array([x]).dtype.name, x)
    if np.isscalar(y):
        y = full_constant([1], np.array([y]).dtype.name, y)
    if x is None and y is None:
        raise NotImplementedError("where(condition) without x and y (nonzero) is not "
                                  "supported; use numpy.nonzero on the fetched value")
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    inputs = {"Condition": condition, "X": x, "Y": y}
    same = list(condition.shape) == list(x.shape) == list(y.shape)
    if is_static(inputs) and not same:
        zeros = [apply_op("fill_any_like", {"X": v}, {"value": 0.0, "dtype": int(v.dtype)},
                          layer="full_like") for v in (x, y, condition)]
        zero_condition = cast(zeros[2], x.dtype)
        cast_condition = cast(condition, x.dtype)
        broadcast_zeros = add(add(zeros[0], zeros[1]), zero_condition)
        x, y = add(x, broadcast_zeros), add(y, broadcast_zeros)
        inputs = {"Condition": cast(add(cast_condition, broadcast_zeros), "bool"), "X": x,
                  "Y": y}
    return layer_op("where", "where", inputs, outputs=(("Out", x.dtype, False),), name=name)[0]


__all__ = ["broadcast_to", "expand", "flatten", "gather", "slice", "squeeze", "stack", "tile",
           "unsqueeze", "where"]
