"""Element-wise unary math ops: square, sqrt, exp, log, abs and clip."""
from __future__ import annotations

import numpy as np

from .registry import register_op, same_as


def _unary(op_type: str, kernel, **kwargs):
    op = register_op(op_type, inputs=["X"], outputs=["Out"], infer_shape=same_as(), **kwargs)
    op.def_kernel(kernel)
    return op


square = _unary("square", np.square)


@square.def_grad
def square_grad(x, dout):
    return dout * (x + x)


sqrt = _unary("sqrt", np.sqrt)


@sqrt.def_grad
def sqrt_grad(out, dout):
    return dout * out.dtype.type(0.5) / out


exp = _unary("exp", np.exp)


@exp.def_grad
def exp_grad(out, dout):
    return dout * out


log = _unary("log", np.log)


@log.def_grad
def log_grad(x, dout):
    return dout / x


abs_op = _unary("abs", np.abs)


@abs_op.def_grad
def abs_grad(x, dout):
    return dout * np.sign(x)


# -- clip: Paddle's bounds come from the attrs unless the Min / Max tensors are given ----------
clip = register_op("clip", inputs=["X", "Min?", "Max?"], outputs=["Out"],
                   attrs={"min": 0.0, "max": 0.0}, no_grad=["Min", "Max"],
                   infer_shape=lambda x, *_, **__: x)


def _bounds(x, min_tensor, max_tensor, min, max):
    lo = min_tensor.reshape(()) if min_tensor is not None else min
    hi = max_tensor.reshape(()) if max_tensor is not None else max
    return x.dtype.type(lo), x.dtype.type(hi)


@clip.def_kernel
def clip_kernel(x, min_tensor=None, max_tensor=None, *, min, max):
    lo, hi = _bounds(x, min_tensor, max_tensor, min, max)
    if lo > hi:
        raise ValueError(f"clip: min ({lo}) must be less than or equal to max ({hi})")
    return np.clip(x, lo, hi)


@clip.def_grad
def clip_grad(x, out, dout):
    # The bounds may be tensors, so the mask comes from where clipping left x unchanged.
    return dout * (out == x), None, None
