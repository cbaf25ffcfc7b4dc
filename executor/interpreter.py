"""A plain reference interpreter: a block's ops run one after another over a dict of values,
each with its registered pure kernel. No passes, no constant folding, no in-place kernels,
no buffer reuse, no generated code: the oracle the compiled plan (executor/plan.py) is
tested against (tests/test_interpreter_differential.py, tests/test_passes_differential.py,
tests/test_control_flow_ir.py).

Control flow runs as Paddle's executor describes it, with real scopes: a sub-block runs in a
child scope holding the block's own variables, each loop step in a scope of its own, kept
(with the loop inputs as they were when the step started) for ``while_grad``, which replays
the steps newest first; ``conditional_block_grad`` runs in the branch's scope. The two fixes
pyfluid makes to Paddle's gradients (docs/control_flow.md) are the same as the plan's: the
gradients a grad block writes are its own, and an untaken branch passes the gradient of a
variable it would have overwritten through."""
from __future__ import annotations

import numpy as np

from ..ops.registry import EMPTY_VAR, get_op, grad_name
from ..ops.types import VarType
from .control_flow import (BLOCK_OPS, accumulate, check_while_condition, inputs_nonempty,
                           local_grad, scalar_condition, sub_blocks, zeros_like)


class Env:
    """A scope: values by name, ``parent`` for the names it does not hold, and ``claims``:
    names that become its own when first written (a grad block's gradients)."""

    def __init__(self, values: dict | None = None, parent: "Env | None" = None):
        self.values = {} if values is None else values
        self.parent = parent
        self.claims: set[str] = set()

    def holder(self, name: str) -> "Env | None":
        env = self
        while env is not None and name not in env.values:
            env = env.parent
        return env

    def get(self, name: str):
        env = self.holder(name)
        return None if env is None else env.values[name]

    def set(self, name: str, value) -> None:
        env = self
        while env is not None and name not in env.values and name not in env.claims:
            env = env.parent
        (env or self).values[name] = value

    def declare(self, block, skip=()) -> None:
        """A fresh scope's values for the block's own (non-persistable) variables."""
        for name, var in block.vars.items():
            if not var.persistable and name not in skip and name not in self.values:
                self.values[name] = [] if var.type == VarType.LOD_TENSOR_ARRAY else None


def read(env, op, slot) -> object:
    """The kernel argument for input ``slot``: a value, a list (duplicable) or None."""
    get = env.get if isinstance(env, Env) else env.__getitem__
    values = [get(n) for n in op.inputs.get(slot.name, ()) if n != EMPTY_VAR]
    return values if slot.duplicable else (values[0] if values else None)


def write(env, op, slot, value) -> None:
    """Bind the kernel's result for output ``slot`` to the op's variables."""
    put = env.set if isinstance(env, Env) else env.__setitem__
    names = op.outputs.get(slot.name, ())
    for name, v in zip(names, value if slot.duplicable else [value]):
        if name != EMPTY_VAR:
            put(name, v)


def run_op(op, env) -> None:
    opdef = op.opdef or get_op(op.type)
    if op.type in BLOCK_OPS:
        RUNNERS[op.type](op, env if isinstance(env, Env) else Env(env))
        return
    kernel, kwargs = opdef.bound_kernel(op.attrs, op)
    args = [read(env, op, slot) for slot in opdef.inputs]
    get = env.get if isinstance(env, Env) else env.get
    for name in opdef.reads_outputs:          # the current values of outputs it updates
        values = [get(n) for n in op.outputs.get(name, ())]
        args.append(values if opdef.slot(name, outputs=True).duplicable else
                    (values[0] if values else None))
    result = kernel(*args, **kwargs)
    results = (result,) if len(opdef.outputs) == 1 else (result or ())
    for slot, value in zip(opdef.outputs, results):
        write(env, op, slot, value)


def run_block(block, env) -> dict:
    """Run every op of ``block`` (feed and fetch ops aside) on ``env`` (name -> value, or an
    Env); returns the values."""
    scope = env if isinstance(env, Env) else Env(env)
    if scope.parent is None:
        scope.declare(block, skip=scope.values)
    for op in block.ops:
        if op.type not in ("feed", "fetch"):
            run_op(op, scope)
    return scope.values


