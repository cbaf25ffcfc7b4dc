"""Ops on a tensor's metadata or buffer, not its values: ``shape`` (int32 dims), ``size``
(int64 element count) and ``share_data`` (the same value under another name, no gradient:
``Variable.detach``)."""
from __future__ import annotations

import numpy as np

from .registry import register_op, same_as
from .types import Meta, VarType

shape_op = register_op("shape", inputs=["Input"], outputs=["Out"], differentiable=False)


@shape_op.def_infer_shape
def shape_shape(x: Meta):
    return Meta((len(x.shape),), VarType.INT32)


@shape_op.def_kernel
def shape_kernel(x):
    return np.array(x.shape, dtype=np.int32)


size_op = register_op("size", inputs=["Input"], outputs=["Out"], differentiable=False)


@size_op.def_infer_shape
def size_shape(x: Meta):
    return Meta((), VarType.INT64)


@size_op.def_kernel
def size_kernel(x):
    return np.array(x.size, dtype=np.int64)


share_data = register_op("share_data", inputs=["X"], outputs=["Out"], infer_shape=same_as(0),
                         differentiable=False, views_input=True)


@share_data.def_kernel
def share_data_kernel(x):
    return x
