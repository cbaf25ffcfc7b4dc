"""Search functions (``paddle.tensor.search``): argmax/argmin, argsort, topk, where,
index_select."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._dispatch import TENSOR_TYPES, apply_op, is_static, layer_op
from ..ops.types import VarType, convert_dtype, dtype_name
from .creation import full_constant
from .manipulation import cast
from .math import add


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


def where(condition, x=None, y=None, name: str | None = None):
    """``x`` where ``condition`` holds, else ``y`` (numbers become 1-element tensors, as in
    Paddle; operands of different shapes are broadcast first with zeros_like/cast/add)."""
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


def index_select(x, index, axis: int = 0, name: str | None = None):
    """The slices of ``x`` along ``axis`` at the 1-D int ``index`` (op ``index_select``)."""
    if convert_dtype(index.dtype) not in (VarType.INT32, VarType.INT64):
        raise TypeError(f"The data type of 'index' in paddle.tensor.search.index_select must "
                        f"be any of ['int32', 'int64'], but received {dtype_name(index.dtype)}.")
    return layer_op("index_select", "index_select", {"X": x, "Index": index}, {"dim": axis},
                    name=name)[0]
