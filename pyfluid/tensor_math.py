"""Paddle 2.6's math, comparison and search functions (``paddle.clip``, ``paddle.pow``,
``paddle.equal``, ``paddle.max``, ``paddle.argmax``, ``paddle.topk``, ``paddle.cumsum``...),
appending Paddle's ops, attributes and temporaries in static mode, eager on Tensors."""
from __future__ import annotations

from typing import Any

import numpy as np

from ._dispatch import apply_op
from .framework.layer_helper import LayerHelper
from .ops.types import VarType, convert_dtype, dtype_name
from .tensor_manip import TENSOR_TYPES, full_constant, is_static, layer_op


def clip(x, min: float | None = None, max: float | None = None,  # noqa: A002
         name: str | None = None):
    """Clamp ``x`` to [min, max]; a missing bound is the dtype's extreme, as in Paddle."""
    kind = dtype_name(x.dtype)
    if kind == "int32":
        low, high = np.iinfo(np.int32).min, np.iinfo(np.int32).max - 2 ** 7
    elif kind == "int64":
        low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max - 2 ** 39
    elif kind == "float16":
        low, high = float(np.finfo(np.float16).min), float(np.finfo(np.float16).max)
    else:
        low, high = float(np.finfo(np.float32).min), float(np.finfo(np.float32).max)
    inputs, attrs = {"X": x}, {"min": low, "max": high}
    for slot, bound in (("Min", min), ("Max", max)):
        if isinstance(bound, TENSOR_TYPES):
            bound.stop_gradient = True
            inputs[slot] = bound
        elif bound is not None:
            if not isinstance(bound, (int, float)):
                raise TypeError(f"The type of '{slot.lower()}' in clip must be (float, int, "
                                f"Variable), but received {type(bound)}.")
            attrs[slot.lower()] = bound
    return layer_op("clip", "clip", inputs, attrs, name=name)[0]


def pow(x, y, name: str | None = None):  # noqa: A001  (Paddle's name)
    """``x ** y``: op ``pow`` (attr ``factor``) for a number, ``elementwise_pow`` for a Tensor."""
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        return layer_op("pow", "pow", {"X": x}, {"factor": float(y)}, name=name)[0]
    if not isinstance(y, TENSOR_TYPES):
        raise TypeError(f"y must be scalar or tensor type, but received: {type(y)} ")
    from .tensor_api import elementwise_api
    out = None
    if is_static({"X": x, "Y": y}):
        # Paddle makes a first LayerHelper's temporary and passes it as the op's ``out``, so
        # the result is elementwise_pow_<n>.tmp_0 (and the counter moves on by two).
        out = LayerHelper("elementwise_pow", name=name).create_variable_for_type_inference(
            x.dtype)
        LayerHelper("elementwise_pow")
    return elementwise_api("elementwise_pow", x, y, out=out)


# -- comparisons: a bool result that never needs a gradient -----------------------------------
def _comparison(op_type: str, doc: str, scalar_y: bool = False):
    def compare(x, y, name: str | None = None):
        if scalar_y and not isinstance(y, TENSOR_TYPES):
            if not isinstance(y, (int, bool, float)):
                raise TypeError(f"Type of input args must be float, bool, int or Tensor, but "
                                f"received type {type(y)}")
            y = full_constant([], x.dtype, y)
        return layer_op(op_type, op_type, {"X": [x], "Y": [y]},
                        outputs=(("Out", VarType.BOOL, True),), name=name)[0]
    compare.__name__ = op_type
    compare.__doc__ = doc
    return compare


equal = _comparison("equal", "``x == y`` elementwise (y may be a Python number).", True)
not_equal = _comparison("not_equal", "``x != y`` elementwise.")
greater_than = _comparison("greater_than", "``x > y`` elementwise.")
greater_equal = _comparison("greater_equal", "``x >= y`` elementwise.")
less_than = _comparison("less_than", "``x < y`` elementwise.")
less_equal = _comparison("less_equal", "``x <= y`` elementwise.")


