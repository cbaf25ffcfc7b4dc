"""Reductions: reduce_sum, reduce_mean, mean, reduce_prod, reduce_max / reduce_min,
reduce_any / reduce_all and logsumexp."""
from __future__ import annotations

import math

import numpy as np

from .common import reduce_axes, reduced_shape, runtime_ints
from .registry import register_op
from .types import AttrType, Meta, VarType, to_numpy_dtype

_REDUCE_ATTRS = {"dim": (AttrType.INTS, [0]), "keep_dim": False, "reduce_all": False,
                 "in_dtype": -1, "out_dtype": -1}


def _reduce_shape(x: Meta, *, dim, keep_dim, reduce_all, out_dtype=-1, **_):
    return Meta(reduced_shape(x.shape, reduce_axes(len(x.shape), dim, reduce_all), keep_dim),
                x.dtype if out_dtype == -1 else VarType(out_dtype))


def _expand_back(dout, x_shape, dim, keep_dim, reduce_all):
    axes = reduce_axes(len(x_shape), dim, reduce_all)
    if not keep_dim:
        kept = reduced_shape(x_shape, axes, keep_dim=True)
        dout = dout.reshape(kept)
    return np.broadcast_to(dout, x_shape)


reduce_sum = register_op("reduce_sum", inputs=["X"], outputs=["Out"], attrs=_REDUCE_ATTRS,
                         infer_shape=_reduce_shape)


@reduce_sum.def_kernel
def reduce_sum_kernel(x, *, dim, keep_dim, reduce_all, out_dtype):
    dtype = x.dtype if out_dtype == -1 else to_numpy_dtype(out_dtype)
    out = x.sum(axis=reduce_axes(x.ndim, dim, reduce_all), keepdims=keep_dim, dtype=dtype)
    return np.asarray(out, dtype=dtype)


@reduce_sum.def_grad(shape_only=("x",), never_raises=True)
def reduce_sum_grad(x, dout, *, dim, keep_dim, reduce_all):
    return np.array(_expand_back(dout, x.shape, dim, keep_dim, reduce_all))


reduce_mean = register_op("reduce_mean", inputs=["X"], outputs=["Out"], attrs=_REDUCE_ATTRS,
                          infer_shape=_reduce_shape)


@reduce_mean.def_kernel
def reduce_mean_kernel(x, *, dim, keep_dim, reduce_all, out_dtype):
    dtype = x.dtype if out_dtype == -1 else to_numpy_dtype(out_dtype)
    axes = reduce_axes(x.ndim, dim, reduce_all)
    if axes is None and not keep_dim:
        return mean_of_all(x, dtype)
    out = x.mean(axis=axes, keepdims=keep_dim)
    return np.asarray(out, dtype=dtype)


@reduce_mean.def_specialize
def reduce_mean_fast(*, dim, keep_dim, reduce_all, in_dtype, out_dtype):
    """A mean over everything into a 0-D value of x's dtype (a loss)."""
    return mean_of_all if not keep_dim and out_dtype == -1 and (reduce_all or not dim) else None


def mean_of_all(x, dtype=None):
    """``np.asarray(x.mean(), dtype)``; for float32/64 without NumPy's Python wrapper (the
    same pairwise sum, then the same division)."""
    dtype = x.dtype if dtype is None else dtype
    if x.dtype.kind == "f" and x.dtype.itemsize >= 4 and x.size and type(x) is np.ndarray:
        total = np.add.reduce(x, axis=None)
        return np.asarray(total.dtype.type(total / x.size), dtype=dtype)
    return np.asarray(x.mean(), dtype=dtype)


@reduce_mean.def_grad(exact=True, shape_only=("x",), never_raises=True)
def reduce_mean_grad(x, dout, *, dim, keep_dim, reduce_all):
    if dout.size == 1:                      # a mean over everything (the usual loss)
        grad = np.empty(x.shape, x.dtype)   # np.full's two steps without its wrapper
        grad.fill(dout.reshape(()) / x.dtype.type(max(x.size, 1)))
        return grad
    count = x.size // max(math.prod(dout.shape), 1) if x.size else 1
    return _expand_back(dout, x.shape, dim, keep_dim, reduce_all) / x.dtype.type(count)


mean = register_op("mean", inputs=["X"], outputs=["Out"],
                   infer_shape=lambda x: Meta((), x.dtype))


@mean.def_kernel
def mean_kernel(x):
    return np.asarray(x.mean(), dtype=x.dtype)


