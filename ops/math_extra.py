"""Ops behind more of Paddle's math API: sign, floor, round, reciprocal, rsqrt, elu,
elementwise_floordiv / elementwise_mod, reduce_prod, reduce_any / reduce_all, isfinite_v2,
logsumexp and increment, with Paddle 2.6's slots and attributes."""
from __future__ import annotations

import numpy as np

from .registry import register_op
from .types import AttrType, Meta

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