# -- reductions and search ---------------------------------------------------------------------
def _reduce_axis(axis: Any, x) -> tuple[bool, list[int]]:
    """Paddle's ``_get_reduce_axis``: (reduce_all, dim list)."""
    if axis is None:
        axis = []
    elif isinstance(axis, (tuple, range)):
        axis = list(axis)
    elif isinstance(axis, int):
        axis = [axis]
    elif not isinstance(axis, list):
        raise TypeError(f"The type of axis must be int, list or tuple, but received "
                        f"{type(axis)}")
    return (axis == [] or len(axis) == len(x.shape)), axis


def max(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Maximum over ``axis`` (all dims when None) (``reduce_max``)."""
    reduce_all, dims = _reduce_axis(axis, x)
    return apply_op("reduce_max", {"X": x}, {"dim": dims, "keep_dim": keepdim,
                                             "reduce_all": reduce_all}, name=name, layer="max")


def min(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Minimum over ``axis`` (all dims when None) (``reduce_min``)."""
    reduce_all, dims = _reduce_axis(axis, x)
    return apply_op("reduce_min", {"X": x}, {"dim": dims, "keep_dim": keepdim,
                                             "reduce_all": reduce_all}, name=name, layer="min")


def _arg_extreme(op_type: str, api: str, x, axis, keepdim: bool, dtype, name):
    if axis is not None and not isinstance(axis, int):
        raise TypeError(f"The type of 'axis'  must be int or Tensor or None in {api}, but "
                        f"received {type(axis)}.")
    if dtype is None:
        raise ValueError(f"the value of 'dtype' in {api} could not be None, but received None")
    out_dtype = convert_dtype(dtype)
    if dtype_name(out_dtype) not in ("int32", "int64"):
        raise TypeError(f"The data type of 'dtype' in {api} must be ['int32', 'int64'], but "
                        f"received {dtype_name(out_dtype)}. ")
    attrs = {"keepdims": keepdim, "axis": 0 if axis is None else axis,
             "flatten": axis is None, "dtype": int(out_dtype)}
    return layer_op(api, op_type, {"X": x}, attrs, (("Out", out_dtype, True),), name)[0]


def argmax(x, axis: int | None = None, keepdim: bool = False, dtype: Any = "int64",
           name: str | None = None):
    """Index of the maximum along ``axis`` (of the flattened ``x`` when None)."""
    return _arg_extreme("arg_max", "argmax", x, axis, keepdim, dtype, name)


def argmin(x, axis: int | None = None, keepdim: bool = False, dtype: Any = "int64",
           name: str | None = None):
    """Index of the minimum along ``axis`` (of the flattened ``x`` when None)."""
    return _arg_extreme("arg_min", "argmin", x, axis, keepdim, dtype, name)


def topk(x, k, axis: int | None = None, largest: bool = True, sorted: bool = True,  # noqa: A002
         name: str | None = None):
    """The ``k`` largest (or smallest) values along ``axis`` and their int64 indices."""
    inputs, attrs = {"X": [x]}, {}
    if isinstance(k, TENSOR_TYPES):
        inputs["K"] = [k]
    else:
        attrs["k"] = k
    attrs.update(largest=largest, sorted=sorted)
    if axis is not None:
        attrs["axis"] = axis
    return layer_op("top_k_v2", "top_k_v2", inputs, attrs,
                    (("Out", None, False), ("Indices", VarType.INT64, True)), name)


def argsort(x, axis: int = -1, descending: bool = False, name: str | None = None):
    """The int64 indices that sort ``x`` along ``axis`` (stable)."""
    return layer_op("argsort", "argsort", {"X": x}, {"axis": axis, "descending": descending},
                    (("Out", None, True), ("Indices", VarType.INT64, True)), name)[1]


def cumsum(x, axis: int | None = None, dtype: Any = None, name: str | None = None):
    """Running sum along ``axis`` (of the flattened ``x`` when None)."""
    from .tensor_api import cast
    if dtype is not None and x.dtype != convert_dtype(dtype):
        x = cast(x, dtype)
    attrs = {"flatten": axis is None}
    if axis is not None:
        attrs["axis"] = axis
    return layer_op("cumsum", "cumsum", {"X": x}, attrs, name=name)[0]


__all__ = ["argmax", "argmin", "argsort", "clip", "cumsum", "equal", "greater_equal",
           "greater_than", "less_equal", "less_than", "max", "min", "not_equal", "pow", "topk"]