@mean.def_grad(shape_only=("x",), never_raises=True)
def mean_grad(x, dout):
    return np.full(x.shape, dout.reshape(()) / x.dtype.type(max(x.size, 1)), dtype=x.dtype)


# -- reduce_prod -------------------------------------------------------------------------------
reduce_prod = register_op("reduce_prod", inputs=["X"], outputs=["Out"], attrs=_REDUCE_ATTRS,
                          infer_shape=_reduce_shape)


@reduce_prod.def_kernel
def reduce_prod_kernel(x, *, dim, keep_dim, reduce_all):
    return np.asarray(np.prod(x, axis=reduce_axes(x.ndim, dim, reduce_all), keepdims=keep_dim))


@reduce_prod.def_grad
def reduce_prod_grad(x, out, dout, *, dim, keep_dim, reduce_all):
    back = _expand_back(out * dout, x.shape, dim, keep_dim, reduce_all)
    return back / x


# -- reduce_max / reduce_min (paddle.max / paddle.min) -----------------------------------------
def _reduce_extreme(op_type: str, fn):
    op = register_op(op_type, inputs=["X"], outputs=["Out"], attrs=_REDUCE_ATTRS,
                     infer_shape=_reduce_shape)

    @op.def_kernel
    def kernel(x, *, dim, keep_dim, reduce_all):
        return np.asarray(fn(x, axis=reduce_axes(x.ndim, dim, reduce_all), keepdims=keep_dim))

    @op.def_grad
    def grad(x, out, dout, *, dim, keep_dim, reduce_all):
        """Paddle's rule: every element equal to the extreme gets the whole gradient."""
        hits = x == _expand_back(out, x.shape, dim, keep_dim, reduce_all)
        return _expand_back(dout, x.shape, dim, keep_dim, reduce_all) * hits
    return op


_reduce_extreme("reduce_max", np.max)
_reduce_extreme("reduce_min", np.min)


# -- reduce_any / reduce_all ---------------------------------------------------------------------
def _bool_reduce_shape(x: Meta, **attrs):
    return Meta(_reduce_shape(x, **attrs).shape, VarType.BOOL)


def _bool_reduce_op(op_type: str, fn):
    """Paddle declares these with int64 dims, given as attr or as AxisTensor(List) inputs."""
    op = register_op(op_type, inputs=["X", "AxisTensor?", "AxisTensorList*?"], outputs=["Out"],
                     attrs={**_REDUCE_ATTRS, "dim": (AttrType.LONGS, [0])},
                     differentiable=False)

    @op.def_infer_shape
    def shape(x: Meta, axis_tensor=None, axis_list=None, **attrs):
        if axis_tensor is not None or axis_list:     # the dims are known at run time only
            count = len(axis_list) if axis_list else max(axis_tensor.shape[0], 1)
            kept = len(x.shape) if attrs["keep_dim"] else max(len(x.shape) - count, 0)
            return Meta((-1,) * (0 if attrs["reduce_all"] else kept), VarType.BOOL)
        return _bool_reduce_shape(x, **attrs)

    @op.def_kernel
    def kernel(x, axis_tensor=None, axis_list=None, *, dim, keep_dim, reduce_all):
        dims = runtime_ints(axis_tensor, axis_list, dim)
        return np.asarray(fn(x, axis=reduce_axes(x.ndim, dims, reduce_all), keepdims=keep_dim))


_bool_reduce_op("reduce_any", np.any)
_bool_reduce_op("reduce_all", np.all)


# -- logsumexp ----------------------------------------------------------------------------------
logsumexp = register_op("logsumexp", inputs=["X"], outputs=["Out"],
                        attrs={"axis": (AttrType.INTS, [0]), "keepdim": False,
                               "reduce_all": False})


@logsumexp.def_infer_shape
def logsumexp_shape(x: Meta, *, axis, keepdim, reduce_all):
    return _reduce_shape(x, dim=axis, keep_dim=keepdim, reduce_all=reduce_all)


@logsumexp.def_kernel
def logsumexp_kernel(x, *, axis, keepdim, reduce_all):
    axes = reduce_axes(x.ndim, axis, reduce_all)
    top = np.max(x, axis=axes, keepdims=True)
    out = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    return out if keepdim else np.squeeze(out, axis=axes)


@logsumexp.def_grad
def logsumexp_grad(x, out, dout, *, axis, keepdim, reduce_all):
    expand = lambda v: _expand_back(v, x.shape, axis, keepdim, reduce_all)  # noqa: E731
    return expand(dout) * np.exp(x - expand(out))
