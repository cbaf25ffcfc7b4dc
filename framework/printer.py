"""Readable, deterministic text of a Program (``str(program)``); also the golden-test format.

Grammar::

    program  ::= block (NL block)*
    block    ::= "block " IDX [" (parent " IDX ")"] ":" NL var* NL op*
    var      ::= "  var " NAME " : " TYPE flag* NL
    TYPE     ::= DTYPE "[" dims "]"            # a tensor; dims use -1 for unknown
               | DTYPE "[?]"  |  "?"            # shape or dtype not known yet
               | KIND                           # FEED_MINIBATCH, FETCH_LIST, ...
    flag     ::= "  persistable" | "  param" | "  stop_gradient" | "  data"
    op       ::= "  " [outs " = "] OPTYPE "(" [arg (", " arg)*] ")" [" {" attr (", " attr)* "}"]
                 [role] NL
    outs     ::= NAME                           # exactly one output slot holding one var
               | "(" arg (", " arg)* ")"
    arg      ::= SLOT "=" (NAME | "[" [NAME (", " NAME)*] "]") # a list for duplicable slots
    attr     ::= NAME "=" PYTHON_REPR           # only attrs that differ from the op's default;
                                                # BLOCK attrs print as block[i]
    role     ::= "  # " ("backward" | "optimize" | "loss" | "lr_sched" | ...)

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
    return "\n".join(block_to_text(b, full) for b in program.blocks)


def block_to_text(block: "Block", full: bool = False) -> str:
    head = f"block {block.idx}"
    if block.parent_idx >= 0:
        head += f" (parent {block.parent_idx})"
    lines = [head + ":"]
    lines += [var_to_text(v) for v in block.vars.values()]
    lines.append("")
    lines += [op_to_text(op, full) for op in block.ops]
    return "\n".join(lines) + "\n"


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
