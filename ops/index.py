"""Index ops: gather and one_hot_v2."""
from __future__ import annotations

import numpy as np

from .common import normalize_axis
from .registry import register_op
from .types import Meta, VarType, to_numpy_dtype

# -- gather (an axis given as a tensor, Paddle's dispensable Axis input, is not supported) ----
gather = register_op("gather", inputs=["X", "Index"], outputs=["Out"],
                     attrs={"overwrite": True, "axis": 0}, no_grad=["Index"])


@gather.def_infer_shape
def gather_shape(x: Meta, index: Meta, *, axis, **_):
    if len(index.shape) > 1 and not (len(index.shape) == 2 and index.shape[1] == 1):
        raise ValueError(f"gather: Index must be 1-D (or [N, 1]), received shape "
                         f"{list(index.shape)}")
    ax = normalize_axis(axis, len(x.shape))
    return Meta(tuple(x.shape[:ax]) + tuple(index.shape[:1]) + tuple(x.shape[ax + 1:]), x.dtype)


def _flat_index(x, index, ax: int):
    flat = index.reshape(-1) if index.ndim else index
    if flat.size and (flat.min() < -x.shape[ax] or flat.max() >= x.shape[ax]):
        raise ValueError(f"gather: index values must be in [{-x.shape[ax]}, {x.shape[ax]}) for "
                         f"axis {ax} of X {list(x.shape)}, received min {flat.min()}, max "
                         f"{flat.max()}")
    return flat


@gather.def_kernel
def gather_kernel(x, index, *, axis):
    ax = normalize_axis(axis, x.ndim)
    return np.take(x, _flat_index(x, index, ax), axis=ax)


@gather.def_grad
def gather_grad(x, index, dout, *, axis):
    ax = normalize_axis(axis, x.ndim)
    flat = _flat_index(x, index, ax)
    dx = np.zeros_like(x)
    rows = np.moveaxis(dout if flat.ndim else np.expand_dims(dout, ax), ax, 0)
    np.add.at(np.moveaxis(dx, ax, 0), flat.reshape(-1), rows)
    return dx, None


# -- one_hot_v2 ----------------------------------------------------------------------------------
one_hot_v2 = register_op("one_hot_v2", inputs=["X", "depth_tensor?"], outputs=["Out"],
                         attrs={"depth": -1, "dtype": int(VarType.FP32),
                                "allow_out_of_range": False}, differentiable=False)


@one_hot_v2.def_infer_shape
def one_hot_v2_shape(x: Meta, depth_tensor=None, *, depth, dtype, **_):
    return Meta(tuple(x.shape) + (-1 if depth_tensor is not None else depth,), VarType(dtype))


@one_hot_v2.def_kernel
def one_hot_v2_kernel(x, depth_tensor=None, *, depth, dtype, allow_out_of_range):
    depth = int(depth_tensor.reshape(())) if depth_tensor is not None else depth
    if x.size and not allow_out_of_range:
        if x.min() < 0:
            raise ValueError(f"Illegal index value, Input(input) value should be at least 0, "
                             f"but received input ({x.min()}) less than 0")
        if x.max() >= depth:
            raise ValueError(f"Illegal index value, Input(input) value should be less than "
                             f"Input(depth), but received input ({x.max()}) not less than "
                             f"depth ({depth})")
    return (x[..., None] == np.arange(depth)).astype(to_numpy_dtype(dtype))
