"""Comparison ops (equal, not_equal, less_than, less_equal, greater_than, greater_equal) and
isfinite_v2: boolean results, no gradient."""
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
    return op


for _type, _fn in (("equal", np.equal), ("not_equal", np.not_equal), ("less_than", np.less),
                   ("less_equal", np.less_equal), ("greater_than", np.greater),
                   ("greater_equal", np.greater_equal)):
    _comparison(_type, _fn)

register_op("isfinite_v2", inputs=["X"], outputs=["Out"], differentiable=False,
            infer_shape=lambda x: Meta(x.shape, VarType.BOOL)).def_kernel(np.isfinite)
