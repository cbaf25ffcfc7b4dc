"""Gradient all-reduces as the Executor runs them: started when their bucket is complete,
waited for only where a value is needed, so communication overlaps the rest of backward.

A data-parallel program (as ``fleet`` writes it, Paddle 2.6's shape) holds for each bucket::

    coalesce_tensor(Input=params, Output=grads, FusedOutput=F, copy_data=False)  # aliases
    ... backward ops writing the grads ...
    c_allreduce_sum(X=F, Out=F)          # after the bucket's last gradient
    depend(X=g, Dep=F, Out=g)            # for each g: grads are read only after the reduction

On a GPU the grads live inside ``F``, so reducing ``F`` reduces them. Kernels here return new
arrays instead of writing into shared memory, so a plan runs, in place of those ops::

    F = c_allreduce_start(X=grads)       # flatten the current grads, start the reduction
    ... the rest of backward ...
    grads = c_allreduce_wait(X=F)        # just before the first op that reads a grad

An all-reduce of a plain variable (``fuse_all_reduce_ops=False``) becomes the same pair with a
bucket of one. With ``use_calc_stream=True`` the wait follows the start at once. The program
the user holds, prints and saves is never changed: this works on a clone.
"""
from __future__ import annotations

from ..framework.program import Program
from ..ops.registry import ROLE_BACKWARD

_STARTED = "@ALLREDUCE"     # suffix of the variable that holds a pending reduction


def lower_collectives(program: Program) -> Program:
    """``program``, or a clone whose gradient all-reduces start early and are waited for late."""
    if not any(op.type == "c_allreduce_sum" for op in program.global_block().ops):
        return program
    work = program.clone()
    block = work.global_block()
    ops = list(block.ops)
    aliases = {op.output("FusedOutput")[0]: (op, list(op.output("Output")))
               for op in ops if op.type == "coalesce_tensor" and not op.attrs.get("copy_data")}
    for op in [op for op in ops if _is_lowerable(op)]:
        index = ops.index(op)
        name = op.input("X")[0]
        coalesce, members = aliases.get(name, (None, [name]))
        pending = name + _STARTED
        block.create_var(name=pending, stop_gradient=True)
        start = block._make_op("c_allreduce_start", {"X": members}, {"Out": [pending]},
                               {"ring_id": op.attrs.get("ring_id", 0), "op_role": ROLE_BACKWARD})
        wait = block._make_op("c_allreduce_wait", {"X": [pending]}, {"Out": members},
                              {"op_role": ROLE_BACKWARD})
        ops[index] = start
        ops = [o for o in ops if not _waits_on(o, name)]
        index = ops.index(start)
        if op.attrs.get("use_calc_stream"):
            ops.insert(index + 1, wait)
        else:
            ops.insert(_first_use(ops, index + 1, set(members) | {name}), wait)
        if coalesce is not None and _all_rewritten(ops, coalesce, start, members):
            ops.remove(coalesce)     # its zero-filled outputs are all overwritten before use
    block.ops = ops
    work._bump()
    return work


def _is_lowerable(op) -> bool:
    x, out = op.input("X"), op.output("Out")
    return (op.type == "c_allreduce_sum" and len(x) == 1 and x == out
            and not op.input("Cond"))


def _waits_on(op, name: str) -> bool:
    """A ``depend`` that only orders its value after the reduction of ``name``."""
    return op.type == "depend" and name in op.input("Dep") and op.input("X") == op.output("Out")


def _first_use(ops: list, start: int, names: set) -> int:
    """Index of the first op from ``start`` on that reads or writes one of ``names``."""
    for index in range(start, len(ops)):
        if names.intersection(ops[index].input_arg_names) or names.intersection(
                ops[index].output_arg_names):
            return index
    return len(ops)


def _all_rewritten(ops: list, coalesce, start, members: list) -> bool:
    """Is every member written, before anything reads it, between the two ops?"""
    pending = set(members)
    for op in ops[ops.index(coalesce) + 1:ops.index(start)]:
        if pending.intersection(op.input_arg_names):
            return False
        pending.difference_update(op.output_arg_names)
    return not pending
