"""Readable, deterministic text of a Program (``str(program)``); also the golden-test format.

Grammar::

    program  ::= block (NL block)*
    block    ::= "block " IDX [" (parent " IDX [", forward " IDX] ")"] ":" NL var* NL op*
    var      ::= "  var " NAME " : " TYPE flag* NL
    TYPE     ::= DTYPE "[" dims "]"            # a tensor; dims use -1 for unknown
               | DTYPE "[?]"  |  "?"            # shape or dtype not known yet
               | KIND "<" DTYPE "[" dims "]>"   # LOD_TENSOR_ARRAY<float32[2]>, SELECTED_ROWS<..>
               | KIND                           # STEP_SCOPES, FEED_MINIBATCH, FETCH_LIST, ...
    flag     ::= "  persistable" | "  param" | "  stop_gradient" | "  data"
    op       ::= "  " [outs " = "] OPTYPE "(" [arg (", " arg)*] ")" [" {" attr (", " attr)* "}"]
                 [role] NL sub*
    sub      ::= block, every line indented by 4 more spaces   # the block an op runs
    outs     ::= NAME                           # exactly one output slot holding one var
               | "(" arg (", " arg)* ")"
    arg      ::= SLOT "=" (NAME | "[" [NAME (", " NAME)*] "]") # a list for duplicable slots
    attr     ::= NAME "=" PYTHON_REPR           # only attrs that differ from the op's default;
                                                # BLOCK attrs print as block[i]
    role     ::= "  # " ("backward" | "optimize" | "loss" | "lr_sched" | ...)

A block named by an op's BLOCK/BLOCKS attribute (the ``sub_block`` of ``conditional_block``,
``while`` and their grad ops) prints right under the first op naming it, indented; blocks no
op names (and blocks reached only through a malformed reference) print at the top level, in
index order. "forward" is a grad block's ``forward_block_idx``.

Variables print in declaration order, slots in the op's slot order (sorted by name, as Paddle
writes them), attributes sorted by name; the common attributes (op_role, op_namescope,
op_callstack, ...) are hidden except through the role comment; empty slots are omitted.
``program_to_text(p, full=True)`` shows every slot (empty ones as ``[]``, outputs always in the
parenthesized form) and every attribute but op_callstack.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..ops.registry import (COMMON_ATTRS, ROLE_BACKWARD, ROLE_LOSS, ROLE_LRSCHED,
                            ROLE_OPTIMIZE)
from ..ops.types import AttrType

if TYPE_CHECKING:
    from .block import Block
    from .operator import Operator
    from .program import Program
    from .variable import Variable


def program_to_text(program: "Program", full: bool = False) -> str:
    """The program in the grammar above; ``full`` also shows attributes at their default
    and the common ones (except op_callstack)."""
    printed: set[int] = set()
    texts = []
    for block in program.blocks:     # block 0 and its nested blocks first, then the rest
        if block.idx not in printed and (block.idx == 0 or block.idx not in _nested(program)):
            texts.append(_block_lines(block, full, printed, 0))
    texts += [_block_lines(b, full, printed, 0) for b in program.blocks if b.idx not in printed]
    return "\n".join("\n".join(lines) + "\n" for lines in texts)


def block_to_text(block: "Block", full: bool = False) -> str:
    """One block with its variables and ops (sub-blocks not expanded)."""
    return "\n".join(_block_lines(block, full, None, 0)) + "\n"


_MAX_NESTING = 32    # deeper sub-blocks print at the top level (no unbounded recursion)


def _nested(program: "Program") -> set[int]:
    """Indices of the blocks some op of another block names: they print under that op."""
    return {i for b in program.blocks for op in b.ops for i in _sub_block_ids(op)
            if 0 < i < len(program.blocks) and i != b.idx}


def _sub_block_ids(op: "Operator") -> list[int]:
    ids = []
    for name, value in op.attrs.items():
        kind = op.attr_type(name)
        if kind == AttrType.BLOCK:
            ids.append(value)
        elif kind == AttrType.BLOCKS:
            ids.extend(value)
    return ids


def _block_lines(block: "Block", full: bool, printed: set | None, depth: int) -> list[str]:
    """The block's lines; with ``printed``, each block an op names is expanded under it once."""
    if printed is not None:
        printed.add(block.idx)
    head = f"block {block.idx}"
    if block.parent_idx >= 0:
        forward = f", forward {block.forward_block_idx}" if block.forward_block_idx >= 0 else ""
        head += f" (parent {block.parent_idx}{forward})"
    lines = [head + ":"]
    lines += [var_to_text(v) for v in block.vars.values()]
    lines.append("")
    blocks = block.program.blocks
    for op in block.ops:
        lines.append(op_to_text(op, full))
        if printed is None or depth >= _MAX_NESTING:
            continue
        for i in _sub_block_ids(op):
            if 0 < i < len(blocks) and i not in printed:
                lines += ["    " + line if line else line
                          for line in _block_lines(blocks[i], full, printed, depth + 1)]
    return lines


