"""``paddle.optimizer.lr``: learning-rate schedulers.

A scheduler's value is ``scheduler()``; ``scheduler.step()`` advances it (the user calls it,
per step or per epoch). In static mode the optimizer stores the learning rate in the persistable
variable ``learning_rate_<n>`` and sets ``program.lr_scheduler``; the Executor calls
``_refresh(program, scope)`` before each run, which writes the current value into that variable.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from ..ops.types import to_numpy_dtype

__all__ = ["CosineAnnealingDecay", "ExponentialDecay", "InverseTimeDecay", "LambdaDecay",
           "LRScheduler", "LinearWarmup", "MultiStepDecay", "NaturalExpDecay", "NoamDecay",
           "PiecewiseDecay", "PolynomialDecay", "StepDecay"]


class LRScheduler:
    """Base class: subclasses implement ``get_lr()`` from ``base_lr`` and ``last_epoch``."""

    def __init__(self, learning_rate: float = 0.1, last_epoch: int = -1, verbose: bool = False):
        if not isinstance(learning_rate, (float, int)) or isinstance(learning_rate, bool):
            raise TypeError("The type of learning rate must be float, but received "
                            f"{type(learning_rate)}")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name: str | None = None
        self.step()

    def __call__(self) -> float:
        return self.last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to ``epoch``) and recompute the learning rate."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed_form() if closed_form else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def get_lr(self) -> float:
        raise NotImplementedError

    def state_dict(self) -> dict:
        return {"last_epoch": self.last_epoch, "last_lr": self.last_lr}

    def set_state_dict(self, state_dict: dict) -> None:
        self.last_epoch = state_dict["last_epoch"]
        self.last_lr = state_dict["last_lr"]

    set_dict = set_state_dict

    def _refresh(self, program, scope) -> None:
        """Write the current value into the program's learning-rate variable (Executor hook)."""
        var = program.global_block().vars.get(self._var_name) if self._var_name else None
        if var is None:
            return
        value = np.full(var.shape or (1,), self.last_lr, dtype=to_numpy_dtype(var.dtype))
        scope.var(var.name).get_tensor().set(value)


class StepDecay(LRScheduler):
    """``base_lr * gamma ** (epoch // step_size)``."""

    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False):
        if not isinstance(step_size, int):
            raise TypeError(f"The type of 'step_size' must be 'int', but received "
                            f"{type(step_size)}.")
        if gamma >= 1.0:
            raise ValueError("gamma should be < 1.0.")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    """``base_lr * gamma ** (number of milestones passed)``."""

    def __init__(self, learning_rate: float, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError("The type of 'milestones' in 'MultiStepDecay' must be 'tuple, "
                            f"list', but received {type(milestones)}.")
        if not all(a < b for a, b in zip(milestones[:-1], milestones[1:])):
            raise ValueError("The elements of milestones must be incremented")
        if gamma >= 1.0:
            raise ValueError("gamma should be < 1.0.")
        self.milestones, self.gamma = list(milestones), gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while ``epoch < boundaries[i]``, then ``values[-1]``."""

    def __init__(self, boundaries: Sequence[int], values: Sequence[float], last_epoch: int = -1,
                 verbose: bool = False):
        if len(boundaries) == 0:
            raise ValueError("The boundaries cannot be empty.")
        if len(values) <= len(boundaries):
            raise ValueError("The values have one more element than boundaries, but received "
                             f"len(values) [{len(values)}] < len(boundaries) + 1 "
                             f"[{len(boundaries) + 1}].")
        self.boundaries, self.values = list(boundaries), list(values)
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self) -> float:
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[len(self.values) - 1]


class ExponentialDecay(LRScheduler):
    """``base_lr * gamma ** epoch``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False):
        if not 0.0 < gamma < 1.0:
            raise ValueError(" 'gamma' must be in interval (0.0, 1.0) so that the learning "
                             "rate will decay.")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** self.last_epoch


