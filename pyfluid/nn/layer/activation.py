"""Activation layers: each calls its ``paddle.nn.functional`` function with its settings."""
from __future__ import annotations

from .. import functional as F
from ..initializer import Constant
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


LogSigmoid = _activation_layer("LogSigmoid", F.log_sigmoid)


Mish = _activation_layer("Mish", F.mish)


Softsign = _activation_layer("Softsign", F.softsign)


Tanhshrink = _activation_layer("Tanhshrink", F.tanhshrink)


class _Parametrized(Layer):
    """An activation with settings: ``forward(x)`` is ``function(x, *settings, name=name)``."""
    function = None

    def __init__(self, *settings, name: str | None = None):
        super().__init__()
        self._settings, self._name = settings, name

    def forward(self, x):
        return type(self).function(x, *self._settings, name=self._name)


class Hardtanh(_Parametrized):
    """``x`` clipped to [min, max]."""
    function = F.hardtanh

    def __init__(self, min: float = -1.0, max: float = 1.0,  # noqa: A002
                 name: str | None = None):
        super().__init__(min, max, name=name)


class CELU(_Parametrized):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    function = F.celu

    def __init__(self, alpha: float = 1.0, name: str | None = None):
        super().__init__(alpha, name=name)


class Hardshrink(_Parametrized):
    """``x`` where ``|x| > threshold``, else 0."""
    function = F.hardshrink

    def __init__(self, threshold: float = 0.5, name: str | None = None):
        super().__init__(threshold, name=name)


class SELU(_Parametrized):
    """``scale * (x if x > 0 else alpha * exp(x) - alpha)``."""
    function = F.selu

    def __init__(self, scale: float = 1.0507009873554804934193349852946,
                 alpha: float = 1.6732632423543772848170429916717, name: str | None = None):
        super().__init__(scale, alpha, name=name)


class Softplus(_Parametrized):
    """``log(1 + exp(beta * x)) / beta`` (linear above ``threshold``)."""
    function = F.softplus

    def __init__(self, beta: float = 1, threshold: float = 20, name: str | None = None):
        super().__init__(beta, threshold, name=name)


class Softshrink(_Parametrized):
    """``x`` moved toward 0 by ``threshold``; 0 inside [-threshold, threshold]."""
    function = F.softshrink

    def __init__(self, threshold: float = 0.5, name: str | None = None):
        super().__init__(threshold, name=name)


class ThresholdedReLU(_Parametrized):
    """``x`` where ``x > threshold``, else 0."""
    function = F.thresholded_relu

    def __init__(self, threshold: float = 1.0, name: str | None = None):
        super().__init__(threshold, name=name)


class PReLU(Layer):
    """``x`` where positive, ``weight * x`` elsewhere, with a learned weight: one for all
    (``num_parameters=1``) or one per channel; initialized to ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr=None,
                 data_format: str = "NCHW", name: str | None = None):
        super().__init__()
        self._num_parameters, self._init, self._data_format = num_parameters, init, data_format
        self._name = name
        self._weight = self.create_parameter([num_parameters], weight_attr,
                                             default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)