def var_to_text(var: "Variable") -> str:
    from ..ops.types import VarType
    if var.type not in (VarType.LOD_TENSOR, VarType.SELECTED_ROWS, VarType.LOD_TENSOR_ARRAY):
        kind = var.type.name
    elif var._dtype is None and var._shape is None:
        kind = "?"
    else:
        dtype = var._dtype.name_str if var._dtype is not None else "?"
        dims = "?" if var._shape is None else ", ".join(str(d) for d in var._shape)
        kind = f"{dtype}[{dims}]"
        if var.type != VarType.LOD_TENSOR:
            kind = f"{var.type.name}<{kind}>"
    flags = ""
    if var.persistable:
        flags += "  persistable"
    if var.is_parameter:
        flags += "  param"
    if var.is_data:
        flags += "  data"
    if var.stop_gradient and not var.is_parameter and not var.is_data:
        flags += "  stop_gradient"
    return f"  var {var.name} : {kind}{flags}"


def _args(names: list[str], duplicable: bool) -> str:
    if len(names) == 1 and not duplicable:
        return names[0]
    return "[" + ", ".join(names) + "]"


def _slot_args(op: "Operator", slots: dict, outputs: bool) -> list[str]:
    parts = []
    for slot, names in slots.items():
        decl = op.opdef.slot(slot, outputs) if op.opdef else None
        dup = decl.duplicable if decl else len(names) != 1
        parts.append(f"{slot}={_args(names, dup)}")
    return parts


def _role_comment(role: int) -> str:
    names = []
    if role & ROLE_BACKWARD:
        names.append("backward")
    if role & ROLE_OPTIMIZE:
        names.append("optimize")
    if role & ROLE_LRSCHED:
        names.append("lr_sched")
    if role & ROLE_LOSS:
        names.append("loss")
    return f"  # {', '.join(names)}" if names else ""


def _attr_text(op: "Operator", name: str) -> str:
    value = op.attrs[name]
    if op.attr_type(name) == AttrType.BLOCK:
        return f"{name}=block[{value}]"
    if op.attr_type(name) == AttrType.BLOCKS:
        return f"{name}=[{', '.join(f'block[{i}]' for i in value)}]"
    if op.attr_type(name) == AttrType.FLOAT:
        return f"{name}={str(np.float32(value))}"
    if op.attr_type(name) == AttrType.FLOATS:
        return f"{name}=[{', '.join(str(np.float32(v)) for v in value)}]"
    return f"{name}={value!r}"


def op_to_text(op: "Operator", full: bool = False) -> str:
    outs = {k: v for k, v in op.outputs.items() if v or full}
    ins = {k: v for k, v in op.inputs.items() if v or full}
    if len(outs) == 1 and len(next(iter(outs.values()))) == 1 and not full:
        lhs = next(iter(outs.values()))[0] + " = "
    elif outs:
        lhs = "(" + ", ".join(_slot_args(op, outs, True)) + ") = "
    else:
        lhs = ""
    shown = []
    for name in sorted(op.attrs):
        if name == "op_callstack" or (name in COMMON_ATTRS and not full):
            continue
        spec = op.opdef.attr_spec(name) if op.opdef else None
        if spec is not None and not full and _same(op.attrs[name], spec.default):
            continue
        shown.append(_attr_text(op, name))
    text = f"  {lhs}{op.type}({', '.join(_slot_args(op, ins, False))})"
    if shown:
        text += " {" + ", ".join(shown) + "}"
    return text + _role_comment(op.role)


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    if isinstance(a, float) and isinstance(b, float):
        return np.float32(a) == np.float32(b)
    return type(a) is type(b) and a == b
