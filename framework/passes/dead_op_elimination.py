"""Dead-op elimination: drop ops of the global block whose results this run never uses.

A reverse sweep from the fetch targets: an op stays when it writes a variable still needed
(read by a later kept op or fetched) or has side effects (``graph.has_side_effects``: control
flow always runs); a kept op's outputs stop being needed above it (it redefines them; a
control-flow op may not, so theirs stay needed) and its inputs, its blocks' reads included,
become needed. Temporaries are not kept between runs, so a dropped op changes nothing
observable except that it cannot fail any more (ops reading a temporary nothing sets, which
would report the missing input, stay). Random ops that draw from the shared generator stay
(dropping one would change what every later random op draws); seeded ones may go.
"""
from __future__ import annotations

from ..program import Program
from .graph import (PassContext, drop_unused_vars, has_side_effects, is_persistable, reads,
                    sub_blocks, writes)


def _reads_unset_input(program: Program, ctx: PassContext) -> list[bool]:
    """Per op: does it read a temporary that neither the feed nor an earlier op sets? Such
    an op reports the missing input when it runs, so it stays (errors do not depend on the
    passes); values only the scope can hold (persistables) are not checked here."""
    available = set(ctx.feed_names)
    flags = []
    for op in program.global_block().ops:
        flags.append(any(n not in available and not is_persistable(op, n)
                         for n in reads(program, op)))
        available.update(writes(op))
    return flags


def dead_op_elimination(program: Program, ctx: PassContext) -> bool:
    block = program.global_block()
    needed = set(ctx.fetch_names)
    checks_input = _reads_unset_input(program, ctx)
    kept, dropped = [], []
    for op, checks in zip(reversed(block.ops), reversed(checks_input)):
        outputs = writes(op)
        if has_side_effects(program, op) or checks or any(n in needed for n in outputs):
            if not sub_blocks(program, op):   # control flow may leave its outputs as they were
                needed.difference_update(outputs)
            needed.update(reads(program, op))
            kept.append(op)
        else:
            dropped.append(op)
    if not dropped:
        return False
    block.ops = kept[::-1]
    names = {n for op in dropped for n in op.input_arg_names + op.output_arg_names}
    drop_unused_vars(program, names - ctx.pinned)
    program._bump()
    return True
