"""Index ops: gather, gather_nd, index_select, where_index and one_hot_v2."""
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


# -- gather_nd: X at the coordinates along Index's last axis ----------------------------------
gather_nd = register_op("gather_nd", inputs=["X", "Index"], outputs=["Out"], no_grad=["Index"])


@gather_nd.def_infer_shape
def gather_nd_shape(x: Meta, index: Meta):
    depth = index.shape[-1] if index.shape else 0
    if depth > len(x.shape):
        raise ValueError(f"gather_nd: the last dim of Index ({depth}) must not exceed the rank "
                         f"of X ({len(x.shape)})")
    return Meta(tuple(index.shape[:-1]) + tuple(x.shape[depth if depth >= 0 else 0:]), x.dtype)


def _coordinates(index: np.ndarray) -> tuple:
    return tuple(np.moveaxis(index, -1, 0)) if index.shape[-1] else ()


@gather_nd.def_kernel
def gather_nd_kernel(x, index):
    if not index.shape[-1]:             # an empty coordinate picks all of X, per index row
        return np.broadcast_to(x, index.shape[:-1] + x.shape).copy()
    return x[_coordinates(index)]


@gather_nd.def_grad
def gather_nd_grad(x, index, dout):
    dx = np.zeros_like(x)
    if not index.shape[-1]:
        return dout.reshape((-1,) + x.shape).sum(axis=0).astype(x.dtype), None
    np.add.at(dx, _coordinates(index), dout)
    return dx, None


# -- index_select: slices of X along ``dim`` picked by a 1-D Index ----------------------------
index_select = register_op("index_select", inputs=["X", "Index"], outputs=["Out"],
                           attrs={"dim": 0}, no_grad=["Index"])


@index_select.def_infer_shape
def index_select_shape(x: Meta, index: Meta, *, dim):
    ax = normalize_axis(dim, len(x.shape))
    return Meta(tuple(x.shape[:ax]) + (index.shape[0],) + tuple(x.shape[ax + 1:]), x.dtype)


@index_select.def_kernel
def index_select_kernel(x, index, *, dim):
    ax = normalize_axis(dim, x.ndim)
    return np.take(x, _flat_index(x, index, ax), axis=ax)


@index_select.def_grad
def index_select_grad(x, index, dout, *, dim):
    ax = normalize_axis(dim, x.ndim)
    dx = np.zeros_like(x)
    np.add.at(np.moveaxis(dx, ax, 0), _flat_index(x, index, ax), np.moveaxis(dout, ax, 0))
    return dx, None


# -- where_index (paddle.nonzero): the coordinates of the true elements, [N, rank] int64 ------
where_index = register_op("where_index", inputs=["Condition"], outputs=["Out"],
                          differentiable=False)


@where_index.def_infer_shape
def where_index_shape(condition: Meta):
    return Meta((-1, len(condition.shape)), VarType.INT64)


@where_index.def_kernel
def where_index_kernel(condition):
    return np.argwhere(condition).astype(np.int64)
