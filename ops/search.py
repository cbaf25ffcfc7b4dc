"""Search ops: argsort, arg_max / arg_min, top_k / top_k_v2 and where."""
from __future__ import annotations

import numpy as np

from .common import broadcast_shape, normalize_axis
from .registry import register_op
from .types import AttrType, Meta, VarType, to_numpy_dtype


# -- argsort ---------------------------------------------------------------------------------------
argsort = register_op("argsort", inputs=["X"], outputs=["Out", "Indices"],
                      attrs={"axis": -1, "descending": False},
                      infer_shape=lambda x, **_: (x, Meta(x.shape, VarType.INT64)))


@argsort.def_kernel
def argsort_kernel(x, *, axis, descending):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    ax = normalize_axis(axis, x.ndim)
    order = np.argsort(-x if descending else x, axis=ax, kind="stable")
    return np.take_along_axis(x, order, axis=ax), order.astype(np.int64)


@argsort.def_grad
def argsort_grad(x, indices, dout, *, axis):
    if x.ndim == 0:
        return dout.copy()
    dx = np.zeros_like(x)
    np.put_along_axis(dx, indices, dout, axis=normalize_axis(axis, x.ndim))
    return dx


# -- arg_max (paddle.argmax) ---------------------------------------------------------------------
arg_max = register_op("arg_max", inputs=["X"], outputs=["Out"], differentiable=False,
                      attrs={"axis": (AttrType.LONG, 0), "keepdims": False, "flatten": False,
                             "dtype": 3})


@arg_max.def_infer_shape
def arg_max_shape(x: Meta, *, axis, keepdims, flatten, dtype):
    out_dtype = VarType(dtype) if dtype != -1 else VarType.INT64
    if flatten:
        return Meta((1,) * len(x.shape) if keepdims else (), out_dtype)
    if not x.shape:
        return Meta((), out_dtype)
    ax = normalize_axis(axis, len(x.shape))
    shape = tuple(1 if i == ax else d for i, d in enumerate(x.shape)) if keepdims else \
        tuple(d for i, d in enumerate(x.shape) if i != ax)
    return Meta(shape, out_dtype)


def arg_reduce_kernel(np_fn):
    """The kernel of arg_max / arg_min (Paddle's attrs: axis, keepdims, flatten, dtype)."""
    def kernel(x, *, axis, keepdims, flatten, dtype):
        np_dtype = to_numpy_dtype(dtype if dtype != -1 else VarType.INT64)
        if flatten or x.ndim == 0:
            out = np.asarray(np_fn(x))
            return out.reshape((1,) * x.ndim if keepdims else ()).astype(np_dtype)
        return np_fn(x, axis=normalize_axis(axis, x.ndim), keepdims=keepdims).astype(np_dtype)
    kernel.__name__ = f"{np_fn.__name__}_kernel"
    return kernel


arg_max.def_kernel(arg_reduce_kernel(np.argmax))


# -- arg_min (paddle.argmin): arg_max's attributes and shape rule ----------------------------------
arg_min = register_op("arg_min", inputs=["X"], outputs=["Out"], differentiable=False,
                      attrs={"axis": (AttrType.LONG, 0), "keepdims": False, "flatten": False,
                             "dtype": 3}, infer_shape=arg_max_shape)


arg_min.def_kernel(arg_reduce_kernel(np.argmin))


# -- top_k / top_k_v2 ----------------------------------------------------------------------------
def _top_k(x, k, axis, largest):
    size = x.shape[axis] if x.ndim else 1
    if not 0 < k <= size:
        raise ValueError(f"top_k: k={k} must be in [1, {size}], the size of axis {axis} of X "
                         f"(shape {list(x.shape)})")
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    indices = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, indices, axis=axis), indices.astype(np.int64)


def _top_k_shape(x: Meta, k_tensor=None, *, k, axis=-1, **_):
    if not x.shape:
        return x, Meta((), VarType.INT64)
    ax = normalize_axis(axis, len(x.shape))
    shape = tuple(-1 if k_tensor is not None else k if i == ax else d
                  for i, d in enumerate(x.shape))
    return Meta(shape, x.dtype), Meta(shape, VarType.INT64)


