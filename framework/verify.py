"""``verify(program)``: a well-formedness pass (def before use, declared variables, known ops,
slots, attribute types against the op declarations, sub-block references, block structure).
Raises ProgramError listing every problem found.

Blocks: block 0 has parent -1 and every other block an earlier parent. A BLOCK/BLOCKS
attribute (the ``sub_block`` of control flow) must name another block of the program, never
block 0, the op's own block or one of its ancestors, and no block may be run by two ops: so
running a program can neither recurse forever nor repeat a block's code. An op sees the
variables of its block and of its ancestors; a grad block (``forward_block_idx``) also sees its
forward block's, whose values the grad ops read.

Debug checks (``PYFLUID_CHECKS=1``, or ``BuildStrategy.debug_checks`` for one compiled
program): ``verify`` runs after ``append_backward``/``gradients`` and after every graph pass,
and the Executor's plan checks every op's outputs against the shapes and dtypes their
variables declare (executor/plan.py). Off, none of it costs anything."""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

from ..ops.registry import EMPTY_VAR
from ..ops.types import AttrType, VarType, coerce_attr
from .errors import ProgramError

if TYPE_CHECKING:
    from .program import Program


# inputs an op reads only if they were set: the incoming gradients of the control-flow grad
# ops (an output that does not reach the loss has none; the op uses zeros)
_MAY_BE_UNSET = {("while_grad", "Out@GRAD"), ("conditional_block_grad", "Out@GRAD")}


def checks_enabled() -> bool:
    """True when ``PYFLUID_CHECKS=1`` is set in the environment."""
    return os.environ.get("PYFLUID_CHECKS", "") == "1"


def verify_if_checking(program: "Program", after: str) -> None:
    """``verify(program)`` when debug checks are on; ``after`` says what just changed it."""
    if checks_enabled():
        verify(program, after)


def verify(program: "Program", after: str = "") -> None:
    """Check ``program``; ``after`` (e.g. "graph pass 'fuse_fc'") is named in the error."""
    title = f"program failed verification{f' after {after}' if after else ''}:\n  "
    problems = [f"block {block.idx}: bad parent index {block.parent_idx} (a block's parent "
                "must be an earlier block; block 0 has parent -1)"
                for i, block in enumerate(program.blocks)
                if block.idx != i or not (block.parent_idx == -1 if i == 0
                                          else 0 <= block.parent_idx < i)]
    if problems:   # names cannot be resolved through a broken block tree
        raise ProgramError(title + "\n  ".join(problems))
    runner: dict[int, str] = {}        # block index -> the op that runs it
    for block in program.blocks:
        defined = _initially_defined(program, block)
        visible = _visible_blocks(program, block)
        for index, op in enumerate(block.ops):
            where = f"block {block.idx} op #{index} ({op.type}, built at {op.site})"
            problems += _check_op(op, where)
            for name in op.input_arg_names + op.output_arg_names:
                if name != EMPTY_VAR and not any(name in b.vars for b in visible):
                    problems.append(f"{where}: variable {name!r} is not declared in block "
                                    f"{block.idx} or the blocks it sees "
                                    f"{sorted(b.idx for b in visible)}")
            problems += _check_block_refs(program, block, op, where, runner)
            for slot, names in op.inputs.items():
                if (op.type, slot) in _MAY_BE_UNSET:
                    continue
                for name in names:
                    if name not in defined and name != EMPTY_VAR:
                        problems.append(f"{where}: input {slot}={name!r} is used before any op "
                                        "defines it and is neither fed data nor persistable")
            defined.update(op.output_arg_names)
    if problems:
        raise ProgramError(title + "\n  ".join(problems))


def _ancestors(program: "Program", block) -> list[int]:
    found = []
    while block.parent_idx >= 0:
        found.append(block.parent_idx)
        block = program.blocks[block.parent_idx]
    return found


