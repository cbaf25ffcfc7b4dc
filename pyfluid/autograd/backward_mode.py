"""``paddle.autograd.backward_mode``: static-graph gradients applied by an optimizer."""
from ..framework.backward import gradients_with_optimizer

__all__ = ["gradients_with_optimizer"]