# -- control flow -----------------------------------------------------------------------------
def _need_run(op, env: Env) -> bool:
    if op.attrs.get("is_scalar_condition"):
        return scalar_condition(env.get(op.input("Cond")[0]))
    return inputs_nonempty([env.get(n) for n in op.input("Input")])


def _conditional_block(op, env: Env) -> None:
    if _need_run(op, env):
        child = Env(parent=env)
        child.declare(sub_blocks(op)[0])
        env.set(op.output("Scope")[0], [child])
        run_block(sub_blocks(op)[0], child)


def _grad_scope(env: Env, grad_block) -> None:
    """A grad block's gradients are its own: declared ones and the ones its ops write."""
    env.declare(grad_block, skip=env.values)
    env.claims |= {n for o in grad_block.ops for n in o.output_arg_names} - {EMPTY_VAR}


def _conditional_block_grad(op, env: Env) -> None:
    pairs = [(x, g) for x, g in zip(op.input("Input"), op.output("Input@GRAD")) if g != EMPTY_VAR]
    if not _need_run(op, env):
        passing = set(op.input("Out@GRAD"))
        for x, g in pairs:
            if g not in passing:
                env.set(g, zeros_like(env.get(x)))
        return
    scopes = env.get(op.input("Scope")[0]) or [Env(parent=env)]
    cur, grad_block = scopes[0], sub_blocks(op)[0]
    for name, var in grad_block.vars.items():   # declared: local, but read through until set
        if not var.persistable:
            cur.claims.add(name)
    cur.claims |= {n for o in grad_block.ops for n in o.output_arg_names} - {EMPTY_VAR}
    run_block(grad_block, cur)
    for x, g in pairs:
        inside = cur.values.get(grad_name(x))
        env.set(g, local_grad(inside, env.get(x)) if grad_name(x) in cur.values
                else zeros_like(env.get(x)))


def _while(op, env: Env) -> None:
    body, cond = sub_blocks(op)[0], op.input("Condition")[0]
    check_while_condition(env.get(cond))
    steps = []
    if op.output("StepScopes"):
        env.set(op.output("StepScopes")[0], steps)
    params = {n for n, v in op.block.program.global_block().vars.items() if v.is_parameter}
    in_place = {n for o in body.ops for n in set(o.input_arg_names) & set(o.output_arg_names)}
    while np.asarray(env.get(cond)).reshape(-1)[0]:
        step = Env(parent=env)
        step.declare(body)
        snapshot = {n: env.get(n) for n in op.input("X")
                    if n not in params and n not in in_place and isinstance(env.get(n), np.ndarray)}
        run_block(body, step)
        if not op.attrs.get("is_test"):
            step.values.update(snapshot)
            steps.append(step)


def _while_grad(op, env: Env) -> None:
    if op.attrs.get("is_test"):
        raise ValueError("(InvalidArgument) WhileGradOp is only callable when is_test is false.")
    steps, grad_block = env.get(op.input("StepScopes")[0]) or [], sub_blocks(op)[0]
    og_out = op.input("Out@GRAD")
    og_in = list(op.attrs.get("original_output_grad") or og_out)
    outs = {grad_name(o): o for o in op.input("Out")}
    totals: dict[str, object] = {}
    for step in reversed(steps):
        for outside, inside in zip(og_out, og_in):
            value = env.get(outside)
            step.values[inside] = (value if value is not None
                                   else zeros_like(env.get(outs.get(outside, ""))))
        _grad_scope(step, grad_block)
        run_block(grad_block, step)
        for x, g in zip(op.input("X"), op.output("X@GRAD")):
            if g == EMPTY_VAR:
                continue
            if g in og_out:
                env.set(g, step.get(grad_name(x)))
            else:
                totals[g] = accumulate(totals.get(g), step.get(grad_name(x)))
    for x, g in zip(op.input("X"), op.output("X@GRAD")):
        if g != EMPTY_VAR and g not in og_out:
            total = totals.get(g)
            env.set(g, total if total is not None else zeros_like(env.get(x)))
    steps.clear()


RUNNERS = {"conditional_block": _conditional_block,
           "conditional_block_grad": _conditional_block_grad,
           "while": _while, "while_grad": _while_grad}
