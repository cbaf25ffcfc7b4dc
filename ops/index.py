"""Index ops: gather, gather_nd, index_select, take_along_axis, where_index and one_hot_v2."""
from __future__ import annotations

import numpy as np

from .common import normalize_axis
from .registry import OpDef, grad_name, register, register_op
from .types import Meta, VarType, to_numpy_dtype

# -- gather: the axis is the attr, or the dispensable Axis tensor (paddle.gather(x, i, axis=t)) --
gather = register_op("gather", inputs=["X", "Index", "Axis?"], outputs=["Out"],
                     attrs={"axis": 0}, no_grad=["Index", "Axis"],
                     extra_attrs={"overwrite": True})  # older Paddle saved it; 2.6 drops it


@gather.def_infer_shape
def gather_shape(x: Meta, index: Meta, axis_tensor: Meta | None = None, *, axis, **_):
    if len(index.shape) > 1 and not (len(index.shape) == 2 and index.shape[1] == 1):
        raise ValueError(f"gather: Index must be 1-D (or [N, 1]), received shape "
                         f"{list(index.shape)}")
    def taken(ax: int) -> tuple:
        return tuple(x.shape[:ax]) + tuple(index.shape[:1]) + tuple(x.shape[ax + 1:])

    if axis_tensor is None:
        return Meta(taken(normalize_axis(axis, len(x.shape))), x.dtype)
    # the axis is known only at run time: keep the dims every axis would give alike
    shapes = [taken(ax) for ax in range(len(x.shape))]
    return Meta(tuple(d if all(s[i] == d for s in shapes) else -1
                      for i, d in enumerate(shapes[0])), x.dtype)


def _gather_axis(x, axis_tensor, axis: int) -> int:
    return normalize_axis(int(np.ravel(axis_tensor)[0]) if axis_tensor is not None else axis,
                          x.ndim)


def _flat_index(x, index, ax: int):
    flat = index.reshape(-1) if index.ndim else index
    if flat.size and (flat.min() < -x.shape[ax] or flat.max() >= x.shape[ax]):
        raise ValueError(f"gather: index values must be in [{-x.shape[ax]}, {x.shape[ax]}) for "
                         f"axis {ax} of X {list(x.shape)}, received min {flat.min()}, max "
                         f"{flat.max()}")
    return flat


@gather.def_kernel
def gather_kernel(x, index, axis_tensor=None, *, axis):
    ax = _gather_axis(x, axis_tensor, axis)
    return np.take(x, _flat_index(x, index, ax), axis=ax)


def _scatter_add(like, flat, rows, ax: int):
    """The gradient of taking ``flat`` along ``ax``: ``rows`` summed into zeros like ``like``."""
    dx = np.zeros_like(like)
    np.add.at(np.moveaxis(dx, ax, 0), flat.reshape(-1), np.moveaxis(rows, ax, 0))
    return dx


# The Axis slot and the axis attr share a name, which a def_grad rule cannot tell apart: the grad
# op is declared (as Paddle's gather_grad) and made by a grad maker.
gather_grad = register(OpDef("gather_grad", inputs=["X", "Index", "Axis?", "Out@GRAD"],
                             outputs=["X@GRAD?"], attrs={"axis": 0},
                             differentiable=False))
gather_grad.forward = gather


@gather_grad.def_kernel
def gather_grad_kernel(x, index, axis_tensor, dout, *, axis):
    ax = _gather_axis(x, axis_tensor, axis)
    flat = _flat_index(x, index, ax)
    return _scatter_add(x, flat, dout if flat.ndim else np.expand_dims(dout, ax), ax)


@gather.def_grad_maker
def gather_grad_maker(op, no_grad_names: set) -> list[dict]:
    (x,) = op.input("X")
    if grad_name(x) in no_grad_names:
        return []
    inputs = {"X": op.input("X"), "Index": op.input("Index"),
              "Out@GRAD": [grad_name(n) for n in op.output("Out")]}
    if op.input("Axis"):
        inputs["Axis"] = op.input("Axis")
    return [{"type": "gather_grad", "inputs": inputs, "outputs": {"X@GRAD": [grad_name(x)]},
             "attrs": {k: v for k, v in op.attrs.items() if k in gather.attrs}}]


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