def _check_block_refs(program: "Program", block, op, where: str, runner: dict) -> list[str]:
    """BLOCK/BLOCKS attributes must name existing blocks below ``block``: not block 0, not
    the op's own block, not one of its ancestors (the op would run itself), not a block
    another op runs (``runner``: block index -> that op)."""
    problems = []
    for name, value in op.attrs.items():
        kind = op.attr_type(name)
        if kind not in (AttrType.BLOCK, AttrType.BLOCKS):
            continue
        indices = [value] if kind == AttrType.BLOCK else value
        if not isinstance(indices, (list, tuple)) or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in indices):
            problems.append(f"{where}: attribute {name}={value!r} is not a block index "
                            f"({kind.name})")
            continue
        ancestors = _ancestors(program, block)
        for i in indices:
            if not 0 < i < len(program.blocks):
                problems.append(f"{where}: attribute {name}={value} names no sub-block of this "
                                f"{len(program.blocks)}-block program (valid: 1.."
                                f"{len(program.blocks) - 1})")
            elif i == block.idx:
                problems.append(f"{where}: attribute {name}={value} names block {i}, the op's "
                                "own block (an op cannot run the block that holds it)")
            elif i in ancestors:
                problems.append(f"{where}: attribute {name}={value} names block {i}, an "
                                f"ancestor of block {block.idx} (an op cannot run a block that "
                                "contains it)")
            elif i in runner:
                problems.append(f"{where}: attribute {name}={value} names block {i}, which "
                                f"{runner[i]} already runs (each block is run by one op)")
            else:
                runner[i] = where
    return problems


def _visible_blocks(program: "Program", block) -> list:
    """The blocks whose variables ``block``'s ops may name: its ancestors and, for a grad
    block, its forward block and that block's ancestors."""
    seen, todo = [], [block.idx]
    while todo:
        index = todo.pop()
        if index in seen or not 0 <= index < len(program.blocks):
            continue
        seen.append(index)
        b = program.blocks[index]
        todo += [b.parent_idx, b.forward_block_idx]
    return [program.blocks[i] for i in seen]


def _initially_defined(program: "Program", block) -> set[str]:
    """Names available before the block's first op: data, persistables, arrays (they start
    empty), fed or scope vars, and everything the blocks it sees hold or compute."""
    names = set()
    for b in _visible_blocks(program, block):
        for var in b.vars.values():
            if (var.persistable or var.is_data or var.need_check_feed or b is not block
                    or var.type == VarType.LOD_TENSOR_ARRAY):
                names.add(var.name)
        if b is not block:
            names.update(n for op in b.ops for n in op.output_arg_names)
    # a variable that no op in the program writes must come from the feed or the scope
    written = {n for bl in program.blocks for op in bl.ops for n in op.output_arg_names}
    names.update(v for v in block.vars if v not in written)
    return names


def _check_op(op, where: str) -> list[str]:
    opdef = op.opdef
    if opdef is None:
        return [f"{where}: unknown op type '{op.type}'"]
    problems = []
    for kind, given, declared in (("input", op.inputs, opdef.inputs),
                                  ("output", op.outputs, opdef.outputs)):
        known = {s.name: s for s in declared}
        for slot, names in given.items():
            if slot not in known:
                problems.append(f"{where}: unknown {kind} slot '{slot}' (valid: {', '.join(known)})")
            elif len(names) > 1 and not known[slot].duplicable:
                problems.append(f"{where}: {kind} slot '{slot}' holds {len(names)} vars but is "
                                "not duplicable")
        for slot in declared:
            if not slot.dispensable and not given.get(slot.name) and not (
                    slot.duplicable and slot.name in given):     # an empty list is given
                problems.append(f"{where}: required {kind} slot '{slot.name}' is missing")
    for name, value in op.attrs.items():
        spec = opdef.attr_spec(name)
        if spec is None:
            continue  # extra attributes written by Paddle are kept and ignored
        try:
            canonical = coerce_attr(value, spec.type)
        except TypeError as exc:
            problems.append(f"{where}: attribute '{name}': {exc} (the op declares "
                            f"{spec.type.name}, default {spec.default!r})")
            continue
        if not _same_value(canonical, value):
            problems.append(f"{where}: attribute '{name}' holds {value!r} "
                            f"({type(value).__name__}), not the {spec.type.name} the op declares "
                            f"({canonical!r}); set it with op._set_attr")
    return problems


def _same_value(canonical, value) -> bool:
    """``value`` is already in the canonical form ``coerce_attr`` gives (type and value)."""
    if isinstance(canonical, list):
        return (isinstance(value, list) and len(value) == len(canonical)
                and all(_same_value(c, v) for c, v in zip(canonical, value)))
    if type(canonical) is not type(value):
        return False
    if isinstance(value, float) and math.isnan(value):
        return math.isnan(canonical)
    return canonical == value