def _scatter_back(x, indices, dout, axis):
    dx = np.zeros_like(x)
    if x.ndim == 0:
        return dout.astype(x.dtype)
    np.put_along_axis(dx, indices, dout, axis=axis)
    return dx


top_k = register_op("top_k", inputs=["X", "K?"], outputs=["Out", "Indices"], attrs={"k": 1},
                    no_grad=["K"], infer_shape=_top_k_shape)


@top_k.def_kernel
def top_k_kernel(x, k_tensor=None, *, k):
    k = int(k_tensor.reshape(())) if k_tensor is not None else k
    return _top_k(x, k, x.ndim - 1, True)


@top_k.def_grad
def top_k_grad(x, indices, dout):
    return _scatter_back(x, indices, dout, x.ndim - 1), None


top_k_v2 = register_op("top_k_v2", inputs=["X", "K?"], outputs=["Out", "Indices"],
                       attrs={"k": 1, "axis": -1, "largest": True, "sorted": True},
                       no_grad=["K"], infer_shape=_top_k_shape)


@top_k_v2.def_kernel
def top_k_v2_kernel(x, k_tensor=None, *, k, axis, largest):
    k = int(k_tensor.reshape(())) if k_tensor is not None else k
    return _top_k(x, k, normalize_axis(axis, x.ndim), largest)


@top_k_v2.def_grad
def top_k_v2_grad(x, indices, dout, *, axis):
    return _scatter_back(x, indices, dout, normalize_axis(axis, x.ndim)), None


# -- where ---------------------------------------------------------------------------------------
where = register_op("where", inputs=["Condition", "X", "Y"], outputs=["Out"],
                    no_grad=["Condition"])


@where.def_infer_shape
def where_shape(condition: Meta, x: Meta, y: Meta):
    if x.dtype != y.dtype:
        raise TypeError(f"where: X is {x.dtype.name_str} but Y is {y.dtype.name_str}; cast one "
                        "of them so that both have the same dtype")
    return Meta(broadcast_shape(broadcast_shape(condition.shape, x.shape), y.shape), x.dtype)


@where.def_kernel
def where_kernel(condition, x, y):
    return np.where(condition, x, y)


@where.def_grad
def where_grad(condition, x, y, dout):
    zero = dout.dtype.type(0)
    return None, np.where(condition, dout, zero), np.where(condition, zero, dout)


# -- unique_consecutive: runs of equal elements (or slices along ``axis``) collapsed ----------
unique_consecutive = register_op(
    "unique_consecutive", inputs=["X"], outputs=["Out", "Index?", "Counts?"],
    attrs={"return_inverse": False, "return_counts": False, "axis": (AttrType.INTS, []),
           "dtype": int(VarType.FP32)}, differentiable=False)    # Paddle's default; the API
                                                                  # always passes int64


@unique_consecutive.def_infer_shape
def unique_consecutive_shape(x: Meta, *, axis, dtype, **_):
    if not axis:
        return Meta((-1,), x.dtype), Meta((-1,), VarType(dtype)), Meta((-1,), VarType(dtype))
    ax = normalize_axis(axis[0], len(x.shape))
    out = tuple(-1 if i == ax else d for i, d in enumerate(x.shape))
    return (Meta(out, x.dtype), Meta((-1,), VarType(dtype)),
            Meta((-1,), VarType(dtype)))


@unique_consecutive.def_kernel
def unique_consecutive_kernel(x, *, return_inverse, return_counts, axis, dtype):
    ax = normalize_axis(axis[0], x.ndim) if axis else 0
    rows = np.moveaxis(x, ax, 0) if axis else x.reshape(-1)
    n = len(rows)
    if n:
        flat = rows.reshape(n, -1)
        starts = np.concatenate([[True], np.any(flat[1:] != flat[:-1], axis=1)])
    else:
        starts = np.zeros(0, dtype=bool)
    first = np.flatnonzero(starts)
    out = rows[first]
    out = np.moveaxis(out, 0, ax) if axis else out
    index_dtype = to_numpy_dtype(dtype)
    inverse = (np.cumsum(starts) - 1).astype(index_dtype)
    counts = np.diff(np.append(first, n)).astype(index_dtype)
    return out, inverse, counts
