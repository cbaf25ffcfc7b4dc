"""Activation layers with settings: GELU, LeakyReLU, ELU, Hardswish, LogSoftmax."""
from __future__ import annotations

from . import functional as F
from .layer import Layer


class GELU(Layer):
    """``F.gelu`` (exact erf form, or the tanh approximation)."""

    def __init__(self, approximate: bool = False, name: str | None = None):
        super().__init__()
        self._approximate, self._name = approximate, name

    def forward(self, x):
        return F.gelu(x, self._approximate, name=self._name)


class LeakyReLU(Layer):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    def __init__(self, negative_slope: float = 0.01, name: str | None = None):
        super().__init__()
        self._negative_slope, self._name = negative_slope, name

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope, name=self._name)


class ELU(Layer):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha: float = 1.0, name: str | None = None):
        super().__init__()
        self._alpha, self._name = alpha, name

    def forward(self, x):
        return F.elu(x, self._alpha, name=self._name)


class Hardswish(Layer):
    """``x * relu6(x + 3) / 6``."""

    def __init__(self, name: str | None = None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.hardswish(x, name=self._name)


class LogSoftmax(Layer):
    """``log(softmax(x))`` along ``axis``."""

    def __init__(self, axis: int = -1, name: str | None = None):
        super().__init__()
        self._axis, self._name = axis, name

    def forward(self, x):
        return F.log_softmax(x, self._axis, name=self._name)
