"""Arithmetic ops: scale, mul, matmul_v2, elementwise_* and comparisons."""
from __future__ import annotations

import math

import numpy as np

from .common import broadcast_pair, elementwise_shape, fits_into_x
from .registry import register_op, unbroadcast
from .types import Meta, VarType

# -- scale --------------------------------------------------------------------------------------
scale = register_op("scale", inputs=["X", "ScaleTensor?"], outputs=["Out"],
                    attrs={"scale": 1.0, "bias": 0.0, "bias_after_scale": True},
                    no_grad=["ScaleTensor"],
                    infer_shape=lambda x, scale_tensor=None, **_: x)


@scale.def_kernel
def scale_kernel(x, scale_tensor=None, *, scale, bias, bias_after_scale):
    s = x.dtype.type(scale_tensor.reshape(()) if scale_tensor is not None else scale)
    if bias_after_scale:
        return x * s + x.dtype.type(bias) if bias else x * s
    return (x + x.dtype.type(bias)) * s


@scale.def_grad
def scale_grad(scaletensor, dout, *, scale):
    s = scaletensor.reshape(()) if scaletensor is not None else scale
    return dout * dout.dtype.type(s), None


# -- mul: flatten to 2-D, then matmul ---------------------------------------------------------------
mul = register_op("mul", inputs=["X", "Y"], outputs=["Out"],
                  attrs={"x_num_col_dims": 1, "y_num_col_dims": 1}, fresh_outputs=True)


def _flat2(shape, k):
    rows = int(np.prod(shape[:k])) if -1 not in shape[:k] else -1
    cols = int(np.prod(shape[k:])) if -1 not in shape[k:] else -1
    return rows, cols


@mul.def_infer_shape
def mul_shape(x: Meta, y: Meta, *, x_num_col_dims, y_num_col_dims):
    xr, xc = _flat2(x.shape, x_num_col_dims)
    yr, yc = _flat2(y.shape, y_num_col_dims)
    if -1 not in (xc, yr) and xc != yr:
        raise ValueError(f"X flattens to [{xr}, {xc}] and Y to [{yr}, {yc}]: X's width {xc} "
                         f"must equal Y's height {yr}")
    return Meta(tuple(x.shape[:x_num_col_dims]) + tuple(y.shape[y_num_col_dims:]), x.dtype)


@mul.def_kernel
def mul_kernel(x, y, *, x_num_col_dims, y_num_col_dims):
    if x.ndim == 2 and y.ndim == 2:
        return x @ y
    x2 = x.reshape(math.prod(x.shape[:x_num_col_dims]), -1)
    y2 = y.reshape(math.prod(y.shape[:y_num_col_dims]), -1)
    return (x2 @ y2).reshape(x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:])


@mul.def_grad(exact=True)
def mul_grad(x, y, dout, *, x_num_col_dims, y_num_col_dims, wanted=(True, True)):
    if x.ndim == 2 and y.ndim == 2:
        x2, y2, d2 = x, y, dout
    else:
        x2 = x.reshape(math.prod(x.shape[:x_num_col_dims]), -1)
        y2 = y.reshape(math.prod(y.shape[:y_num_col_dims]), -1)
        d2 = dout.reshape(x2.shape[0], y2.shape[1])
    dx = (d2 @ y2.T).reshape(x.shape) if wanted[0] else None
    dy = (x2.T @ d2).reshape(y.shape) if wanted[1] else None
    return dx, dy


# -- matmul_v2 --------------------------------------------------------------------------------------
matmul_v2 = register_op("matmul_v2", inputs=["X", "Y"], outputs=["Out"],
                        attrs={"trans_x": False, "trans_y": False}, fresh_outputs=True)


@matmul_v2.def_infer_shape
def matmul_v2_shape(x: Meta, y: Meta, *, trans_x, trans_y):
    from .common import broadcast_shape
    xs, ys = list(x.shape), list(y.shape)
    if not xs or not ys:
        raise ValueError("matmul_v2 needs X and Y of rank >= 1")
    x_vec, y_vec = len(xs) == 1, len(ys) == 1
    if x_vec:
        xs = [1] + xs
    elif trans_x:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if y_vec:
        ys = ys + [1]
    elif trans_y:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    if -1 not in (xs[-1], ys[-2]) and xs[-1] != ys[-2]:
        raise ValueError(f"X's last dim {xs[-1]} must equal Y's second-to-last dim {ys[-2]} "
                         f"(X {list(x.shape)}, Y {list(y.shape)}, trans_x={trans_x}, trans_y={trans_y})")
    batch = broadcast_shape(tuple(xs[:-2]), tuple(ys[:-2]))
    out = list(batch) + ([] if x_vec else [xs[-2]]) + ([] if y_vec else [ys[-1]])
    return Meta(tuple(out), x.dtype)


def _t(a):
    return a.swapaxes(-1, -2) if a.ndim >= 2 else a


@matmul_v2.def_kernel
def matmul_v2_kernel(x, y, *, trans_x, trans_y):
    return np.matmul(_t(x) if trans_x else x, _t(y) if trans_y else y)


