"""Comparison ops (equal, not_equal, less_than, less_equal, greater_than, greater_equal),
isfinite_v2 and the logical ops (logical_and/or/xor/not): boolean results, no gradient."""
from __future__ import annotations

import numpy as np

from .common import broadcast_pair, elementwise_shape
from .registry import register_op
from .types import Meta, VarType


# -- comparisons (not differentiable) ---------------------------------------------------------------
def _comparison(op_type, fn):
    op = register_op(op_type, inputs=["X", "Y"], outputs=["Out"], differentiable=False,
                     attrs={"axis": -1}, extra_attrs={"force_cpu": False},
                     infer_shape=lambda x, y, *, axis, **_: elementwise_shape(
                         x, y, axis=axis, dtype=VarType.BOOL))

    @op.def_kernel
    def kernel(x, y, *, axis):
        return fn(*broadcast_pair(x, y, axis))

    @op.def_specialize
    def fast(*, axis):
        return fn if axis == -1 else None      # NumPy's own broadcasting
    return op


for _type, _fn in (("equal", np.equal), ("not_equal", np.not_equal), ("less_than", np.less),
                   ("less_equal", np.less_equal), ("greater_than", np.greater),
                   ("greater_equal", np.greater_equal)):
    _comparison(_type, _fn)

register_op("isfinite_v2", inputs=["X"], outputs=["Out"], differentiable=False,
            infer_shape=lambda x: Meta(x.shape, VarType.BOOL)).def_kernel(np.isfinite)


# -- logical ops (not differentiable): bool results; non-zero inputs count as True ----------------
def _same_dtype(op_type: str, x: Meta, y: Meta) -> None:
    if x.dtype != y.dtype:
        raise ValueError(f"(InvalidArgument) The DataType of {op_type} Op's Variable must be "
                         f"consistent, but received paddle.{x.dtype.name_str} and "
                         f"paddle.{y.dtype.name_str}.")


def _logical_binary(op_type, fn):
    def infer(x, y):
        _same_dtype(op_type, x, y)
        return Meta(elementwise_shape(x, y).shape, VarType.BOOL)
    register_op(op_type, inputs=["X", "Y"], outputs=["Out"], differentiable=False,
                infer_shape=infer).def_kernel(fn)


for _type, _fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                   ("logical_xor", np.logical_xor)):
    _logical_binary(_type, _fn)

register_op("logical_not", inputs=["X"], outputs=["Out"], differentiable=False,
            infer_shape=lambda x: Meta(x.shape, VarType.BOOL)).def_kernel(np.logical_not)
