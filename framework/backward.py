"""Reverse-mode autodiff over a Block: ``append_backward`` and ``gradients`` (argument
checks, seeds, parameter pairs and failure atomicity); the pass itself is in ``grad_pass``.
If anything fails, the block is restored: nothing is appended by a failing call.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..ops.registry import ROLE_BACKWARD, ROLE_FORWARD, ROLE_LOSS, grad_name
from . import unique_name
from .grad_blocks import BLOCK_GRAD_MAKERS
from .grad_pass import SEED_KEY, GradPass, strip_grad_suffix
from .variable import Parameter, Variable
from .verify import verify_if_checking

__all__ = ["append_backward", "calc_gradient", "gradients", "gradients_with_optimizer",
           "strip_grad_suffix"]


def append_backward(loss: Variable, parameter_list: Sequence | None = None,
                    no_grad_set: Iterable | None = None, callbacks: Sequence | None = None,
                    checkpoints: Any = None, distop_context: Any = None) -> list[tuple]:
    """Append the grad ops of ``loss`` to its block; return ``[(param, grad_var)]``."""
    if not isinstance(loss, Variable):
        raise TypeError("The type of 'loss' in paddle.static.append_backward must be "
                        f"<class 'paddle.static.Variable'>, but received {type(loss)}.")
    if callbacks is not None:
        if not isinstance(callbacks, (list, tuple)):
            raise TypeError("The type of 'callbacks' in paddle.static.append_backward must be "
                            f"(<class 'list'>, <class 'tuple'>), but received {type(callbacks)}.")
        for cb in callbacks:
            if not callable(cb):
                raise ValueError("'callback' must be a callable object.")
    block = loss.block
    params = _parameters(block, parameter_list)
    no_grad = _no_grad_names(block, no_grad_set)
    loss_op = loss.op or _producer(block, loss.name)
    seed = {"type": "fill_constant", "inputs": {}, "outputs": {"Out": [grad_name(loss.name)]},
            "attrs": {"shape": [] if len(loss.shape) == 0 else [1],
                      "value": 1.0, "dtype": int(loss.dtype), "force_cpu": False,
                      "op_role": ROLE_BACKWARD | ROLE_LOSS}, SEED_KEY: loss.name}
    with _Transaction(block) as txn:
        if loss_op is not None:
            txn.set_role(loss_op, ROLE_FORWARD | ROLE_LOSS)
        grads = GradPass(block, [loss.name], [seed], no_grad, None, callbacks,
                         block_grads=BLOCK_GRAD_MAKERS).run()
        # no parameter on the path is no error: as in Paddle, the grad ops are appended
        # (the gradients of non-parameter inputs, `x@GRAD`, can be fetched) and [] returned
        pairs = [(p, block.vars[grads[p.name]]) for p in params if p.name in grads]
        for param, grad in pairs:
            writer = _producer(block, grad.name)
            if writer is None:
                raise ValueError("Unexpected branch")
            writer._set_attr("op_role_var", [param.name, grad.name] + list(
                writer.attrs.get("op_role_var") or []))
        verify_if_checking(block.program, "append_backward")   # PYFLUID_CHECKS=1
    return pairs


def gradients(targets, inputs, target_gradients=None, no_grad_set=None) -> list:
    """Gradients of ``targets`` w.r.t. ``inputs`` (one grad Variable or None per input)."""
    targets = _as_var_list(targets, "targets")
    inputs = _as_var_list(inputs, "inputs")
    if target_gradients is not None:
        target_gradients = _as_var_list(target_gradients, "target_gradients", allow_none=True)
        if len(target_gradients) != len(targets):
            raise ValueError("Should have the same number of target_gradients as targets")
    if no_grad_set is not None and not isinstance(no_grad_set, (set, list, tuple)):
        raise TypeError("The type of no_grad_set should be set or list or tuple, but received "
                        f"{type(no_grad_set)}")
    block = targets[0].block
    if any(t.block is not block for t in targets):
        raise ValueError("all targets must be in the same block")
    if any(v.block.program is not block.program for v in inputs):
        raise ValueError("input must be in the same program as targets")
    no_grad = _no_grad_names(block, no_grad_set)
    seeds, given = [], {}
    for i, target in enumerate(targets):
        supplied = target_gradients[i] if target_gradients else None
        if supplied is None:
            seeds.append({"type": "fill_any_like", "inputs": {"X": [target.name]},
                          "outputs": {"Out": [grad_name(target.name)]},
                          "attrs": {"value": 1.0, "dtype": int(target.dtype)}, SEED_KEY: target.name})
        else:
            if tuple(supplied.shape) != tuple(target.shape):
                raise ValueError("The shapes of target and grad are different: "
                                 f"{target.shape} {supplied.shape}")
            given[target.name] = supplied.name
    with _Transaction(block):
        grads = GradPass(block, [t.name for t in targets], seeds, no_grad,
                         {v.name for v in inputs}, None, given,
                         block_grads=BLOCK_GRAD_MAKERS).run()
        verify_if_checking(block.program, "gradients")         # PYFLUID_CHECKS=1
    return [block.vars[grads[v.name]] if v.name in grads else None for v in inputs]


def gradients_with_optimizer(program, optimizer, inputs=None, outputs=None) -> tuple:
    """Differentiate ``outputs`` w.r.t. ``inputs`` (default: vars produced but never consumed,
    and vars consumed but never produced) and apply ``optimizer`` to the parameter grads."""
    from .program import Program
    if not isinstance(program, Program):
        raise TypeError(f"The type of 'program' must be Program, but received {type(program)}.")
    block = program.global_block()
    produced = {n for op in block.ops for n in op.output_arg_names}
    consumed = {n for op in block.ops for n in op.input_arg_names}
    if inputs is None:
        inputs = [v for n, v in block.vars.items() if n in consumed and n not in produced]
    if outputs is None:
        outputs = [v for n, v in block.vars.items() if n in produced and n not in consumed]
    grads = gradients(outputs, inputs)
    params_grads = [(v, g) for v, g in zip(inputs, grads)
                    if isinstance(v, Parameter) and g is not None]
    with program._role_guard(ROLE_FORWARD):
        optimize_ops = optimizer.apply_gradients(params_grads)
    return optimize_ops, params_grads


def calc_gradient(targets, inputs, target_gradients=None, no_grad_set=None):
    """Like ``gradients`` but a bare Variable when there is one input (Paddle's calc_gradient)."""
    result = gradients(targets, inputs, target_gradients, no_grad_set)
    return result[0] if len(result) == 1 and not isinstance(inputs, (list, tuple)) else result



def _parameters(block, parameter_list) -> list[Parameter]:
    program = block.program
    if parameter_list is None:
        return [p for p in program.global_block().all_parameters() if p.trainable]
    if not isinstance(parameter_list, (list, tuple, set)):
        raise TypeError("The type of 'parameter_list' in append_backward must be (<class 'list'>, "
                        f"<class 'tuple'>, <class 'set'>), but received {type(parameter_list)}.")
    params = []
    for i, p in enumerate(parameter_list):
        if isinstance(p, str):
            p = program.global_block()._find_var_recursive(p) or _missing_param(p)
        elif not isinstance(p, Variable):
            raise TypeError(f"The type of 'parameter_list[{i}]' in append_backward must be "
                            f"(<class 'Variable'>, <class 'str'>), but received {type(p)}.")
        params.append(p)
    return params


def _missing_param(name: str):
    raise ValueError(f"parameter '{name}' in parameter_list is not a variable of the program")


def _no_grad_names(block, no_grad_set) -> set[str]:
    if no_grad_set is not None and not isinstance(no_grad_set, (set, list, tuple)):
        raise TypeError("The type of no_grad_set should be set or list or tuple, but received "
                        f"{type(no_grad_set)}")
    names = set()
    for member in no_grad_set or ():
        if isinstance(member, Variable):
            names.add(grad_name(member.name))
        elif isinstance(member, str):
            names.add(grad_name(member))
        else:
            raise TypeError("The type of no_grad_set's member must be paddle.base.Variable or "
                            f"str, but received {type(member)}.")
    for b in block.program.blocks:
        names.update(grad_name(v.name) for v in b.vars.values() if v.stop_gradient)
    return names


def _as_var_list(value, what: str, allow_none: bool = False) -> list:
    if isinstance(value, Variable):
        return [value]
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"The type of '{what}' in paddle.static.gradients must be (<class "
                        f"'Variable'>, <class 'list'>, <class 'tuple'>), but received {type(value)}.")
    for v in value:
        if not isinstance(v, Variable) and not (allow_none and v is None):
            raise TypeError(f"The type of '{what}' elements in paddle.static.gradients must be "
                            f"Variable, but received {type(v)}.")
    return list(value)


