"""Gradient clipping (``paddle.nn.ClipGradByGlobalNorm`` / ``ClipGradByNorm`` /
``ClipGradByValue``): an optimizer calls ``clip(params_grads)`` before its updates. The same
functional ops append to the program in static mode and run at once on eager gradients."""
from __future__ import annotations

import copy
import warnings
from typing import Any

from ..engine.grad_mode import no_grad
from ..tensor.math import add_n, clip, divide, multiply, scale, sqrt, square, sum as total


def _needs_clip(param: Any) -> bool:
    return getattr(param, "need_clip", True)


def _clip_factor(norm, clip_norm: float):
    """``clip_norm / max(norm, clip_norm)`` (1 when the norm is within the bound)."""
    bounded = clip(norm, min=clip_norm)
    return divide(scale(bounded, 0.0, clip_norm), bounded)


def _squared_sum(grad):
    return total(square(grad))


class ClipGradBase:
    """Subclasses implement ``_clip(params_grads)``; calling runs it without recording."""

    def __call__(self, params_grads: list) -> list:
        with no_grad():
            return self._clip(params_grads)

    def _clip(self, params_grads: list) -> list:
        raise NotImplementedError


class ClipGradByValue(ClipGradBase):
    """Clamp every gradient element to [min, max] (min defaults to -max)."""

    def __init__(self, max: float, min: float | None = None):  # noqa: A002
        self.max = float(max)
        self.min = -self.max if min is None else float(min)
        if self.min > self.max:
            raise ValueError(f"ClipGradByValue: min ({self.min}) must not exceed max ({self.max})")

    def _clip(self, params_grads: list) -> list:
        return [(p, clip(g, self.min, self.max) if g is not None and _needs_clip(p) else g)
                for p, g in params_grads]


class ClipGradByNorm(ClipGradBase):
    """Rescale each gradient whose L2 norm exceeds ``clip_norm`` to that norm."""

    def __init__(self, clip_norm: float):
        self.clip_norm = float(clip_norm)

    def _clip(self, params_grads: list) -> list:
        return [(p, multiply(g, _clip_factor(sqrt(_squared_sum(g)), self.clip_norm))
                 if g is not None and _needs_clip(p) else g) for p, g in params_grads]


class ClipGradByGlobalNorm(ClipGradBase):
    """Rescale all gradients by ``clip_norm / max(global_norm, clip_norm)``, where the global
    norm is the L2 norm of every clipped gradient together."""

    def __init__(self, clip_norm: float, group_name: str = "default_group",
                 auto_skip_clip: bool = False):
        self.clip_norm = float(clip_norm)
        self.group_name = group_name

    def _clip(self, params_grads: list) -> list:
        clipped = [g for p, g in params_grads if g is not None and _needs_clip(p)]
        if not clipped:
            return list(params_grads)
        squares = [_squared_sum(g) for g in clipped]
        total = squares[0] if len(squares) == 1 else add_n(squares)
        factor = _clip_factor(sqrt(total), self.clip_norm)
        return [(p, multiply(g, factor) if g is not None and _needs_clip(p) else g)
                for p, g in params_grads]


__all__ = ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]


def set_gradient_clip(clip: ClipGradBase, param_list: Any = None, program: Any = None) -> None:
    """The fluid-era way to clip: attach ``clip`` to the parameters (all of the program's by
    default); an optimizer without its own ``grad_clip`` applies it."""
    from ..framework import Parameter, default_main_program
    warnings.warn("Caution! 'set_gradient_clip' is not recommended and may be deprecated in "
                  "future! We recommend a new strategy: set 'grad_clip' when initializing the "
                  "'optimizer'. This method can reduce the mistakes, please refer to "
                  "documention of 'optimizer'.")
    if not isinstance(clip, ClipGradBase):
        raise TypeError("'clip' should be an instance of ClipGradBase's derived class")
    block = (program or default_main_program()).global_block()
    params = block.all_parameters() if param_list is None else list(param_list)
    params = [block.var(p) if isinstance(p, str) else p for p in params]
    if not all(isinstance(p, Parameter) for p in params):
        raise TypeError("'param_list' should be a list of Parameter or basestring(parameter's "
                        "name).")
    for param in params:
        param.gradient_clip_attr = copy.deepcopy(clip)


def append_gradient_clip_ops(params_grads: list) -> list:
    """Clip with the parameters' ``set_gradient_clip`` clip, when every one has it."""
    clip = None
    for param, grad in params_grads:
        if grad is None:
            continue
        clip = getattr(param, "gradient_clip_attr", None)
        if clip is None:
            return params_grads
    return clip(params_grads) if clip is not None else params_grads
