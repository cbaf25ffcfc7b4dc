"""``verify(program)``: a well-formedness pass (def before use, declared variables, known ops,
slots, attr types, block structure). Raises ProgramError listing every problem found."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..ops.registry import EMPTY_VAR
from ..ops.types import AttrType, coerce_attr
from .errors import ProgramError

if TYPE_CHECKING:
    from .program import Program


def verify(program: "Program") -> None:
    problems = [f"block {block.idx}: bad parent index {block.parent_idx} (a block's parent "
                "must be an earlier block; block 0 has parent -1)"
                for i, block in enumerate(program.blocks)
                if block.idx != i or not (block.parent_idx == -1 if i == 0
                                          else 0 <= block.parent_idx < i)]
    if problems:   # names cannot be resolved through a broken block tree
        raise ProgramError("program failed verification:\n  " + "\n  ".join(problems))
    for block in program.blocks:
        defined = _initially_defined(program, block)
        for index, op in enumerate(block.ops):
            where = f"block {block.idx} op #{index} ({op.type}, built at {op.site})"
            problems += _check_op(op, where)
            for name in op.input_arg_names + op.output_arg_names:
                if name != EMPTY_VAR and block._find_var_recursive(name) is None:
                    problems.append(f"{where}: variable {name!r} is not declared in block "
                                    f"{block.idx} or its parents")
            for name, value in op.attrs.items():
                indices = {AttrType.BLOCK: [value], AttrType.BLOCKS: value}.get(op.attr_type(name))
                if indices is not None and not all(0 < i < len(program.blocks) for i in indices):
                    problems.append(f"{where}: attribute {name}={value} names no sub-block of "
                                    f"this {len(program.blocks)}-block program")
            for slot, names in op.inputs.items():
                for name in names:
                    if name not in defined and name != EMPTY_VAR:
                        problems.append(f"{where}: input {slot}={name!r} is used before any op "
                                        "defines it and is neither fed data nor persistable")
            defined.update(op.output_arg_names)
    if problems:
        raise ProgramError("program failed verification:\n  " + "\n  ".join(problems))


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
            coerce_attr(value, op.attr_type(name))
        except TypeError as exc:
            problems.append(f"{where}: attribute '{name}': {exc}")
    return problems
