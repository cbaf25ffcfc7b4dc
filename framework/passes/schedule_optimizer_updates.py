"""Schedule optimizer updates early: move each op with the Optimize role (sgd, momentum,
adam, adamw, and the clip/regularization ops around them) to just after the last earlier op
it depends on, so that a parameter's gradient is consumed, and its buffer freed, as soon as
backward has produced it instead of at the end of the step.

An op may move above another only when neither writes what the other reads or writes: the
moved op must stay after every op writing one of its inputs (the gradient, accumulators,
the learning rate) and after every op reading or writing one of its outputs (the parameter
it updates is read by the forward and backward ops). The arithmetic is unchanged, so the
results are bit-identical.
"""
from __future__ import annotations

from ...ops.registry import ROLE_OPTIMIZE
from ..operator import Operator
from ..program import Program
from .graph import PassContext, reads, sub_blocks, uses_shared_rng, writes


def _movable(program: Program, op: Operator) -> bool:
    """Optimize-role ops whose only effects are their outputs: user code (py_func), control
    flow and ops drawing random numbers keep their place."""
    return (bool(op.role & ROLE_OPTIMIZE) and op.type != "py_func" and bool(writes(op))
            and op.opdef is not None and op.opdef.has_kernel and not sub_blocks(program, op)
            and not uses_shared_rng(op))


def schedule_optimizer_updates(program: Program, ctx: PassContext) -> bool:
    block = program.global_block()
    if not any(op.role & ROLE_OPTIMIZE for op in block.ops):
        return False
    scheduled: list[tuple[Operator, set, set]] = []   # (op, reads, writes)
    changed = False
    for op in block.ops:
        op_reads, op_writes = set(reads(program, op)), set(writes(op))
        position = len(scheduled)
        if _movable(program, op):
            position = 0
            for index in range(len(scheduled) - 1, -1, -1):
                _, other_reads, other_writes = scheduled[index]
                if (other_writes & (op_reads | op_writes)) or (other_reads & op_writes):
                    position = index + 1
                    break
            changed |= position != len(scheduled)
        scheduled.insert(position, (op, op_reads, op_writes))
    if changed:
        block.ops = [op for op, _, _ in scheduled]
        program._bump()
    return changed
