"""A plain reference interpreter: a block's ops run one after another over a dict of values,
each with its registered pure kernel. No passes, no constant folding, no in-place kernels,
no buffer reuse, no generated code: the oracle the compiled plan (executor/plan.py) is
tested against (tests/test_interpreter_differential.py, tests/test_passes_differential.py)."""
from __future__ import annotations

from ..ops.registry import EMPTY_VAR, get_op


def read(env: dict, op, slot) -> object:
    """The kernel argument for input ``slot``: a value, a list (duplicable) or None."""
    values = [env[n] for n in op.inputs.get(slot.name, ()) if n != EMPTY_VAR]
    return values if slot.duplicable else (values[0] if values else None)


def write(env: dict, op, slot, value) -> None:
    """Bind the kernel's result for output ``slot`` to the op's variables."""
    names = op.outputs.get(slot.name, ())
    for name, v in zip(names, value if slot.duplicable else [value]):
        if name != EMPTY_VAR:
            env[name] = v


def run_op(op, env: dict) -> None:
    opdef = op.opdef or get_op(op.type)
    kernel, kwargs = opdef.bound_kernel(op.attrs, op)
    result = kernel(*[read(env, op, slot) for slot in opdef.inputs], **kwargs)
    results = (result,) if len(opdef.outputs) == 1 else (result or ())
    for slot, value in zip(opdef.outputs, results):
        write(env, op, slot, value)


def run_block(block, env: dict) -> dict:
    """Run every op of ``block`` (feed and fetch ops aside) on ``env`` (name -> value)."""
    for op in block.ops:
        if op.type not in ("feed", "fetch"):
            run_op(op, env)
    return env
