"""Activations: relu, tanh, sigmoid, gelu, hard_swish, leaky_relu, relu6, hard_sigmoid, silu,
swish and elu, and the softmax family (softmax, log_softmax)."""
from __future__ import annotations

import numpy as np

from .common import axis_reduce, normalize_axis
from .registry import register_op, same_as

_SQRT_2_OVER_PI = np.sqrt(2.0 / np.pi)
_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)
_ERFC_COEFFS = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806,
                0.09678418, 0.37409196, 1.00002368, -1.26551223)


def erf(x: np.ndarray) -> np.ndarray:
    """Vectorized error function (Chebyshev fit of erfc, relative error < 1.2e-7), computed in
    float64 and returned in x's dtype. NumPy has no erf of its own."""
    z = np.abs(x.astype(np.float64))
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(t)
    for c in _ERFC_COEFFS:
        poly = poly * t + c
    erfc = t * np.exp(-z * z + poly)
    return (np.sign(x) * (1.0 - erfc)).astype(x.dtype)


def _activation(op_type: str, attrs: dict | None = None):
    return register_op(op_type, inputs=["X"], outputs=["Out"], attrs=attrs or {},
                       infer_shape=same_as())


relu = register_op("relu", inputs=["X"], outputs=["Out"], infer_shape=same_as(),
                   fresh_outputs=True)


_CLIP_FROM = 8192   # from this size on, relu as clip + 0 beats np.maximum (see relu_in_place)


def activate_into(act, values: np.ndarray) -> None:
    """``values[...] = act(values)``, without a copy when ``act`` works in place (a fused
    op's activation on a block of its output)."""
    done = act(values)
    if done is not values:
        values[...] = done


def relu_in_place(x: np.ndarray) -> np.ndarray:
    """``max(x, 0)`` written into ``x``. For large float arrays as ``clip(x, 0, inf) + 0``:
    the same bits as ``np.maximum(x, 0)`` (the ``+ 0`` turns -0.0 into +0.0), but NumPy 2
    runs ``maximum`` with a scalar without SIMD, 2.3 times slower than these two passes."""
    if x.dtype.kind != "f" or x.size < _CLIP_FROM:
        return np.maximum(x, x.dtype.type(0), out=x)
    np.clip(x, x.dtype.type(0), x.dtype.type(np.inf), out=x)
    return np.add(x, x.dtype.type(0), out=x)


@relu.def_kernel
def relu_kernel(x):
    zero = x.dtype.type(0)
    if type(x) is not np.ndarray or x.dtype.kind != "f" or x.size < _CLIP_FROM:
        return np.maximum(x, zero)
    out = np.clip(x, zero, x.dtype.type(np.inf))
    return np.add(out, zero, out=out)


@relu.def_inplace_kernel(Out="X")
def relu_into_x(x):
    if type(x) is np.ndarray and x.ndim:
        return relu_in_place(x)
    return relu_kernel(x)


@relu.def_grad(exact=True, never_raises=True)
def relu_grad(out, dout):
    return dout * (out > 0)


tanh = register_op("tanh", inputs=["X"], outputs=["Out"], infer_shape=same_as(), fresh_outputs=True)
tanh.def_kernel(np.tanh)


@tanh.def_grad(never_raises=True)
def tanh_grad(out, dout):
    return dout * (1 - out * out)


sigmoid = register_op("sigmoid", inputs=["X"], outputs=["Out"], infer_shape=same_as(),
                      fresh_outputs=True)


@sigmoid.def_kernel
def sigmoid_kernel(x):
    one = x.dtype.type(1)
    return one / (one + np.exp(-x))


@sigmoid.def_grad(never_raises=True)
def sigmoid_grad(out, dout):
    return dout * out * (1 - out)


# -- gelu ----------------------------------------------------------------------------------------
gelu = _activation("gelu", {"approximate": False})


@gelu.def_kernel
def gelu_kernel(x, *, approximate):
    half = x.dtype.type(0.5)
    if approximate:
        inner = x.dtype.type(_SQRT_2_OVER_PI) * (x + x.dtype.type(0.044715) * x * x * x)
        return half * x * (1 + np.tanh(inner))
    return half * x * (1 + erf(x * x.dtype.type(np.sqrt(0.5))))


@gelu.def_grad(never_raises=True)
def gelu_grad(x, dout, *, approximate):
    half = x.dtype.type(0.5)
    if approximate:
        k = x.dtype.type(_SQRT_2_OVER_PI)
        c = x.dtype.type(0.044715)
        t = np.tanh(k * (x + c * x * x * x))
        return dout * (half * (1 + t) + half * x * (1 - t * t) * k * (1 + 3 * c * x * x))
    cdf = half * (1 + erf(x * x.dtype.type(np.sqrt(0.5))))
    pdf = x.dtype.type(_INV_SQRT_2PI) * np.exp(-half * x * x)
    return dout * (cdf + x * pdf)


# -- hard_swish: x * min(max(x + offset, 0), threshold) / scale ------------------------------------
hard_swish = _activation("hard_swish", {"threshold": 6.0, "scale": 6.0, "offset": 3.0})


