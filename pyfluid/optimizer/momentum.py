"""``paddle.optimizer.Momentum`` (op ``momentum``, accumulator ``<param>_velocity_0``).

An L2Decay / float ``weight_decay`` (or a parameter's own L2Decay) is fused into the op
(``regularization_method='l2_decay'``) instead of adding regularization ops."""
from __future__ import annotations

from typing import Any, Iterable

from ..regularizer import L2Decay
from .lr import LRScheduler
from .optimizer import Optimizer


class Momentum(Optimizer):
    type = "momentum"
    _accumulator_slots = {"Velocity": "velocity"}
    _group_options = {"momentum": "_momentum", "use_nesterov": "_use_nesterov",
                      "rescale_grad": "_rescale_grad"}

    def __init__(self, learning_rate: float | LRScheduler = 0.001, momentum: float = 0.9,
                 parameters: Iterable | None = None, use_nesterov: bool = False,
                 weight_decay: Any = None, grad_clip: Any = None, multi_precision: bool = False,
                 rescale_grad: float = 1.0, use_multi_tensor: bool = False,
                 name: str | None = None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if momentum is None:
            raise ValueError("momentum is not set")
        fused = isinstance(weight_decay, (L2Decay, float))
        super().__init__(learning_rate, parameters, None if fused else weight_decay,
                         grad_clip, name)
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = rescale_grad
        self._multi_precision = multi_precision
        self._regularization_method = "l2_decay" if fused else ""
        self._regularization_coeff = (
            float(weight_decay._coeff if isinstance(weight_decay, L2Decay) else weight_decay)
            if fused else 0.0)

    def _accumulator_init(self, param):
        return [("velocity", 0.0, None, None)]

    def _regularizer_of(self, param):
        if isinstance(getattr(param, "regularizer", None), L2Decay):
            return None                         # fused into the momentum op
        return super()._regularizer_of(param)

    def _op_attrs(self, param) -> dict:
        method, coeff = self._regularization_method, self._regularization_coeff
        own = getattr(param, "regularizer", None)
        if isinstance(own, L2Decay):
            method, coeff = "l2_decay", own._coeff
        elif own is not None:
            method, coeff = "", 0.0
        return {"mu": float(self._momentum), "use_nesterov": self._use_nesterov,
                "regularization_method": method, "regularization_coeff": float(coeff),
                "multi_precision": False, "rescale_grad": float(self._rescale_grad)}
