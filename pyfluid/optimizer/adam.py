"""``paddle.optimizer.Adam`` and ``AdamW`` (ops ``adam`` / ``adamw``; accumulators
``<p>_moment1_0``, ``<p>_moment2_0``, ``<p>_beta1_pow_acc_0``, ``<p>_beta2_pow_acc_0``).
The kernels advance the beta-power accumulators themselves."""
from __future__ import annotations

from typing import Any, Callable, Iterable

from ..framework.variable import Variable
from .lr import LRScheduler
from .optimizer import Optimizer

# the attr values (and beta-power fills) Paddle uses when a hyperparameter is a Variable
_VARIABLE_DEFAULTS = {"_beta1": 0.9, "_beta2": 0.999, "_epsilon": 1e-8}


class Adam(Optimizer):
    type = "adam"
    _accumulator_slots = {"Moment1": "moment1", "Moment2": "moment2",
                          "Beta1Pow": "beta1_pow_acc", "Beta2Pow": "beta2_pow_acc"}
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon",
                      "lazy_mode": "_lazy_mode"}

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-8,
                 parameters: Iterable | None = None, weight_decay: Any = None,
                 grad_clip: Any = None, lazy_mode: bool = False, multi_precision: bool = False,
                 use_multi_tensor: bool = False, name: str | None = None):
        for what, value in (("learning_rate", learning_rate), ("beta1", beta1),
                            ("beta2", beta2), ("epsilon", epsilon)):
            if value is None:
                raise ValueError(f"{what} is not set")
        if not isinstance(beta1, Variable) and not 0 <= beta1 < 1:
            raise ValueError("Invaild value of beta1, expect beta1 in [0,1).")
        if not isinstance(beta2, Variable) and not 0 <= beta2 < 1:
            raise ValueError("Invaild value of beta2, expect beta2 in [0,1).")
        if not isinstance(epsilon, Variable) and not 0 <= epsilon:
            raise ValueError("Invaild value of epsilon, expect epsilon >= 0.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lazy_mode = lazy_mode
        self._multi_precision = multi_precision

    def _check_eager_grads(self, params_grads: list) -> None:
        if self.regularization is not None and any(
                getattr(p, "sparse_grad", False) for p, _ in params_grads):
            raise RuntimeError("Adam don't support weight_decay with sparse parameters, please "
                               "set it to None.")

    def _accumulator_init(self, param):
        return [("moment1", 0.0, None, None), ("moment2", 0.0, None, None),
                ("beta1_pow_acc", self._hyper("_beta1"), [1], "cpu"),
                ("beta2_pow_acc", self._hyper("_beta2"), [1], "cpu")]

    def _hyper(self, field: str) -> float:
        """A beta or epsilon as a number: an eager Tensor's value; for a static Variable
        (an op input then) Paddle's default, which is also what fills the beta powers."""
        value = getattr(self, field)
        if isinstance(value, Variable):
            return _VARIABLE_DEFAULTS[field]
        return float(value)

    def _op_attrs(self, param) -> dict:
        return {"lazy_mode": self._lazy_mode, "min_row_size_to_use_multithread": 1000,
                "multi_precision": False, "beta1": self._hyper("_beta1"),
                "beta2": self._hyper("_beta2"), "epsilon": self._hyper("_epsilon")}

    def _op_tensor_inputs(self) -> dict:
        return {slot: [value] for slot, value in (
            ("Beta1Tensor", self._beta1), ("Beta2Tensor", self._beta2),
            ("EpsilonTensor", self._epsilon)) if isinstance(value, Variable)}


class AdamW(Adam):
    """Adam with decoupled weight decay: ``param *= 1 - lr * coeff`` before the Adam step,
    for the parameters ``apply_decay_param_fun(name)`` accepts (all by default)."""

    type = "adamw"

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-8,
                 parameters: Iterable | None = None, weight_decay: float = 0.01,
                 lr_ratio: Callable | None = None,
                 apply_decay_param_fun: Callable[[str], bool] | None = None,
                 grad_clip: Any = None, lazy_mode: bool = False, multi_precision: bool = False,
                 name: str | None = None):
        if weight_decay is None:
            raise ValueError("weight_decay is not set")
        if not isinstance(weight_decay, (float, int)) or isinstance(weight_decay, bool):
            raise TypeError("coeff should be float or Tensor.")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError("'lr_ratio' should be a function that takes a parameter and returns "
                            "its learning-rate ratio")
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, name=name)
        self._coeff = float(weight_decay)
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun

    def _op_attrs(self, param) -> dict:
        with_decay = (self._apply_decay_param_fun is None
                      or bool(self._apply_decay_param_fun(param.name)))
        ratio = 1.0 if self._lr_ratio is None else float(self._lr_ratio(param))
        return {**super()._op_attrs(param), "coeff": self._coeff, "with_decay": with_decay,
                "lr_ratio": ratio}
