"""Activation layers: each calls its ``paddle.nn.functional`` function with its settings."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer


class ReLU(Layer):
    def __init__(self, name: str | None = None):
        super().__init__()

    def forward(self, x):
        return F.relu(x)


class Softmax(Layer):
    def __init__(self, axis: int = -1, name: str | None = None):
        super().__init__()
        self.axis, self.name = axis, name

    def forward(self, x):
        return F.softmax(x, self.axis, name=self.name)


def _activation_layer(class_name: str, fn) -> type:
    def __init__(self, name: str | None = None):
        Layer.__init__(self)
        self.name = name

    def forward(self, x):
        return fn(x, name=self.name)
    return type(class_name, (Layer,), {"__init__": __init__, "forward": forward,
                                       "__doc__": f"Applies ``F.{fn.__name__}``."})


Tanh = _activation_layer("Tanh", F.tanh)


Sigmoid = _activation_layer("Sigmoid", F.sigmoid)


ReLU6 = _activation_layer("ReLU6", F.relu6)


Silu = _activation_layer("Silu", F.silu)


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
