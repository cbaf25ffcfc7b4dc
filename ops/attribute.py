"""Attribute ops (Paddle's ``tensor/attribute.py``): ``shape`` and ``size`` read a tensor's
metadata, never its values, so neither has a gradient."""
from __future__ import annotations

import numpy as np

from .registry import register_op
from .types import Meta, VarType

# -- shape: the dims of Input as an int32 vector [rank] (known even when dims are -1) ----------
shape = register_op("shape", inputs=["Input"], outputs=["Out"], differentiable=False,
                    infer_shape=lambda x: Meta((len(x.shape),), VarType.INT32))


@shape.def_kernel
def shape_kernel(x):
    return np.array(x.shape, dtype=np.int32)


# -- size: the element count of Input as an int64 scalar (paddle.numel) ------------------------
size = register_op("size", inputs=["Input"], outputs=["Out"], differentiable=False,
                   infer_shape=lambda x: Meta((), VarType.INT64))


@size.def_kernel
def size_kernel(x):
    return np.array(x.size, dtype=np.int64)
