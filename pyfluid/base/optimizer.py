"""``fluid.optimizer``: the 1.x optimizer names over ``pyfluid.optimizer``."""
from __future__ import annotations

from typing import Any

__all__ = ["SGD", "SGDOptimizer"]


def SGD(learning_rate: Any, parameter_list: Any = None, regularization: Any = None,
        grad_clip: Any = None, name: str | None = None):
    """``fluid.optimizer.SGD(learning_rate=...)``: a ``pyfluid.optimizer.SGD``."""
    from ..optimizer import SGD as _SGD
    return _SGD(learning_rate=learning_rate, parameters=parameter_list,
                weight_decay=regularization, grad_clip=grad_clip, name=name)


SGDOptimizer = SGD