@matmul_v2.def_specialize
def matmul_v2_fast(*, trans_x, trans_y):
    return np.matmul if not trans_x and not trans_y else None


@matmul_v2.def_grad
def matmul_v2_grad(x, y, dout, *, trans_x, trans_y, wanted=(True, True)):
    # 1-D operands ignore trans_* (as in the forward) and act as a row / a column.
    a = _t(x) if trans_x and x.ndim >= 2 else x
    b = _t(y) if trans_y and y.ndim >= 2 else y
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    d = dout.reshape(batch + (a2.shape[-2], b2.shape[-1]))
    dx = dy = None
    if wanted[0]:
        da = unbroadcast(np.matmul(d, _t(b2)), a2.shape).reshape(a.shape)
        dx = _t(da) if trans_x and x.ndim >= 2 else da
    if wanted[1]:
        db = unbroadcast(np.matmul(_t(a2), d), b2.shape).reshape(b.shape)
        dy = _t(db) if trans_y and y.ndim >= 2 else db
    return dx, dy


# -- elementwise binary ops -------------------------------------------------------------------------
def _elementwise(op_type, fn, grad=None, uses_out=False, shape_only=(), inplace=False):
    """Declare ``op_type`` = ``fn(x, y)`` with Paddle's axis broadcasting. ``grad(x, y, out,
    dout)`` gets x and y aligned by ``axis``; their gradients are reduced back here.
    ``shape_only``: the forward inputs ``grad`` reads only for their shapes; ``inplace``: an
    in-place kernel writing Out into X's buffer (when Out has X's shape and dtype)."""
    op = register_op(op_type, inputs=["X", "Y"], outputs=["Out"], attrs={"axis": -1},
                     infer_shape=elementwise_shape, fresh_outputs=True)

    @op.def_kernel
    def kernel(x, y, *, axis):
        if axis == -1 or axis + y.ndim == x.ndim:      # y on x's trailing dims: NumPy's rule
            return fn(x, y)
        return fn(*broadcast_pair(x, y, axis))

    @op.def_specialize
    def fast(*, axis):
        return fn if axis == -1 else None

    def grads(x, y, out, dout, axis):
        if axis == -1 or axis + y.ndim == x.ndim:   # NumPy's alignment: no reshapes needed
            dx, dy = grad(x, y, out, dout)
            return (dx if dx.shape == x.shape else unbroadcast(dx, x.shape),
                    dy if dy.shape == y.shape else unbroadcast(dy, y.shape))
        xb, yb = broadcast_pair(x, y, axis)
        dx, dy = grad(xb, yb, out, dout)
        return (unbroadcast(dx, xb.shape).reshape(x.shape),
                unbroadcast(dy, yb.shape).reshape(y.shape))

    if inplace:
        @op.def_inplace_kernel(Out="X")
        def kernel_into_x(x, y, *, axis):
            return fn(x, y, out=x) if fits_into_x(x, y, axis) else kernel(x, y, axis=axis)

    if uses_out:
        @op.def_grad(exact=True)
        def rule_with_out(x, y, out, dout, *, axis):
            return grads(x, y, out, dout, axis)
    elif grad is not None:
        @op.def_grad(exact=True, shape_only=shape_only)
        def rule(x, y, dout, *, axis):
            return grads(x, y, None, dout, axis)
    return op


_elementwise("elementwise_add", np.add, lambda x, y, out, dout: (dout, dout),
             shape_only=("x", "y"), inplace=True)
_elementwise("elementwise_sub", np.subtract, lambda x, y, out, dout: (dout, -dout),
             shape_only=("x", "y"), inplace=True)
_elementwise("elementwise_mul", np.multiply, lambda x, y, out, dout: (dout * y, dout * x),
             inplace=True)
_elementwise("elementwise_div", np.divide,
             lambda x, y, out, dout: (dout / y, -dout * out / y), uses_out=True)
_elementwise("elementwise_pow", np.power,
             lambda x, y, out, dout: (dout * y * np.power(x, y - 1),
                                      dout * out * np.log(np.where(x > 0, x, 1))), uses_out=True)
_elementwise("elementwise_max", np.maximum,
             lambda x, y, out, dout: (dout * (x > y), dout * (x <= y)))   # Paddle's ties
_elementwise("elementwise_min", np.minimum,
             lambda x, y, out, dout: (dout * (x < y), dout * (x >= y)))


# -- comparisons (not differentiable) ---------------------------------------------------------------
def _comparison(op_type, fn):
    op = register_op(op_type, inputs=["X", "Y"], outputs=["Out"], differentiable=False,
                     attrs={"axis": -1}, extra_attrs={"force_cpu": False},
                     infer_shape=lambda x, y, *, axis, **_: elementwise_shape(
                         x, y, axis=axis, dtype=VarType.BOOL))

    @op.def_kernel
    def kernel(x, y, *, axis):
        return fn(*broadcast_pair(x, y, axis))
    return op


for _type, _fn in (("equal", np.equal), ("not_equal", np.not_equal), ("less_than", np.less),
                   ("less_equal", np.less_equal), ("greater_than", np.greater),
                   ("greater_equal", np.greater_equal)):
    _comparison(_type, _fn)

