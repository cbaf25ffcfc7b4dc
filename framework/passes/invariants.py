"""Which ops of a program compute the same values on every run: those whose inputs are
parameters nothing in the program writes (nor the run feeds), or values of such ops. An
inference program's folded filters (fold_conv_bn) and transformed filters (conv_winograd) are
such values; the Executor computes them once and again only when a parameter changes
(executor/hoisting.py)."""
from __future__ import annotations

from ...ops.registry import EMPTY_VAR
from ..program import Program
from .graph import has_side_effects, usage


def constant_parameters(program: Program, feed_names=()) -> set[str]:
    """Persistable variables of the global block that no op of any block writes and the run
    does not feed."""
    _, writers = usage(program)
    block = program.global_block()
    return {name for name, var in block.vars.items()
            if var.persistable and not writers[name] and name not in feed_names}


def invariant_ops(program: Program, feed_names=()) -> list[bool]:
    """Per op of the global block: whether it computes the same values on every run (no
    side effects, no random numbers, at least one input, every input a constant parameter
    or a value of such an op). Empty for programs with sub-blocks (their reads are not all
    visible here)."""
    if len(program.blocks) > 1:
        return []
    known = constant_parameters(program, feed_names)
    _, writers = usage(program)
    found = []
    for op in program.global_block().ops:
        inputs = [n for n in op.input_arg_names if n != EMPTY_VAR]
        outputs = [n for n in op.output_arg_names if n != EMPTY_VAR]
        fixed = (bool(inputs) and all(n in known for n in inputs) and op.opdef is not None
                 and op.opdef.op_kernel is None and "seed" not in op.opdef.attrs
                 and not has_side_effects(program, op)
                 and all(writers[n] == 1 and n not in feed_names for n in outputs))
        if fixed:
            known.update(outputs)
        found.append(fixed)
    return found


def invariant_values(program: Program, feed_names=()) -> set[str] | None:
    """Names whose values are the same on every run: constant parameters and the outputs of
    invariant ops; None for programs with sub-blocks (see :func:`invariant_ops`)."""
    fixed = invariant_ops(program, feed_names)
    if not fixed:
        return None
    ops = program.global_block().ops
    return constant_parameters(program, feed_names) | {
        n for op, f in zip(ops, fixed) if f for n in op.output_arg_names}


def with_prepared_values(program: Program, ctx, prepare) -> bool:
    """Rewrite the global block's ops that can read a value prepared once from a run-invariant
    input (a transposed or transformed filter, hoisted by the Executor). ``prepare(op,
    block, invariant)`` returns None to keep ``op``, else ``(name, make_prep, make_op)``:
    ``make_prep(name)`` is the op computing the prepared value ``name`` (made once however
    many ops read it), ``make_op(name)`` the op replacing ``op``, which keeps its creation
    site and remembers the op it replaced."""
    invariant = invariant_values(program, ctx.feed_names)
    if invariant is None:
        return False
    block = program.global_block()
    new_ops, prepared = [], set()
    for op in block.ops:
        found = prepare(op, block, invariant)
        if found is None:
            new_ops.append(op)
            continue
        name, make_prep, make_op = found
        if name not in prepared:
            prepared.add(name)
            prep = make_prep(name)
            prep.site = op.site
            new_ops.append(prep)
        new = make_op(name)
        new.site = op.site
        new.fused_from = getattr(op, "fused_from", None) or [str(op).strip()]
        new_ops.append(new)
    if not prepared:
        return False
    block.ops = new_ops
    program._link_producers()
    program._bump()
    return True
