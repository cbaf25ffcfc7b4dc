"""``paddle.optimizer.Adagrad`` (op ``adagrad``, accumulator ``<param>_moment_0`` filled with
``initial_accumulator_value``): each parameter's step is scaled by the root of its summed
squared gradients."""
from __future__ import annotations

from typing import Any, Iterable

from .lr import LRScheduler
from .optimizer import Optimizer


class Adagrad(Optimizer):
    type = "adagrad"
    _accumulator_slots = {"Moment": "moment"}
    _group_options = {"epsilon": "_epsilon",
                      "initial_accumulator_value": "_initial_accumulator_value"}

    def __init__(self, learning_rate: float | LRScheduler, epsilon: float = 1e-6,
                 parameters: Iterable | None = None, weight_decay: Any = None,
                 grad_clip: Any = None, name: str | None = None,
                 initial_accumulator_value: float = 0.0):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if epsilon is None:
            raise ValueError("epsilon is not set")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon = epsilon
        self._initial_accumulator_value = initial_accumulator_value
        self._multi_precision = False

    def _accumulator_init(self, param):
        return [("moment", float(self._initial_accumulator_value), None, None)]

    def _op_attrs(self, param) -> dict:
        return {"epsilon": float(self._epsilon), "multi_precision": False}
