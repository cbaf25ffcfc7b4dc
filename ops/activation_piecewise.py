"""Piecewise-linear activations: brelu (hardtanh), hard_shrink, softshrink, thresholded_relu,
and prelu with its learned negative slope (one for all, one per channel, or one per element).
Paddle's grad ops read X (prelu also Alpha); the kinks take the gradient of the zero side."""
from __future__ import annotations

import math

import numpy as np

from .registry import OpDef, default_grad_op_spec, register, register_op, same_as
from .types import Meta


def _activation(op_type: str, attrs: dict):
    return register_op(op_type, inputs=["X"], outputs=["Out"], attrs=attrs,
                       infer_shape=same_as(), fresh_outputs=True)


# -- brelu (F.hardtanh): clip(x, t_min, t_max) ------------------------------------------------
brelu = _activation("brelu", {"t_min": 0.0, "t_max": 24.0})


@brelu.def_kernel
def brelu_kernel(x, *, t_min, t_max):
    return np.clip(x, x.dtype.type(t_min), x.dtype.type(t_max))


@brelu.def_grad
def brelu_grad(x, dout, *, t_min, t_max):
    return dout * ((x > x.dtype.type(t_min)) & (x < x.dtype.type(t_max)))


# -- hard_shrink: x where |x| > threshold, else 0 ------------------------------------------------
hard_shrink = _activation("hard_shrink", {"threshold": 0.5})


def _outside(x, threshold):
    t = x.dtype.type(threshold)
    return (x < -t) | (x > t)


@hard_shrink.def_kernel
def hard_shrink_kernel(x, *, threshold):
    return x * _outside(x, threshold)


@hard_shrink.def_grad
def hard_shrink_grad(x, dout, *, threshold):
    return dout * _outside(x, threshold)


# -- softshrink: x moved toward 0 by lambda, 0 inside [-lambda, lambda] --------------------------
# Its attribute is named "lambda", which no Python parameter can be: kernels are bound to it
# through def_specialize, and the grad op is declared by hand rather than derived from a rule.
softshrink = _activation("softshrink", {"lambda": 0.5})


def _softshrink(x, lam):
    lam = x.dtype.type(lam)
    return np.where(x > lam, x - lam, np.where(x < -lam, x + lam, x.dtype.type(0)))


def _softshrink_grad(x, dout, lam):
    return dout * _outside(x, lam)


softshrink.def_kernel(lambda x, **attrs: _softshrink(x, attrs["lambda"]))
softshrink.def_specialize(lambda **attrs: lambda x: _softshrink(x, attrs["lambda"]))

softshrink_grad = register(OpDef("softshrink_grad", inputs=["X", "Out@GRAD"],
                                 outputs=["X@GRAD?"], attrs={"lambda": 0.5},
                                 differentiable=False))
softshrink_grad.forward = softshrink
softshrink_grad.def_kernel(lambda x, dout, **attrs: _softshrink_grad(x, dout, attrs["lambda"]))
softshrink_grad.def_specialize(
    lambda **attrs: lambda x, dout: _softshrink_grad(x, dout, attrs["lambda"]))


@softshrink.def_grad_maker
def softshrink_grad_maker(op, no_grad_names: set) -> list[dict]:
    return [default_grad_op_spec(softshrink, op, no_grad_names)]


# -- thresholded_relu: x where x > threshold, else 0 ---------------------------------------------
thresholded_relu = _activation("thresholded_relu", {"threshold": 1.0})


@thresholded_relu.def_kernel
def thresholded_relu_kernel(x, *, threshold):
    return x * (x > x.dtype.type(threshold))


@thresholded_relu.def_grad
def thresholded_relu_grad(x, dout, *, threshold):
    return dout * (x > x.dtype.type(threshold))


# -- prelu: x where positive, alpha * x elsewhere -------------------------------------------------
prelu = register_op("prelu", inputs=["X", "Alpha"], outputs=["Out"],
                    attrs={"data_format": "NCHW", "mode": "all"},
                    extra_attrs={"is_test": False, "mkldnn_data_type": "float32",
                                 "use_mkldnn": False}, fresh_outputs=True)


@prelu.def_infer_shape
def prelu_shape(x: Meta, alpha: Meta, *, data_format, mode, **_):
    size = -1 if -1 in alpha.shape else math.prod(alpha.shape)
    if mode == "all":
        if size not in (1, -1):
            raise ValueError(f"op 'prelu': for mode 'all', size of weight Alpha must be one. But "
                             f"received alpha's shape {list(alpha.shape)}")
    elif mode == "channel":
        if len(x.shape) < 2:
            raise ValueError(f"op 'prelu': for mode 'channel', rank of input X must be equal or "
                             f"larger than 2. But received X's shape {list(x.shape)}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"op 'prelu': for mode 'channel', data_format must be one of NCHW "
                             f"and NHWC. But received data_format: {data_format}")
        c = x.shape[1] if data_format == "NCHW" else x.shape[-1]
        if -1 not in (c, size) and size != c:
            raise ValueError(f"op 'prelu': for mode 'channel', size of weight Alpha must be equal "
                             f"to the number of channels of input(x) ({c}, {data_format}). But "
                             f"received alpha's shape {list(alpha.shape)}")
    elif mode == "element":
        tail = x.shape[1:]
        if len(alpha.shape) != len(x.shape):
            raise ValueError(f"op 'prelu': for mode 'element', rank of weight Alpha must be equal "
                             f"to the rank of input(x). But received alpha's shape "
                             f"{list(alpha.shape)}, x's shape {list(x.shape)}")
        if -1 not in tail and -1 not in alpha.shape[1:] and \
                math.prod(alpha.shape[1:]) != math.prod(tail):
            raise ValueError(f"op 'prelu': for mode 'element', the size of weight Alpha must be "
                             f"equal to the size of input(x) without its batch dim. But received "
                             f"alpha's shape {list(alpha.shape)}, x's shape {list(x.shape)}")
    else:
        raise ValueError(f"op 'prelu': Attr(mode) of prelu must be one of 'all', 'channel', or "
                         f"'element'. But received mode: '{mode}'.")
    return x


def _alpha_like(x, alpha, data_format, mode):
    """Alpha reshaped to broadcast against x."""
    if mode == "all":
        return alpha.reshape(())
    if mode == "channel":
        if data_format == "NCHW":
            return alpha.reshape((1, -1) + (1,) * (x.ndim - 2))
        return alpha.reshape(-1)
    return alpha.reshape((1,) + x.shape[1:])


@prelu.def_kernel
def prelu_kernel(x, alpha, *, data_format, mode):
    return np.where(x > 0, x, _alpha_like(x, alpha, data_format, mode) * x)


@prelu.def_grad
def prelu_grad(x, alpha, dout, *, data_format, mode):
    negative = x <= 0
    dx = np.where(negative, dout * _alpha_like(x, alpha, data_format, mode), dout)
    slope = dout * x * negative
    if mode == "all":
        dalpha = slope.sum().reshape(alpha.shape)
    elif mode == "channel":
        axis = 1 if data_format == "NCHW" else x.ndim - 1
        dalpha = slope.sum(axis=tuple(i for i in range(x.ndim) if i != axis))
    else:
        dalpha = slope.sum(axis=0)
    return dx, dalpha.reshape(alpha.shape).astype(alpha.dtype, copy=False)