def _producer(block, name: str):
    for op in reversed(block.ops):
        if name in op.output_arg_names:
            return op
    return None


class _Transaction:
    """Undo every change to the block if the body raises."""

    def __init__(self, block):
        self.block = block
        self.roles: list[tuple[Any, int]] = []

    def set_role(self, op, role: int) -> None:
        self.roles.append((op, op.attrs.get("op_role", 0)))
        op._set_attr("op_role", role)

    def __enter__(self) -> "_Transaction":
        program = self.block.program
        self.n_blocks = len(program.blocks)        # grad blocks the pass may add
        self.n_ops = len(self.block.ops)
        self.var_names = set(self.block.vars)
        self.grad_times = program._appending_grad_times
        self.name_state = dict(unique_name._generator.ids)
        program._appending_grad_times += 1
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            return
        block = self.block
        program = block.program
        del program.blocks[self.n_blocks:]
        for b in program.blocks:
            if b.backward_block_idx >= self.n_blocks:
                b.backward_block_idx = -1
        program.current_block_idx = min(program.current_block_idx, self.n_blocks - 1)
        del block.ops[self.n_ops:]
        block.vars = {k: v for k, v in block.vars.items() if k in self.var_names}
        for op, role in self.roles:
            op._set_attr("op_role", role)
        block.program._appending_grad_times = self.grad_times
        unique_name._generator.ids.clear()
        unique_name._generator.ids.update(self.name_state)
        block.program._bump()