@hard_swish.def_kernel
def hard_swish_kernel(x, *, threshold, scale, offset):
    t = x.dtype.type
    return x * np.clip(x + t(offset), t(0), t(threshold)) / t(scale)


@hard_swish.def_grad(never_raises=True)
def hard_swish_grad(x, dout, *, threshold, scale, offset):
    t = x.dtype.type
    shifted = x + t(offset)
    inside = (shifted > 0) & (shifted < t(threshold))
    return dout * np.where(inside, (2 * x + t(offset)) / t(scale),
                           np.where(shifted >= t(threshold), t(1), t(0)))


# -- leaky_relu ----------------------------------------------------------------------------------
leaky_relu = _activation("leaky_relu", {"alpha": 0.02})


@leaky_relu.def_kernel
def leaky_relu_kernel(x, *, alpha):
    return np.where(x > 0, x, x * x.dtype.type(alpha))


@leaky_relu.def_grad(never_raises=True)
def leaky_relu_grad(x, dout, *, alpha):
    return np.where(x > 0, dout, dout * dout.dtype.type(alpha))


# -- relu6 / hard_sigmoid (gradients from Out, as in Paddle) --------------------------------------
relu6 = _activation("relu6", {"threshold": 6.0})


@relu6.def_kernel
def relu6_kernel(x, *, threshold):
    return np.clip(x, x.dtype.type(0), x.dtype.type(threshold))


@relu6.def_grad(never_raises=True)
def relu6_grad(out, dout, *, threshold):
    return dout * ((out > 0) & (out < out.dtype.type(threshold)))


hard_sigmoid = _activation("hard_sigmoid", {"slope": 0.2, "offset": 0.5})


@hard_sigmoid.def_kernel
def hard_sigmoid_kernel(x, *, slope, offset):
    t = x.dtype.type
    return np.clip(x * t(slope) + t(offset), t(0), t(1))


@hard_sigmoid.def_grad(never_raises=True)
def hard_sigmoid_grad(out, dout, *, slope):
    return dout * ((out > 0) & (out < 1)) * dout.dtype.type(slope)


# -- silu / swish: x * sigmoid(beta * x) -----------------------------------------------------------
silu = _activation("silu")


@silu.def_kernel
def silu_kernel(x):
    return x * sigmoid_kernel(x)


@silu.def_grad(never_raises=True)
def silu_grad(x, dout):
    s = sigmoid_kernel(x)
    return dout * s * (1 + x * (1 - s))


swish = _activation("swish", {"beta": 1.0})


@swish.def_kernel
def swish_kernel(x, *, beta):
    return x * sigmoid_kernel(x * x.dtype.type(beta))


@swish.def_grad(never_raises=True)
def swish_grad(x, dout, *, beta):
    b = x.dtype.type(beta)
    s = sigmoid_kernel(b * x)
    return dout * (s + b * x * s * (1 - s))


# -- elu -----------------------------------------------------------------------------------------
elu = register_op("elu", inputs=["X"], outputs=["Out"], attrs={"alpha": 1.0},
                  infer_shape=same_as())


@elu.def_kernel
def elu_kernel(x, *, alpha):
    return np.where(x > 0, x, x.dtype.type(alpha) * np.expm1(np.minimum(x, 0)))


@elu.def_grad(never_raises=True)
def elu_grad(x, out, dout, *, alpha):
    return np.where(x > 0, dout, dout * (out + x.dtype.type(alpha)))


# -- softmax family ------------------------------------------------------------------------------
def _softmax(x, axis):
    shifted = x - axis_reduce(x, np.maximum, axis)
    e = np.exp(shifted)
    return np.divide(e, axis_reduce(e, np.add, axis), out=e)


softmax = register_op("softmax", inputs=["X"], outputs=["Out"], infer_shape=same_as(),
                      attrs={"axis": -1},
                      extra_attrs={"use_cudnn": False, "data_format": "AnyLayout"})


@softmax.def_kernel
def softmax_kernel(x, *, axis):
    return _softmax(x, normalize_axis(axis, x.ndim))


@softmax.def_grad(never_raises=True)
def softmax_grad(out, dout, *, axis):
    axis = normalize_axis(axis, out.ndim)
    return out * (dout - axis_reduce(dout * out, np.add, axis))


log_softmax = register_op("log_softmax", inputs=["X"], outputs=["Out"], infer_shape=same_as(),
                          attrs={"axis": -1})


@log_softmax.def_kernel
def log_softmax_kernel(x, *, axis):
    axis = normalize_axis(axis, x.ndim)
    shifted = x - axis_reduce(x, np.maximum, axis)
    return shifted - np.log(axis_reduce(np.exp(shifted), np.add, axis))


@log_softmax.def_grad(never_raises=True)
def log_softmax_grad(out, dout, *, axis):
    axis = normalize_axis(axis, out.ndim)
    return dout - np.exp(out) * axis_reduce(dout, np.add, axis)