class LambdaDecay(LRScheduler):
    """``base_lr * lr_lambda(epoch)``."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float],
                 last_epoch: int = -1, verbose: bool = False):
        if not callable(lr_lambda):
            raise TypeError("The type of 'lr_lambda' in 'LambdaDecay' must be 'function', but "
                            f"received {type(lr_lambda)}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.lr_lambda(self.last_epoch)


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from ``base_lr`` to ``eta_min`` over ``T_max`` epochs (recursive form,
    as Paddle computes it; ``step(epoch)`` uses the closed form)."""

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0,
                 last_epoch: int = -1, verbose: bool = False):
        if not isinstance(T_max, int):
            raise TypeError("The type of 'T_max' in 'CosineAnnealingDecay' must be 'int', but "
                            f"received {type(T_max)}.")
        if not isinstance(eta_min, (float, int)):
            raise TypeError("The type of 'eta_min' in 'CosineAnnealingDecay' must be 'float, "
                            f"int', but received {type(eta_min)}.")
        if T_max <= 0:
            raise ValueError(" 'T_max' must be a positive integer.")
        self.T_max, self.eta_min = T_max, float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch == 0:
            return self.base_lr
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (
                1 - math.cos(math.pi / self.T_max)) / 2
        return ((1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (self.last_lr - self.eta_min) + self.eta_min)

    def _get_closed_form_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class LinearWarmup(LRScheduler):
    """Rise linearly from ``start_lr`` to ``end_lr`` over ``warmup_steps``, then follow
    ``learning_rate`` (a number, or a scheduler stepped from 0 after the warmup)."""

    def __init__(self, learning_rate: float | LRScheduler, warmup_steps: int, start_lr: float,
                 end_lr: float, last_epoch: int = -1, verbose: bool = False):
        if not isinstance(learning_rate, (float, int, LRScheduler)) or \
                isinstance(learning_rate, bool):
            raise TypeError("the type of learning_rate should be [int, float or LRScheduler], "
                            f"the current type is {learning_rate}")
        if not isinstance(warmup_steps, int) or warmup_steps <= 0:
            raise ValueError("'warmup_steps' must be a positive integer or 0")
        self.learning_rate, self.warmup_steps = learning_rate, warmup_steps
        self.start_lr, self.end_lr = start_lr, end_lr
        if end_lr <= start_lr:
            raise ValueError(f"end_lr {end_lr} must be greater than start_lr {start_lr}")
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / float(
                self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return float(self.learning_rate)


class PolynomialDecay(LRScheduler):
    """``(base_lr - end_lr) * (1 - epoch / decay_steps) ** power + end_lr`` (``cycle``
    restarts with a multiple of ``decay_steps``)."""

    def __init__(self, learning_rate: float, decay_steps: int, end_lr: float = 0.0001,
                 power: float = 1.0, cycle: bool = False, last_epoch: int = -1,
                 verbose: bool = False):
        if not isinstance(decay_steps, int) or decay_steps <= 0:
            raise ValueError(" 'decay_steps' must be a positive integer.")
        self.decay_steps, self.end_lr, self.power, self.cycle = decay_steps, end_lr, power, cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = self.decay_steps * (1 if epoch == 0 else math.ceil(epoch / self.decay_steps))
        else:
            epoch = min(epoch, self.decay_steps)
        return (self.base_lr - self.end_lr) * ((1 - float(epoch) / float(steps)) ** self.power) \
            + self.end_lr


class NaturalExpDecay(LRScheduler):
    """``base_lr * exp(-gamma * epoch)``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``base_lr / (1 + gamma * epoch)``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class NoamDecay(LRScheduler):
    """``base_lr * d_model ** -0.5 * min(epoch ** -0.5, epoch * warmup_steps ** -1.5)``."""

    def __init__(self, d_model: int, warmup_steps: int, learning_rate: float = 1.0,
                 last_epoch: int = -1, verbose: bool = False):
        if d_model <= 0:
            raise ValueError("d_model should be grater than 0")
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * (self.d_model ** -0.5) * min(a, b)
