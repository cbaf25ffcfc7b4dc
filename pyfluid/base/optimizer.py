"""``fluid.optimizer``: the 1.x optimizers (``SGD``/``SGDOptimizer``, ``Momentum``, ``Adam``)
with their argument names (``parameter_list``, ``regularization``). As in fluid 1.x, where
static graphs were the default, one built without ``parameter_list`` is a static-graph
optimizer whatever the global mode: ``minimize(loss)`` appends its ops to the loss's program.
With ``parameter_list`` it updates those dygraph parameters, as the 2.x optimizers do."""
from __future__ import annotations

from typing import Any

from ..optimizer import SGD as _SGD
from ..optimizer import Adam as _Adam
from ..optimizer import Momentum as _Momentum

__all__ = ["Adam", "AdamOptimizer", "Momentum", "MomentumOptimizer", "SGD", "SGDOptimizer"]


class SGDOptimizer(_SGD):
    _static_by_default = True

    def __init__(self, learning_rate: Any, parameter_list: Any = None, regularization: Any = None,
                 grad_clip: Any = None, name: str | None = None):
        super().__init__(learning_rate=learning_rate, parameters=parameter_list,
                         weight_decay=regularization, grad_clip=grad_clip, name=name)


class MomentumOptimizer(_Momentum):
    _static_by_default = True

    def __init__(self, learning_rate: Any, momentum: float, parameter_list: Any = None,
                 use_nesterov: bool = False, regularization: Any = None, grad_clip: Any = None,
                 name: str | None = None):
        super().__init__(learning_rate=learning_rate, momentum=momentum,
                         parameters=parameter_list, use_nesterov=use_nesterov,
                         weight_decay=regularization, grad_clip=grad_clip, name=name)


class AdamOptimizer(_Adam):
    _static_by_default = True

    def __init__(self, learning_rate: Any = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameter_list: Any = None, regularization: Any = None,
                 grad_clip: Any = None, name: str | None = None, lazy_mode: bool = False):
        super().__init__(learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon,
                         parameters=parameter_list, weight_decay=regularization,
                         grad_clip=grad_clip, lazy_mode=lazy_mode, name=name)


SGD, Momentum, Adam = SGDOptimizer, MomentumOptimizer, AdamOptimizer
