"""Elementwise binary ops with Paddle's ``axis`` broadcasting: elementwise_add / sub / mul / div /
pow / max / min, and elementwise_floordiv / elementwise_mod (no gradient)."""
from __future__ import annotations

import numpy as np

from .common import broadcast_pair, broadcast_shape, elementwise_shape, fits_into_x
from .registry import register_op, unbroadcast
from .types import Meta


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
        @op.def_grad(exact=True, never_raises=True)
        def rule_with_out(x, y, out, dout, *, axis):
            return grads(x, y, out, dout, axis)
    elif grad is not None:
        @op.def_grad(exact=True, shape_only=shape_only, never_raises=True)
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


# -- floordiv / mod: NumPy broadcasting (axis is not applied), no gradient --------------------
def _elementwise_shape(x: Meta, y: Meta, *, axis=-1):
    return Meta(broadcast_shape(x.shape, y.shape), x.dtype)


for _op_type, _kernel in (("elementwise_floordiv", np.floor_divide),
                          ("elementwise_mod", np.mod)):
    register_op(_op_type, inputs=["X", "Y"], outputs=["Out"], attrs={"axis": -1},
                infer_shape=_elementwise_shape, differentiable=False).def_kernel(
        lambda x, y, _fn=_kernel: _fn(x, y))
