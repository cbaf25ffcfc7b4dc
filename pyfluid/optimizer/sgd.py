"""``paddle.optimizer.SGD``: ``param -= lr * grad`` (op ``sgd``)."""
from __future__ import annotations

from typing import Any, Iterable

from .lr import LRScheduler
from .optimizer import Optimizer


class SGD(Optimizer):
    type = "sgd"

    def __init__(self, learning_rate: float | LRScheduler = 0.001,
                 parameters: Iterable | None = None, weight_decay: Any = None,
                 grad_clip: Any = None, multi_precision: bool = False, name: str | None = None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._multi_precision = multi_precision

    def _op_attrs(self, param) -> dict:
        return {"multi_precision": False}
