"""``paddle.autograd``: PyLayer and the eager backward entry points."""
from ..engine.tape import backward, grad
from ..engine.grad_mode import no_grad
from .py_layer import PyLayer, PyLayerContext, once_differentiable

__all__ = ["PyLayer", "PyLayerContext", "backward", "grad", "no_grad", "once_differentiable"]
from . import backward_mode  # noqa: E402,F401  (paddle.autograd.backward_mode)
