"""Ops behind more of Paddle's math API: sign, floor, round, reciprocal, rsqrt, elu,
elementwise_floordiv / elementwise_mod, reduce_prod, reduce_any / reduce_all, isfinite_v2,
logsumexp and increment, with Paddle 2.6's slots and attributes."""
from __future__ import annotations

import numpy as np

from .common import reduce_axes
from .reduce import _REDUCE_ATTRS, _expand_back, _reduce_shape
from .registry import register_op
from .types import AttrType, Meta, VarType


reduce_prod = register_op("reduce_prod", inputs=["X"], outputs=["Out"], attrs=_REDUCE_ATTRS,
                          infer_shape=_reduce_shape)


@reduce_prod.def_kernel
def reduce_prod_kernel(x, *, dim, keep_dim, reduce_all):
    return np.asarray(np.prod(x, axis=reduce_axes(x.ndim, dim, reduce_all), keepdims=keep_dim))


@reduce_prod.def_grad
def reduce_prod_grad(x, out, dout, *, dim, keep_dim, reduce_all):
    back = _expand_back(out * dout, x.shape, dim, keep_dim, reduce_all)
    return back / x


def _bool_reduce_shape(x: Meta, **attrs):
    return Meta(_reduce_shape(x, **attrs).shape, VarType.BOOL)


for _op_type, _kernel in (("reduce_any", np.any), ("reduce_all", np.all)):
    register_op(_op_type, inputs=["X"], outputs=["Out"], attrs=_REDUCE_ATTRS,
                infer_shape=_bool_reduce_shape, differentiable=False).def_kernel(
        lambda x, *, dim, keep_dim, reduce_all, _fn=_kernel: np.asarray(
            _fn(x, axis=reduce_axes(x.ndim, dim, reduce_all), keepdims=keep_dim)))

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


# -- strided_slice (x[::2] on a static Variable) ---------------------------------------------------
strided_slice = register_op(
    "strided_slice", inputs=["Input", "StartsTensor?", "EndsTensor?", "StridesTensor?",
                             "StartsTensorList*?", "EndsTensorList*?", "StridesTensorList*?"],
    outputs=["Out"],
    attrs={"axes": (AttrType.INTS, []), "starts": (AttrType.INTS, []),
           "ends": (AttrType.INTS, []), "strides": (AttrType.INTS, []),
           "infer_flags": (AttrType.INTS, []), "decrease_axis": (AttrType.INTS, [])},
    no_grad=["StartsTensor", "EndsTensor", "StridesTensor", "StartsTensorList",
             "EndsTensorList", "StridesTensorList"])


def _strided_index(ndim: int, axes, starts, ends, strides) -> tuple:
    index = [slice(None)] * ndim
    for axis, start, end, step in zip(axes, starts, ends, strides):
        index[axis] = slice(start, end, step)
    return tuple(index)


def _no_tensor_bounds(tensors) -> None:
    if any(t is not None and (not isinstance(t, list) or t) for t in tensors):
        raise NotImplementedError("strided_slice: bounds given as tensors are not supported by "
                                  "pyfluid; give starts/ends/strides as Python ints")


@strided_slice.def_infer_shape
def strided_slice_shape(x: Meta, *tensors, axes, starts, ends, strides, infer_flags,
                        decrease_axis):
    probe = np.empty([max(d, 0) for d in x.shape], dtype=np.int8)
    shape = list(probe[_strided_index(len(x.shape), axes, starts, ends, strides)].shape)
    shape = [-1 if x.shape[i] < 0 else d for i, d in enumerate(shape)]
    return Meta(tuple(d for i, d in enumerate(shape) if i not in set(decrease_axis)), x.dtype)


@strided_slice.def_kernel
def strided_slice_kernel(x, *tensors, axes, starts, ends, strides, decrease_axis):
    _no_tensor_bounds(tensors)
    out = x[_strided_index(x.ndim, axes, starts, ends, strides)]
    keep = [d for i, d in enumerate(out.shape) if i not in set(decrease_axis)]
    return np.array(out.reshape(keep))


@strided_slice.def_grad
def strided_slice_grad(input, startstensor, endstensor, stridestensor, startstensorlist,
                       endstensorlist, stridestensorlist, dout, *, axes, starts, ends, strides):
    index = _strided_index(input.ndim, axes, starts, ends, strides)
    dx = np.zeros_like(input)
    dx[index] = dout.reshape(dx[index].shape)
    return dx, None, None, None, None, None, None
