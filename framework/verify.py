"""``verify(program)``: a well-formedness pass (def before use, declared variables, known ops,
slots, attribute types against the op declarations, sub-block references, block structure).
Raises ProgramError listing every problem found.

Debug checks (``PYFLUID_CHECKS=1``, or ``BuildStrategy.debug_checks`` for one compiled
program): ``verify`` runs after ``append_backward``/``gradients`` and after every graph pass,
and the Executor's plan checks every op's outputs against the shapes and dtypes their
variables declare (executor/plan.py). Off, none of it costs anything."""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

from ..ops.registry import EMPTY_VAR
from ..ops.types import AttrType, coerce_attr
from .errors import ProgramError

if TYPE_CHECKING:
    from .program import Program


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
    for block in program.blocks:
        defined = _initially_defined(program, block)
        for index, op in enumerate(block.ops):
            where = f"block {block.idx} op #{index} ({op.type}, built at {op.site})"
            problems += _check_op(op, where)
            for name in op.input_arg_names + op.output_arg_names:
                if name != EMPTY_VAR and block._find_var_recursive(name) is None:
                    problems.append(f"{where}: variable {name!r} is not declared in block "
                                    f"{block.idx} or its parents")
            problems += _check_block_refs(program, block, op, where)
            for slot, names in op.inputs.items():
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


def _check_block_refs(program: "Program", block, op, where: str) -> list[str]:
    """BLOCK/BLOCKS attributes must name existing blocks below ``block``: not block 0, not
    the op's own block, not one of its ancestors (the op would run itself)."""
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
    return problems


def _initially_defined(program: "Program", block) -> set[str]:
    """Names available before the block's first op: data, persistables, fed or scope vars, and
    everything visible from parent blocks."""
    names = set()
    b = block
    while b is not None:
        for var in b.vars.values():
            if var.persistable or var.is_data or var.need_check_feed or b is not block:
                names.add(var.name)
        if b is not block:
            names.update(n for op in b.ops for n in op.output_arg_names)
        b = program.blocks[b.parent_idx] if b.parent_idx >= 0 else None
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
            if not slot.dispensable and not given.get(slot.name):
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
