"""Smooth activations: celu, selu, softplus, mish, logsigmoid, softsign and tanh_shrink, with
Paddle 2.6's attributes and its numerically safe forms (the thresholds of softplus and mish,
logsigmoid's shifted log-sum-exp). Their grad ops read X, except selu_grad which reads Out,
as Paddle's do."""
from __future__ import annotations

import numpy as np

from .registry import register_op, same_as


def _activation(op_type: str, attrs: dict | None = None, **kwargs):
    return register_op(op_type, inputs=["X"], outputs=["Out"], attrs=attrs or {},
                       infer_shape=same_as(), fresh_outputs=True, **kwargs)


# -- celu: x where positive, alpha * (exp(x / alpha) - 1) elsewhere ------------------------------
celu = _activation("celu", {"alpha": 1.0})


@celu.def_kernel
def celu_kernel(x, *, alpha):
    a = x.dtype.type(alpha)
    return np.where(x < 0, a * np.expm1(np.minimum(x, 0) / a), x)


@celu.def_grad
def celu_grad(x, dout, *, alpha):
    a = x.dtype.type(alpha)
    return np.where(x > 0, dout, dout * np.exp(np.minimum(x, 0) / a))


# -- selu: scale * (x where positive, alpha * exp(x) - alpha elsewhere) ---------------------------
selu = _activation("selu", {"scale": 1.0507009873554804934193349852946,
                            "alpha": 1.6732632423543772848170429916717})


@selu.def_kernel
def selu_kernel(x, *, scale, alpha):
    t = x.dtype.type
    return t(scale) * np.where(x > 0, x, t(alpha) * np.exp(np.minimum(x, 0)) - t(alpha))


@selu.def_grad
def selu_grad(out, dout, *, scale, alpha):
    t = out.dtype.type
    return dout * np.where(out > 0, t(scale), out + t(alpha) * t(scale))


# -- softplus: log(1 + exp(beta * x)) / beta, or x once beta * x exceeds threshold ----------------
softplus = _activation("softplus", {"beta": 1.0, "threshold": 20.0},
                       extra_attrs={"use_cudnn": False, "use_mkldnn": False})


@softplus.def_kernel
def softplus_kernel(x, *, beta, threshold):
    t = x.dtype.type
    scaled = x * t(beta)
    linear = scaled > t(threshold)
    return np.where(linear, x, np.log1p(np.exp(np.where(linear, 0, scaled))) / t(beta))


@softplus.def_grad
def softplus_grad(x, dout, *, beta, threshold):
    t = x.dtype.type
    scaled = x * t(beta)
    linear = scaled > t(threshold)
    return np.where(linear, dout, dout / (1 + np.exp(-np.where(linear, 0, scaled))))


# -- mish: x * tanh(softplus(x)), softplus linear above threshold --------------------------------
mish = _activation("mish", {"threshold": 20.0}, extra_attrs={"use_mkldnn": False})


def _mish_softplus(x, threshold):
    linear = x > x.dtype.type(threshold)
    return np.where(linear, x, np.log1p(np.exp(np.where(linear, 0, x))))


@mish.def_kernel
def mish_kernel(x, *, threshold):
    return x * np.tanh(_mish_softplus(x, threshold))


@mish.def_grad
def mish_grad(x, dout, *, threshold):
    """d softplus / dx is sigmoid(x) = 1 - exp(-softplus), and 1 where softplus is linear
    (Paddle uses 1 - exp(-x) there too; the two differ by < exp(-threshold))."""
    sp = _mish_softplus(x, threshold)
    tsp = np.tanh(sp)
    dsp = np.where(x > x.dtype.type(threshold), x.dtype.type(1), -np.expm1(-sp))
    return dout * (tsp + x * (1 - tsp * tsp) * dsp)


# -- logsigmoid: -log(1 + exp(-x)) as a log-sum-exp shifted by max(-x, 0) ------------------------
logsigmoid = _activation("logsigmoid", extra_attrs={"use_cudnn": False, "use_mkldnn": False})


@logsigmoid.def_kernel
def logsigmoid_kernel(x):
    shift = np.maximum(-x, 0)
    return -shift - np.log(np.exp(-shift) + np.exp(-x - shift))


@logsigmoid.def_grad
def logsigmoid_grad(x, dout):
    shift = np.maximum(-x, 0)
    tail = np.exp(-x - shift)
    return dout * tail / (np.exp(-shift) + tail)


# -- softsign: x / (1 + |x|) -----------------------------------------------------------------------
softsign = _activation("softsign", extra_attrs={"use_cudnn": False, "use_mkldnn": False})


@softsign.def_kernel
def softsign_kernel(x):
    return x / (1 + np.abs(x))


@softsign.def_grad
def softsign_grad(x, dout):
    return dout / np.square(1 + np.abs(x))


# -- tanh_shrink: x - tanh(x) ----------------------------------------------------------------------
tanh_shrink = _activation("tanh_shrink", extra_attrs={"use_cudnn": False, "use_mkldnn": False})


@tanh_shrink.def_kernel
def tanh_shrink_kernel(x):
    return x - np.tanh(x)


@tanh_shrink.def_grad
def tanh_shrink_grad(x, dout):
    return dout * np.square(np.tanh(x))
