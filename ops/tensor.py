"""Tensor manipulation ops: cast, reshape2, transpose2 and concat."""
from __future__ import annotations

import numpy as np

from .common import normalize_axis
from .registry import register_op
from .types import AttrType, Meta, VarType, to_numpy_dtype


cast = register_op("cast", inputs=["X"], outputs=["Out"], attrs={"in_dtype": 5, "out_dtype": 5},
                   infer_shape=lambda x, *, out_dtype, **_: Meta(x.shape, VarType(out_dtype)))


@cast.def_kernel
def cast_kernel(x, *, out_dtype):
    return x.astype(to_numpy_dtype(out_dtype))


@cast.def_grad
def cast_grad(x, dout):
    return dout.astype(x.dtype)


# -- shape manipulation ----------------------------------------------------------------------------
def _reshape_target(in_shape, shape):
    out = [in_shape[i] if d == 0 else d for i, d in enumerate(shape)]
    if out.count(-1) > 1:
        raise ValueError(f"shape {list(shape)} has more than one -1")
    known = [d for d in in_shape]
    if -1 in out and -1 not in known:
        rest = int(np.prod([d for d in out if d != -1]))
        total = int(np.prod(known))
        if rest == 0 or total % rest:
            raise ValueError(f"cannot reshape {list(in_shape)} to {list(shape)}")
        out[out.index(-1)] = total // rest
    elif -1 not in out and -1 not in known and int(np.prod(out)) != int(np.prod(known)):
        raise ValueError(f"cannot reshape {list(in_shape)} ({int(np.prod(known))} elements) "
                         f"to {list(shape)} ({int(np.prod(out))} elements)")
    return tuple(out)


reshape2 = register_op("reshape2", inputs=["X", "Shape?", "ShapeTensor*?"],
                       outputs=["Out", "XShape?"], attrs={"shape": (AttrType.INTS, [])},
                       no_grad=["Shape", "ShapeTensor"], views_input=True)


@reshape2.def_infer_shape
def reshape2_shape(x, shape_in=None, shape_list=None, *, shape):
    return Meta(_reshape_target(x.shape, shape), x.dtype), Meta((0,) + tuple(x.shape), x.dtype)


@reshape2.def_kernel
def reshape2_kernel(x, shape_in=None, shape_list=None, *, shape):
    if shape_in is not None:
        shape = [int(d) for d in shape_in.ravel()]
    elif shape_list:
        shape = [int(t.reshape(())) for t in shape_list]
    target = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return x.reshape(target), np.empty((0,) + x.shape, dtype=x.dtype)


@reshape2.def_grad
def reshape2_grad(xshape, dout):
    return dout.reshape(xshape.shape[1:]), None, None


transpose2 = register_op("transpose2", inputs=["X"], outputs=["Out", "XShape"],
                         extra_outputs=["XShape"], attrs={"axis": (AttrType.INTS, [])},
                         extra_attrs={"data_format": "AnyLayout"}, views_input=True)


@transpose2.def_infer_shape
def transpose2_shape(x, *, axis, **_):
    if sorted(normalize_axis(a, len(x.shape)) for a in axis) != list(range(len(x.shape))):
        raise ValueError(f"axis {list(axis)} is not a permutation of the {len(x.shape)} dims")
    return Meta(tuple(x.shape[a] for a in axis), x.dtype), Meta((0,) + tuple(x.shape), x.dtype)


@transpose2.def_kernel
def transpose2_kernel(x, *, axis):
    return x.transpose(axis), np.empty((0,) + x.shape, dtype=x.dtype)


@transpose2.def_grad
def transpose2_grad(dout, *, axis):
    return dout.transpose(np.argsort([normalize_axis(a, dout.ndim) for a in axis]))


concat = register_op("concat", inputs=["X*", "AxisTensor?"], outputs=["Out"], attrs={"axis": 0},
                     no_grad=["AxisTensor"])


@concat.def_infer_shape
def concat_shape(xs, axis_tensor=None, *, axis):
    first = xs[0].shape
    ax = normalize_axis(axis, len(first))
    total = 0
    for m in xs:
        if len(m.shape) != len(first):
            raise ValueError(f"all inputs must have the same rank; got {[list(m.shape) for m in xs]}")
        total = -1 if total == -1 or m.shape[ax] == -1 else total + m.shape[ax]
    return Meta(first[:ax] + (total,) + first[ax + 1:], xs[0].dtype)


@concat.def_kernel
def concat_kernel(xs, axis_tensor=None, *, axis):
    if axis_tensor is not None:
        axis = int(axis_tensor.reshape(()))
    return np.concatenate(xs, axis=normalize_axis(axis, xs[0].ndim))


@concat.def_grad
def concat_grad(x, axistensor, dout, *, axis):
    if axistensor is not None:
        axis = int(axistensor.reshape(()))
    ax = normalize_axis(axis, dout.ndim)
    cuts = np.cumsum([t.shape[ax] for t in x])[:-1]
    return list(np.split(dout, cuts, axis=ax)), None
