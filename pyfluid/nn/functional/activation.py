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
