"""The Optimizer base class (``paddle.optimizer.Optimizer``), static and eager.

Static mode, ``minimize(loss)`` = ``backward`` (append_backward) + ``apply_gradients``:
params sorted by name, grad clip, regularization (``scale`` + ``sum`` into the grad), then per
parameter one update op (op_role Optimize, op_role_var [param, grad]) reading
``learning_rate_<n>`` and accumulators ``<param>_<acc>_<n>``, all created in the main program's
global block and filled by ``fill_constant`` in the startup program.

Eager mode, ``step()`` runs the same registered op kernels on the parameters' arrays, keeping the
accumulators per parameter name.

A subclass declares its update op: ``type``, ``_accumulator_slots`` (op input slot ->
accumulator; its output slot is ``<slot>Out``), ``_accumulator_init(param)`` and
``_op_attrs(param)``.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Sequence

import numpy as np

from ..framework.backward import append_backward
from ..framework.context import default_main_program, in_dynamic_mode, program_guard
from ..framework.layer_helper import LayerHelper
from ..framework import unique_name
from ..framework.variable import Parameter, Variable
from ..nn.clip import append_gradient_clip_ops
from ..nn.initializer import Constant
from ..ops.registry import ROLE_LRSCHED, ROLE_OPTIMIZE
from ..ops.types import VarType
from ..regularizer import L2Decay, WeightDecayRegularizer
from . import eager_step, param_groups
from .lr import LRScheduler

__all__ = ["Optimizer"]


class Optimizer:
    """Base of SGD, Momentum, Adam, AdamW."""

    type = ""
    _accumulator_slots: dict[str, str] = {}
    _group_options: dict[str, str] = {}      # parameter-group key -> hyperparameter attribute
    _static_by_default = False    # fluid.optimizer's: no parameters means a static optimizer

    def __init__(self, learning_rate: float | LRScheduler, parameters: Iterable | None = None,
                 weight_decay: float | WeightDecayRegularizer | None = None,
                 grad_clip: Any = None, name: str | None = None):
        if parameters is not None:
            if isinstance(parameters, (Variable, dict)) or hasattr(parameters, "_array"):
                raise TypeError("`parameters` argument given to the optimizer should be an "
                                "iterable of paddle Tensors, but got argument type is "
                                f"`{type(parameters)}`.")
            parameters = list(parameters)
        groups = None
        if parameters and isinstance(parameters[0], dict):
            parameters, groups = param_groups.split(parameters)
        if in_dynamic_mode() and parameters is None and not self._static_by_default:
            raise AttributeError("parameters argument given to the Optimizer should not be None "
                                 "in dygraph mode.")
        if not isinstance(learning_rate, (float, LRScheduler)):
            raise TypeError("learning rate should be float or LRScheduler, got "
                            f"{type(learning_rate)} here")
        if grad_clip is not None and not callable(grad_clip):
            raise TypeError("'grad_clip' should be an instance of GradientClipBase's derived "
                            "class")
        if weight_decay is not None and not isinstance(weight_decay,
                                                       (float, WeightDecayRegularizer)):
            raise TypeError("weight_decay should be a float or a paddle.regularizer "
                            f"(L1Decay/L2Decay), got {type(weight_decay)}")
        self._learning_rate = learning_rate
        self._parameter_list = parameters
        self._name = name
        self._grad_clip = grad_clip
        self.regularization = (L2Decay(weight_decay) if isinstance(weight_decay, float)
                               else weight_decay)
        self._dtype = parameters[0].dtype if parameters else None
        self._learning_rate_map: dict[Any, Variable] = {}
        self._accumulators: defaultdict[str, dict[str, Any]] = defaultdict(dict)
        self.helper: LayerHelper | None = None
        self._eager_params: set[str] = set()        # eager params whose accumulators exist
        self._param_groups = groups
        if groups is not None:
            param_groups.configure(groups, self.regularization)

    def _group_of(self, param) -> dict | None:
        for group in self._param_groups or ():
            if any(p is param for p in group["params"]):
                return group
        return None

    # -- learning rate ----------------------------------------------------------------------
    def get_lr(self) -> float:
        lr = self._learning_rate
        return float(lr()) if isinstance(lr, LRScheduler) else float(lr)

    def set_lr(self, value: float) -> None:
        """Change a float learning rate (eager mode, as in Paddle)."""
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("optimizer's learning rate can't be LRScheduler when invoke this "
                               "API, because this will lead to conflict.")
        if not isinstance(value, (int, float)):
            raise TypeError(f"The type of 'value' in optimizer.set_lr must be float, but "
                            f"received {type(value)}.")
        self._learning_rate = float(value)

    def _global_learning_rate(self, program=None) -> Variable | None:
        return self._learning_rate_map.get(program or default_main_program())

    def _create_global_learning_rate(self) -> None:
        """``learning_rate_<n>`` (shape [1], persistable) once per main program, filled in the
        startup program; with an LRScheduler the program also records the scheduler."""
        program = default_main_program()
        if self._global_learning_rate(program) is not None:
            return
        dtype = self._dtype if self._dtype is not None else VarType.FP32
        if dtype in (VarType.FP16, VarType.BF16):
            dtype = VarType.FP32
        lr_var = program.global_block().create_var(
            name=unique_name.generate("learning_rate"), shape=[1], dtype=dtype,
            persistable=True, stop_gradient=True)
        if isinstance(self._learning_rate, LRScheduler):
            self._learning_rate._var_name = lr_var.name
            program.lr_scheduler = self._learning_rate
        self.helper.set_variable_initializer(lr_var, Constant(self.get_lr()))
        self._learning_rate_map[program] = lr_var

    def _create_param_lr(self, param: Parameter) -> Variable:
        """The global lr, times the parameter's ``optimize_attr['learning_rate']`` if not 1."""
        lr = self._global_learning_rate()
        scale = param.optimize_attr.get("learning_rate", 1.0)
        if isinstance(scale, Variable):
            return scale
        if scale == 1.0:
            return lr
        with default_main_program()._role_guard(ROLE_LRSCHED | ROLE_OPTIMIZE):
            return lr * float(scale)

    # -- accumulators -----------------------------------------------------------------------
    def _accumulator_init(self, param) -> list[tuple[str, float, list | None, str | None]]:
        """[(name, fill value, shape or None for the param's, device)] in creation order."""
        return []

    def _add_accumulator(self, name: str, param: Parameter, dtype: Any = None,
                         fill_value: float = 0.0, shape: Sequence[int] | None = None,
                         device: str | None = None) -> Variable:
        if self._name is not None:
            name = f"{self._name}_{name}"
        if param.name in self._accumulators[name]:
            raise Exception(f"Accumulator {name} already exists for parameter {param.name}")
        var = default_main_program().global_block().create_var(
            name=unique_name.generate(f"{param.name}_{name}"), persistable=True,
            dtype=dtype or param.dtype, shape=list(param.shape if shape is None else shape),
            type=param.type, belong_to_optimizer=True)
        startup_var = self.helper.set_variable_initializer(var, Constant(float(fill_value)))
        if device is not None and startup_var.op is not None:
            startup_var.op._set_attr("op_device", device)
        self._accumulators[name][param.name] = var
        return var

    def _get_accumulator(self, name: str, param) -> Any:
        if self._name is not None:
            name = f"{self._name}_{name}"
        if param.name not in self._accumulators[name]:
            raise Exception(f"Accumulator {name} does not exist for parameter {param.name}")
        return self._accumulators[name][param.name]

    def _create_accumulators(self, params: list) -> None:
        for param in params:
            for name, fill, shape, device in self._accumulator_init(param):
                acc_dtype = VarType.FP32 if param.dtype in (VarType.FP16, VarType.BF16) else None
                self._add_accumulator(name, param, acc_dtype, fill, shape, device)

    # -- static mode --------------------------------------------------------------------------
    def minimize(self, loss: Any, startup_program=None, parameters: Sequence | None = None,
                 no_grad_set: Iterable | None = None) -> tuple:
        """Append backward and update ops for ``loss``; return (optimize_ops, params_grads)."""
        if not isinstance(loss, Variable):
            if hasattr(loss, "_array"):
                params_grads = self._eager_params_grads()
                self.step()
                return None, params_grads
            raise TypeError("The loss should be an Tensor.")
        params_grads = self.backward(loss, startup_program, parameters, no_grad_set)
        program = loss.block.program
        with program_guard(program, startup_program):
            optimize_ops = self.apply_gradients(params_grads)
        return optimize_ops, params_grads

    def backward(self, loss: Variable, startup_program=None, parameters: Sequence | None = None,
                 no_grad_set: Iterable | None = None, callbacks: Sequence | None = None) -> list:
        """append_backward with non-trainable parameters added to the no-grad set."""
        no_grad = _no_grad_set_names(no_grad_set)
        program = loss.block.program
        no_grad.update(p.name for p in program.global_block().all_parameters() if not p.trainable)
        if self._dtype is None:
            self._dtype = loss.dtype
        parameter_list = parameters if parameters else self._parameter_list
        with program_guard(program, startup_program):
            return append_backward(loss, parameter_list, no_grad, callbacks)

    def apply_gradients(self, params_grads: list) -> list:
        """Clip, regularize and append the update ops; return those ops."""
        params_grads = sorted(params_grads, key=lambda pg: pg[0].name)
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        else:
            params_grads = append_gradient_clip_ops(params_grads)
        params_grads = self._append_regularization_ops(params_grads)
        return self._create_optimization_pass(params_grads)

    def _regularizer_of(self, param) -> WeightDecayRegularizer | None:
        return getattr(param, "regularizer", None) or self.regularization

    def _append_regularization_ops(self, params_grads: list) -> list:
        out = []
        for param, grad in params_grads:
            regularizer = self._regularizer_of(param)
            if grad is not None and regularizer is not None:
                block = grad.block
                with block.program._optimized_guard([param, grad]):
                    term = regularizer(param, grad, block)
                    block.append_op(type="sum", inputs={"X": [grad, term]},
                                    outputs={"Out": [grad]}, attrs={"use_mkldnn": False})
            out.append((param, grad))
        return out

    def _create_optimization_pass(self, params_grads: list) -> list:
        program = default_main_program()
        block = program.current_block()     # where backward put the gradients (a sub-block's
        start = len(block.ops)              # loss keeps them there, beside its ops)
        self.helper = LayerHelper(type(self).__name__)
        self._create_global_learning_rate()
        self._create_accumulators([p for p, _ in params_grads if not p.stop_gradient])
        for param, grad in params_grads:
            if grad is None or param.stop_gradient:
                continue
            with program._optimized_guard([param, grad]), \
                    param_groups.options(self, self._group_of(param)):
                self._append_optimize_op(block, param, grad)
        return block.ops[start:]

    def _append_optimize_op(self, block, param: Parameter, grad: Variable):
        accs = {slot: self._get_accumulator(acc, param)
                for slot, acc in self._accumulator_slots.items()}
        inputs = {"Param": [param], "Grad": [grad], "LearningRate": [self._create_param_lr(param)],
                  **{slot: [v] for slot, v in accs.items()}, **self._op_tensor_inputs()}
        outputs = {"ParamOut": [param], **{f"{slot}Out": [v] for slot, v in accs.items()}}
        return block.append_op(type=self.type, inputs=inputs, outputs=outputs,
                               attrs=self._op_attrs(param))

    def _op_attrs(self, param) -> dict:
        return {}

    def _op_tensor_inputs(self) -> dict:
        """Hyperparameters given as static Variables, fed to the op as inputs (Adam's betas)."""
        return {}

    # -- eager mode ---------------------------------------------------------------------------
    def _eager_params_grads(self) -> list:
        return [(p, p.grad) for p in self._parameter_list or []
                if not p.stop_gradient and p.grad is not None]

    def step(self) -> None:
        """Update every eager parameter that has a gradient (same kernels as static mode)."""
        eager_step.step(self)

    def _check_eager_grads(self, params_grads: list) -> None:
        """Refuse what Paddle's step() refuses (see Adam)."""

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Reset the gradients of the eager parameters (zeros, or None)."""
        for param in self._parameter_list or []:
            if getattr(param, "grad", None) is None:
                continue
            param.clear_gradient(set_to_zero)   # zeros as a free broadcast view (eager)

    clear_gradients = clear_grad

    # -- state ----------------------------------------------------------------------------------
    def get_opti_var_name_list(self) -> list[str]:
        """The names of the optimizer's state variables (accumulators)."""
        return [value.name if isinstance(value, Variable) else f"{param_name}_{key}_0"
                for key, per_param in self._accumulators.items()
                for param_name, value in per_param.items()]

    def state_dict(self) -> dict:
        """Accumulators by variable name (``<param>_<acc>_0``; eager values as Tensors) and the
        scheduler's state under ``LR_Scheduler``."""
        from ..engine import Tensor
        state: dict[str, Any] = {}
        for key, per_param in self._accumulators.items():
            for param_name, value in per_param.items():
                if isinstance(value, Variable):
                    state[value.name] = value
                else:
                    state[f"{param_name}_{key}_0"] = Tensor(value)
        if isinstance(self._learning_rate, LRScheduler):
            state["LR_Scheduler"] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        """Restore eager accumulators and the scheduler from ``state_dict()`` output."""
        if isinstance(self._learning_rate, LRScheduler) and "LR_Scheduler" in state_dict:
            self._learning_rate.set_state_dict(state_dict["LR_Scheduler"])
        for param in self._parameter_list or []:
            for name, *_ in self._accumulator_init(param):
                key = f"{self._name}_{name}" if self._name is not None else name
                value = state_dict.get(f"{param.name}_{key}_0")
                if value is not None:
                    self._accumulators[key][param.name] = np.array(
                        value._array if hasattr(value, "_array") else value)
                    self._eager_params.add(param.name)


def _no_grad_set_names(no_grad_set: Iterable | None) -> set[str]:
    names: set[str] = set()
    if no_grad_set is None:
        return names
    if not isinstance(no_grad_set, (set, list, tuple)):
        raise TypeError("The type of no_grad_set should be set or list or tuple, but received "
                        f"{type(no_grad_set)}")
    for var in no_grad_set:
        if isinstance(var, Variable):
            names.add(var.name)
        elif isinstance(var, str):
            names.add(var)
        else:
            raise TypeError("The type of no_grad_set's member must be paddle.base.Variable or "
                            f"str, but received {type(var)}.")
    return names

