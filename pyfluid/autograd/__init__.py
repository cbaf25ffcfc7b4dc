"""``paddle.autograd``: PyLayer and the eager backward entry points."""
from ..eager.engine import backward, grad
from ..eager.grad_mode import no_grad
from .py_layer import PyLayer, PyLayerContext, once_differentiable

__all__ = ["PyLayer", "PyLayerContext", "backward", "grad", "no_grad", "once_differentiable"]