# -- index_select: rows of X along dim picked by a 1-D Index (no negative indices, as Paddle) -----
index_select = register_op("index_select", inputs=["X", "Index"], outputs=["Out"],
                           attrs={"dim": 0}, no_grad=["Index"])


@index_select.def_infer_shape
def index_select_shape(x: Meta, index: Meta, *, dim):
    if not (len(index.shape) == 1 or (len(index.shape) == 2 and index.shape[1] == 1)):
        raise ValueError(f"index_select: Index must be 1-D (or [N, 1]), received shape "
                         f"{list(index.shape)}")
    ax = normalize_axis(dim, len(x.shape))
    return Meta(tuple(x.shape[:ax]) + (index.shape[0],) + tuple(x.shape[ax + 1:]), x.dtype)


def _select_index(x, index, dim: int):
    flat = index.reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= x.shape[dim]):
        bad = flat.min() if flat.min() < 0 else flat.max()
        raise ValueError(f"index_select: Index values must be >= 0 and < {x.shape[dim]} (dim "
                         f"{dim} of X {list(x.shape)}), but got {bad}")
    return flat


@index_select.def_kernel
def index_select_kernel(x, index, *, dim):
    ax = normalize_axis(dim, x.ndim)
    return np.take(x, _select_index(x, index, ax), axis=ax)


@index_select.def_grad
def index_select_grad(x, index, dout, *, dim):
    ax = normalize_axis(dim, x.ndim)
    return _scatter_add(x, _select_index(x, index, ax), dout, ax), None


# -- take_along_axis: Result[..., i, ...] = Input[..., Index[..., i, ...], ...] along Axis ------
take_along_axis = register_op("take_along_axis", inputs=["Input", "Index"], outputs=["Result"],
                              attrs={"Axis": 0}, no_grad=["Index"])


@take_along_axis.def_infer_shape
def take_along_axis_shape(x: Meta, index: Meta, *, Axis):  # noqa: N803  (Paddle's attr name)
    if len(index.shape) != len(x.shape):
        raise ValueError(f"take_along_axis: Index must have as many dims as Input ("
                         f"{len(x.shape)}), received Index shape {list(index.shape)}")
    normalize_axis(Axis, len(x.shape))
    return Meta(tuple(index.shape), x.dtype)


def _along_index(x, index, ax: int):
    n = x.shape[ax]
    if index.size and (index.min() < -n or index.max() >= n):
        bad = index.min() if index.min() < -n else index.max()
        raise ValueError(f"take_along_axis: Index values must be in [{-n}, {n}) for axis {ax} "
                         f"of Input {list(x.shape)}, but got {bad}")
    idx = np.where(index < 0, index + n, index)
    # Paddle walks Index's own shape: the other dims of Index may be shorter than Input's
    grid = list(np.indices(idx.shape, sparse=True))
    grid[ax] = idx
    return tuple(grid)


@take_along_axis.def_kernel
def take_along_axis_kernel(x, index, *, Axis):  # noqa: N803
    return x[_along_index(x, index, normalize_axis(Axis, x.ndim))]


@take_along_axis.def_grad
def take_along_axis_grad(input, index, dresult, *, Axis):  # noqa: A002, N803
    dx = np.zeros_like(input)
    np.add.at(dx, _along_index(input, index, normalize_axis(Axis, input.ndim)), dresult)
    return dx, None


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


# -- where_index (paddle.nonzero): the coordinates of the true elements, [N, rank] int64 ------
where_index = register_op("where_index", inputs=["Condition"], outputs=["Out"],
                          differentiable=False)


@where_index.def_infer_shape
def where_index_shape(condition: Meta):
    return Meta((-1, len(condition.shape)), VarType.INT64)


@where_index.def_kernel
def where_index_kernel(condition):
    return np.argwhere(condition).astype(np.int64)
