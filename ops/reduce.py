"""Reductions: reduce_sum, reduce_mean and mean."""
from __future__ import annotations

import math

import numpy as np

from .common import reduce_axes, reduced_shape
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


@reduce_sum.def_grad(shape_only=("x",))
def reduce_sum_grad(x, dout, *, dim, keep_dim, reduce_all):
    return np.array(_expand_back(dout, x.shape, dim, keep_dim, reduce_all))


reduce_mean = register_op("reduce_mean", inputs=["X"], outputs=["Out"], attrs=_REDUCE_ATTRS,
                          infer_shape=_reduce_shape)


@reduce_mean.def_kernel
def reduce_mean_kernel(x, *, dim, keep_dim, reduce_all, out_dtype):
    dtype = x.dtype if out_dtype == -1 else to_numpy_dtype(out_dtype)
    out = x.mean(axis=reduce_axes(x.ndim, dim, reduce_all), keepdims=keep_dim)
    return np.asarray(out, dtype=dtype)


@reduce_mean.def_grad(exact=True, shape_only=("x",))
def reduce_mean_grad(x, dout, *, dim, keep_dim, reduce_all):
    if dout.size == 1:                      # a mean over everything (the usual loss)
        return np.full(x.shape, dout.reshape(()) / x.dtype.type(max(x.size, 1)), x.dtype)
    count = x.size // max(math.prod(dout.shape), 1) if x.size else 1
    return _expand_back(dout, x.shape, dim, keep_dim, reduce_all) / x.dtype.type(count)


mean = register_op("mean", inputs=["X"], outputs=["Out"],
                   infer_shape=lambda x: Meta((), x.dtype))


@mean.def_kernel
def mean_kernel(x):
    return np.asarray(x.mean(), dtype=x.dtype)


@mean.def_grad(shape_only=("x",))
def mean_grad(x, dout):
    return np.full(x.shape, dout.reshape(()) / x.dtype.type(max(x.size, 1)), dtype=x.dtype)
