"""Activations (``paddle.nn.functional.activation``), with Paddle 2.6's op types, attributes
and temporary names in static mode; the same ops run eagerly on Tensors."""
from __future__ import annotations

from ..._dispatch import apply_op, layer_op
from ...tensor.math import relu, sigmoid, tanh  # noqa: F401  (the same functions as paddle.*)
from .window_args import _is_static, _layer_name


def softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    return apply_op("softmax", {"X": x}, {"axis": axis}, name=name)


def log_softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    return apply_op("log_softmax", {"X": x}, {"axis": axis}, name=name)


def elu(x, alpha: float = 1.0, name: str | None = None):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (op ``elu``)."""
    return layer_op("elu", "elu", {"X": x}, {"alpha": float(alpha)}, name=name)[0]


def _activation(op_type: str, layer_type: str, x, attrs: dict | None, name: str | None):
    layer = _layer_name(layer_type, name) if _is_static(x) else None
    return apply_op(op_type, {"X": x}, attrs, name=layer)


def gelu(x, approximate: bool = False, name: str | None = None):
    """GELU: ``x * Phi(x)`` (erf form), or its tanh approximation."""
    return _activation("gelu", "gelu", x, {"approximate": approximate}, name)


def hardswish(x, name: str | None = None):
    """``x * relu6(x + 3) / 6`` (op ``hard_swish``)."""
    return _activation("hard_swish", "hardswish", x,
                       {"threshold": 6.0, "scale": 6.0, "offset": 3.0}, name)


def leaky_relu(x, negative_slope: float = 0.01, name: str | None = None):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    return _activation("leaky_relu", "leaky_relu", x, {"alpha": negative_slope}, name)


def relu6(x, name: str | None = None):
    """``min(max(x, 0), 6)``."""
    return layer_op("relu6", "relu6", {"X": x}, {"threshold": 6.0}, name=name)[0]


def silu(x, name: str | None = None):
    """``x * sigmoid(x)``."""
    return layer_op("silu", "silu", {"X": x}, name=name)[0]


# -- activations of the vision models (op types: brelu, celu, hard_shrink, logsigmoid, mish,
# selu, softplus, softshrink, softsign, tanh_shrink, thresholded_relu, prelu) ------------------
def _unary(layer: str, op_type: str, x, attrs: dict | None, name: str | None):
    return layer_op(layer, op_type, {"X": x}, attrs, name=name)[0]


def hardtanh(x, min: float = -1.0, max: float = 1.0, name: str | None = None):  # noqa: A002
    """``x`` clipped to [min, max] (op ``brelu``)."""
    return _unary("hardtanh", "brelu", x, {"t_min": float(min), "t_max": float(max)}, name)


def celu(x, alpha: float = 1.0, name: str | None = None):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if alpha == 0:
        raise ZeroDivisionError("alpha cannot be 0 for celu")
    return _unary("celu", "celu", x, {"alpha": float(alpha)}, name)


def hardshrink(x, threshold: float = 0.5, name: str | None = None):
    """``x`` where ``|x| > threshold``, else 0 (op ``hard_shrink``)."""
    return _unary("hardshrink", "hard_shrink", x, {"threshold": float(threshold)}, name)


def log_sigmoid(x, name: str | None = None):
    """``log(1 / (1 + exp(-x)))`` (op ``logsigmoid``)."""
    return _unary("log_sigmoid", "logsigmoid", x, None, name)


def mish(x, name: str | None = None):
    """``x * tanh(softplus(x))``."""
    return _unary("mish", "mish", x, {"threshold": 20.0}, name)


def selu(x, scale: float = 1.0507009873554804934193349852946,
         alpha: float = 1.6732632423543772848170429916717, name: str | None = None):
    """``scale * (x if x > 0 else alpha * exp(x) - alpha)``."""
    if scale <= 1.0:
        raise ValueError(f"The scale must be greater than 1.0. Received: {scale}.")
    if alpha < 0:
        raise ValueError(f"The alpha must be no less than zero. Received: {alpha}.")
    return _unary("selu", "selu", x, {"scale": float(scale), "alpha": float(alpha)}, name)


def softplus(x, beta: float = 1, threshold: float = 20, name: str | None = None):
    """``log(1 + exp(beta * x)) / beta``, or ``x`` where ``beta * x > threshold``."""
    return _unary("softplus", "softplus", x, {"beta": float(beta),
                                               "threshold": float(threshold)}, name)


def softshrink(x, threshold: float = 0.5, name: str | None = None):
    """``x - threshold`` above it, ``x + threshold`` below ``-threshold``, else 0."""
    if threshold < 0:
        raise ValueError(f"The threshold must be no less than zero. Received: {threshold}.")
    return _unary("softshrink", "softshrink", x, {"lambda": float(threshold)}, name)


def softsign(x, name: str | None = None):
    """``x / (1 + |x|)``."""
    return _unary("softsign", "softsign", x, None, name)


def tanhshrink(x, name: str | None = None):
    """``x - tanh(x)`` (op ``tanh_shrink``)."""
    return _unary("tanh_shrink", "tanh_shrink", x, None, name)


def thresholded_relu(x, threshold: float = 1.0, name: str | None = None):
    """``x`` where ``x > threshold``, else 0."""
    return _unary("thresholded_relu", "thresholded_relu", x, {"threshold": float(threshold)},
                  name)


_PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def prelu(x, weight, data_format: str = "NCHW", name: str | None = None):
    """``x`` where positive, ``weight * x`` elsewhere: one weight for all (shape [1] or []),
    or one per channel (shape [C], channel axis from ``data_format``)."""
    if len(weight.shape) not in (0, 1):
        raise AssertionError("The dim count of weight shape should be 0 or 1 in prelu().")
    mode = "all"
    if len(weight.shape) == 1 and weight.shape[0] > 1:
        if data_format not in _PRELU_FORMATS:
            raise ValueError(f"data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', "
                             f"'NHWC', 'NDHWC' but receive {data_format}")
        data_format = "NCHW" if data_format[1] == "C" else "NHWC"
        if len(x.shape) <= 1:
            raise AssertionError("The dim count of x should be equal or larger than 2 in prelu() "
                                 "when weight shape is not [1].")
        channels = x.shape[-1] if data_format == "NHWC" else x.shape[1]
        if weight.shape[0] != channels:
            raise AssertionError("The weight size should be equal to x input channel in prelu() "
                                 "when weight shape is not [1].")
        mode = "channel"
    return layer_op("prelu", "prelu", {"X": x, "Alpha": weight},
                    {"mode": mode, "data_format": data_format}, name=name)[0]
