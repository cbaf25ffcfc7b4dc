"""Reverse-mode autodiff over a Block: ``append_backward`` and ``gradients``.

The pass works on op *specs* (plain dicts) and decides every name before it appends an op:

1. the op path: ops that lie between the sources and the targets, have a grad rule, and are
   not cut by stop_gradient / no_grad_set;
2. one spec list from each op's grad maker (``OpDef.make_grad_ops``), in reverse op order,
   after the seed ops (``fill_constant`` for append_backward, ``fill_any_like`` for gradients);
3. specs whose gradient inputs are all absent are dropped; absent gradient inputs of kept
   specs are zero-filled with ``fill_any_like`` (an output that does not reach the loss);
4. names: a gradient produced more than once is written as partials
   ``x@GRAD@RENAME@block0@k`` and added by one ``sum`` op right before its first reader; a
   gradient name that already exists in the block (double backward) gets a fresh name;
5. the specs are appended as ops with op_role Backward, each carrying its forward op's
   creation site, and gradient variables get their forward variable's shape and dtype.

If anything fails, the block is restored: nothing is appended by a failing call.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Sequence

from ..ops.registry import (EMPTY_VAR, ROLE_BACKWARD, ROLE_FORWARD, ROLE_LOSS, get_op,
                            grad_name, has_op)
from . import unique_name
from .variable import Parameter, Variable

_SEED = "__seed__"


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
                      "op_role": ROLE_BACKWARD | ROLE_LOSS}, _SEED: loss.name}
    with _Transaction(block) as txn:
        if loss_op is not None:
            txn.set_role(loss_op, ROLE_FORWARD | ROLE_LOSS)
        grads = _Pass(block, [loss.name], [seed], no_grad, None, callbacks).run()
        pairs = [(p, block.vars[grads[p.name]]) for p in params if p.name in grads]
        if not pairs:
            names = ", ".join(p.name for p in params) or "(the block has none)"
            raise ValueError(f"loss '{loss.name}' does not depend on any trainable parameter "
                             f"({names}): there is nothing to differentiate. Check that the "
                             "parameters are trainable and used to compute the loss, or pass "
                             "parameter_list explicitly.")
        for param, grad in pairs:
            writer = _producer(block, grad.name)
            if writer is None:
                raise ValueError("Unexpected branch")
            writer.attrs["op_role_var"] = [param.name, grad.name] + list(
                writer.attrs.get("op_role_var") or [])
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
                          "attrs": {"value": 1.0, "dtype": int(target.dtype)}, _SEED: target.name})
        else:
            if tuple(supplied.shape) != tuple(target.shape):
                raise ValueError("The shapes of target and grad are different: "
                                 f"{target.shape} {supplied.shape}")
            given[target.name] = supplied.name
    with _Transaction(block):
        grads = _Pass(block, [t.name for t in targets], seeds, no_grad,
                      {v.name for v in inputs}, None, given).run()
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


# -- the pass ----------------------------------------------------------------------------------
class _Pass:
    def __init__(self, block, targets: list[str], seeds: list[dict], no_grad: set[str],
                 sources: set[str] | None, callbacks, given: dict[str, str] | None = None):
        self.block = block
        self.targets = targets
        self.seeds = seeds
        self.no_grad = no_grad
        self.sources = sources
        self.callbacks = callbacks
        self.given = given or {}              # target -> user-supplied gradient var
        self.forward_of: dict[str, str] = {}  # final grad name -> forward var name

    def run(self) -> dict[str, str]:
        """Append the grad ops; return forward var name -> its gradient var name."""
        path = self._op_path()
        specs = list(self.seeds)
        for op in reversed(path):
            for spec in op.opdef.make_grad_ops(op, self.no_grad):
                spec["_fwd"] = op
                specs.append(spec)
        names = self._rename_map(specs)
        specs = self._apply_names(specs, names)
        specs = self._prune_and_fill(specs)
        specs = self._accumulate(specs)
        self._emit(specs)
        produced = {n for s in specs for ns in s["outputs"].values() for n in ns}
        result = {}
        for var in self.block.vars.values():
            final = names.get(grad_name(var.name), grad_name(var.name))
            if final in produced or (var.name in self.given and final in self.block.vars):
                result[var.name] = final
        return result

    def _op_path(self) -> list:
        ops = self.block.ops
        reachable = None
        if self.sources is not None:
            live, reachable = set(self.sources), set()
            for op in ops:
                if any(n in live for n in op.input_arg_names):
                    reachable.add(id(op))
                    live.update(op.output_arg_names)
        needed, path = set(self.targets), []
        for op in reversed(ops):
            opdef = op.opdef or (get_op(op.type) if has_op(op.type) else None)
            if opdef is None or (opdef.grad_fn is None and opdef.grad_maker is None):
                continue
            if reachable is not None and id(op) not in reachable:
                continue
            if not any(n in needed for n in op.output_arg_names):
                continue
            path.append(op)
            needed.update(n for n in op.input_arg_names if grad_name(n) not in self.no_grad)
        path.reverse()
        return path

    def _rename_map(self, specs: list[dict]) -> dict[str, str]:
        """Final names for gradients: user-supplied target grads, and fresh names where a
        gradient name already exists in the block (repeated or double backward)."""
        names = {grad_name(t): g for t, g in self.given.items()}
        for spec in specs:
            for ns in spec["outputs"].values():
                for n in ns:
                    if n != EMPTY_VAR and n not in names and n in self.block.vars:
                        names[n] = unique_name.generate(n)
        return names

    def _apply_names(self, specs: list[dict], names: dict[str, str]) -> list[dict]:
        for spec in specs:
            fwd = spec.get("_fwd")
            out_grads = ({grad_name(o) for o in fwd.output_arg_names} if fwd is not None
                         else set())
            fwd_inputs = set(fwd.input_arg_names) if fwd is not None else set()
            for slot, ns in spec["inputs"].items():
                for i, n in enumerate(ns):
                    is_grad_ref = n in out_grads and (n not in fwd_inputs or slot.endswith("@GRAD"))
                    if is_grad_ref and n in names:
                        ns[i] = names[n]
            for ns in spec["outputs"].values():
                for i, n in enumerate(ns):
                    if n == EMPTY_VAR:
                        continue
                    if n in self.no_grad:
                        ns[i] = EMPTY_VAR
                        continue
                    forward = n[:-len("@GRAD")] if n.endswith("@GRAD") else None
                    ns[i] = names.get(n, n)
                    if forward is not None:
                        self.forward_of[ns[i]] = forward
            spec["_grad_inputs"] = {names.get(g, g) for g in out_grads} & {
                n for ns in spec["inputs"].values() for n in ns}
        return specs

    def _prune_and_fill(self, specs: list[dict]) -> list[dict]:
        available: set[str] = set(self.given.values())
        kept = []
        for spec in specs:
            outs = [n for ns in spec["outputs"].values() for n in ns if n != EMPTY_VAR]
            grad_inputs = spec.get("_grad_inputs", set())
            if not outs or (grad_inputs and not grad_inputs & available):
                continue
            for missing in sorted(grad_inputs - available):
                forward = self.forward_of.get(missing) or strip_grad_suffix(missing)
                kept.append({"type": "fill_any_like", "inputs": {"X": [forward]},
                             "outputs": {"Out": [missing]}, "attrs": {"value": 0.0, "dtype": -1},
                             "_fwd": spec.get("_fwd")})
                self.forward_of[missing] = forward
                available.add(missing)
            _drop_empty_slots(spec)
            kept.append(spec)
            available.update(outs)
        return kept

    def _accumulate(self, specs: list[dict]) -> list[dict]:
        total = defaultdict(int)
        for spec in specs:
            for ns in spec["outputs"].values():
                for n in ns:
                    if n != EMPTY_VAR:
                        total[n] += 1
        counter: dict[str, int] = defaultdict(int)
        pending: dict[str, list[str]] = {}
        summed: set[str] = set()
        result = []

        def materialize(name: str, before: dict | None) -> None:
            parts = ([name] if name in summed else []) + pending.pop(name)
            result.append({"type": "sum", "inputs": {"X": parts}, "outputs": {"Out": [name]},
                           "attrs": {}, "_fwd": before.get("_fwd") if before else None})
            summed.add(name)
            self.forward_of.setdefault(name, strip_grad_suffix(name))

        for spec in specs:
            for n in [n for ns in spec["inputs"].values() for n in ns]:
                if n in pending:
                    materialize(n, spec)
            for ns in spec["outputs"].values():
                for i, n in enumerate(ns):
                    if n != EMPTY_VAR and total[n] > 1:
                        part = f"{n}@RENAME@block{self.block.idx}@{counter[n]}"
                        counter[n] += 1
                        ns[i] = part
                        pending.setdefault(n, []).append(part)
                        self.forward_of[part] = self.forward_of.get(n) or strip_grad_suffix(n)
            result.append(spec)
        for name in list(pending):
            materialize(name, None)
        return result

    def _emit(self, specs: list[dict]) -> None:
        block = self.block
        context = {g: f for g, f in self.forward_of.items()}
        program = block.program
        with program._role_guard(ROLE_BACKWARD):
            for spec in specs:
                for ns in spec["outputs"].values():
                    for n in ns:
                        if n != EMPTY_VAR and n not in block.vars:
                            self._create_grad_var(n)
                attrs = dict(spec["attrs"])
                if _SEED not in spec:
                    attrs["op_role"] = ROLE_BACKWARD
                op = block.append_op(type=spec["type"], inputs=spec["inputs"],
                                     outputs=spec["outputs"], attrs=attrs)
                fwd = spec.get("_fwd")
                if fwd is not None:
                    op.site = fwd.site
                for cb in self.callbacks or ():
                    context["__current_op_desc__"] = op
                    cb(block=block, context=context)

    def _create_grad_var(self, name: str) -> None:
        forward = self.block._find_var_recursive(self.forward_of.get(name) or strip_grad_suffix(name))
        if forward is not None and forward.has_tensor_desc:
            self.block.create_var(name=name, shape=forward.shape, dtype=forward.dtype)
        else:
            self.block.create_var(name=name, dtype="float32")


def strip_grad_suffix(name: str) -> str:
    """Paddle's ``_strip_grad_suffix_``: the forward name inside a gradient name. The pass
    itself never parses names (it records ``forward_of`` when it makes them); this is a
    fallback and a compatibility helper."""
    cut = name.find("@GRAD@")
    if cut != -1:
        name = name[:cut]
    elif name.endswith("@GRAD"):
        name = name[:-len("@GRAD")]
    marker = name.rfind("grad/")
    return name[marker + len("grad/"):] if marker != -1 else name


def _drop_empty_slots(spec: dict) -> None:
    opdef = get_op(spec["type"])
    for slot in list(spec["outputs"]):
        decl = opdef.slot(slot, outputs=True)
        if all(n == EMPTY_VAR for n in spec["outputs"][slot]) and not (decl and decl.duplicable):
            del spec["outputs"][slot]


# -- argument checking -------------------------------------------------------------------------
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
        op.attrs["op_role"] = role

    def __enter__(self) -> "_Transaction":
        program = self.block.program
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
        del block.ops[self.n_ops:]
        block.vars = {k: v for k, v in block.vars.items() if k in self.var_names}
        for op, role in self.roles:
            op.attrs["op_role"] = role
        block.program._appending_grad_times = self.grad_times
        unique_name._generator.ids.clear()
        unique_name._generator.ids.update(self.name_state)
        block.program._bump()

