"""``verify(program)``: a well-formedness pass (def before use, declared variables, known ops,
slots, attr types, block structure). Raises ProgramError listing every problem found.

Blocks: block 0 has parent -1 and every other block an earlier parent. A BLOCK/BLOCKS
attribute (the ``sub_block`` of control flow) must name another block of the program, never
block 0, the op's own block or one of its ancestors, and no block may be run by two ops: so
running a program can neither recurse forever nor repeat a block's code. An op sees the
variables of its block and of its ancestors; a grad block (``forward_block_idx``) also sees its
forward block's, whose values the grad ops read.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..ops.registry import EMPTY_VAR
from ..ops.types import AttrType, VarType, coerce_attr
from .errors import ProgramError

if TYPE_CHECKING:
    from .program import Program


# inputs an op reads only if they were set: the incoming gradients of the control-flow grad
# ops (an output that does not reach the loss has none; the op uses zeros)
_MAY_BE_UNSET = {("while_grad", "Out@GRAD"), ("conditional_block_grad", "Out@GRAD")}


def verify(program: "Program") -> None:
    problems = [f"block {block.idx}: bad parent index {block.parent_idx} (a block's parent "
                "must be an earlier block; block 0 has parent -1)"
                for i, block in enumerate(program.blocks)
                if block.idx != i or not (block.parent_idx == -1 if i == 0
                                          else 0 <= block.parent_idx < i)]
    if problems:   # names cannot be resolved through a broken block tree
        raise ProgramError("program failed verification:\n  " + "\n  ".join(problems))
    problems += _block_references(program)
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
            for slot, names in op.inputs.items():
                if (op.type, slot) in _MAY_BE_UNSET:
                    continue
                for name in names:
                    if name not in defined and name != EMPTY_VAR:
                        problems.append(f"{where}: input {slot}={name!r} is used before any op "
                                        "defines it and is neither fed data nor persistable")
            defined.update(op.output_arg_names)
    if problems:
        raise ProgramError("program failed verification:\n  " + "\n  ".join(problems))


def _block_indices(op) -> list:
    """The values of the op's BLOCK/BLOCKS attributes."""
    found = []
    for name, value in op.attrs.items():
        kind = op.attr_type(name)
        if kind == AttrType.BLOCK:
            found.append((name, value))
        elif kind == AttrType.BLOCKS:
            found += [(name, v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    return found


def _ancestors(program: "Program", block) -> list[int]:
    chain, index = [], block.idx
    while index >= 0:                 # parents are earlier blocks: this ends
        chain.append(index)
        index = program.blocks[index].parent_idx
    return chain


def _block_references(program: "Program") -> list[str]:
    problems, runner = [], {}
    count = len(program.blocks)
    for block in program.blocks:
        ancestors = _ancestors(program, block)
        for index, op in enumerate(block.ops):
            where = f"block {block.idx} op #{index} ({op.type}, built at {op.site})"
            for name, value in _block_indices(op):
                if not isinstance(value, int) or not 0 < value < count:
                    problems.append(f"{where}: attribute {name}={value!r} names no sub-block of "
                                    f"this {count}-block program (valid: 1..{count - 1})")
                elif value in ancestors:
                    what = "its own block" if value == block.idx else f"its ancestor {value}"
                    problems.append(f"{where}: attribute {name}={value} names {what}: running "
                                    "it would recurse forever")
                elif value in runner:
                    problems.append(f"{where}: attribute {name}={value} names a block that "
                                    f"{runner[value]} already runs (each block is run by one op)")
                else:
                    runner[value] = where
    return problems


def _visible_blocks(program: "Program", block) -> list:
    """The blocks whose variables ``block``'s ops may name."""
    seen, todo = [], [block.idx]
    while todo:
        index = todo.pop()
        if index in seen or not 0 <= index < len(program.blocks):
            continue
        seen.append(index)
        b = program.blocks[index]
        todo += [b.parent_idx] if b.parent_idx >= 0 else []
        todo += [b.forward_block_idx] if b.forward_block_idx >= 0 else []
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
            if not slot.dispensable and not given.get(slot.name):
                if not (slot.duplicable and slot.name in given):   # an empty list is given
                    problems.append(f"{where}: required {kind} slot '{slot.name}' is missing")
    for name, value in op.attrs.items():
        spec = opdef.attr_spec(name)
        if spec is None:
            continue  # extra attributes written by Paddle are kept and ignored
        try:
            coerce_attr(value, op.attr_type(name))
        except TypeError as exc:
            problems.append(f"{where}: attribute '{name}': {exc}")
    return problems
