"""Pruning a program to what some targets need (Paddle's ``Program._prune_with_input`` and
``core.prune``), used to export inference programs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from ..ops.types import AttrType
from .operator import Operator
from .variable import Variable

if TYPE_CHECKING:
    from .block import Block
    from .program import Program


def prune_with_input(program: "Program", feeded_var_names: Any, targets: Any) -> "Program":
    """A copy of ``program`` whose global block keeps only the ops needed to compute
    ``targets`` (Variables, names or Operators) from the fed variables and persistables.
    Producers of fed variables are dropped; vars no kept op references are removed."""
    if not isinstance(feeded_var_names, list):
        feeded_var_names = [feeded_var_names]
    if not isinstance(targets, list):
        targets = [targets]
    for name in feeded_var_names:
        if not isinstance(name, str):
            raise ValueError("All feeded_var_names of Program._prune_with_input() can only be "
                             f"str, but received {type(name)}.")
    feeds = set(feeded_var_names)
    block = program.global_block()
    target_indices = _target_op_indices(block, feeds, targets)
    copy = program.clone()
    gblock = copy.global_block()
    keep = _ops_to_keep(copy, gblock.ops, feeds, target_indices)
    gblock.ops = [op for op, kept in zip(gblock.ops, keep) if kept]
    used = {n for op in gblock.ops for n in _names_used(copy, op)}
    gblock.vars = {name: gblock.vars[name] for name in sorted(gblock.vars) if name in used}
    for op in gblock.ops:
        op.is_target = False
    copy._link_producers()
    copy._bump()
    return copy


def _target_op_indices(block: "Block", feeds: set, targets: list) -> set[int]:
    generatable = _generatable_vars(block, feeds)
    indices = set()
    for target in targets:
        if isinstance(target, Operator):
            indices.add(target.idx)
            continue
        if isinstance(target, Variable):
            name = target.name
        elif isinstance(target, str):
            name = target
        else:
            raise ValueError("All targets of Program._prune_with_input() can only be Variable or "
                             f"Operator, but received {type(target)}.")
        if name in feeds and name not in generatable:
            continue                      # a fed leaf: nothing computes it
        producer = None
        for index, op in enumerate(block.ops):
            # optimizer ops write parameters but count only when they are targets themselves
            optimizer_op = op._is_optimize_op() and not any(op is t for t in targets)
            if name in op.output_arg_names and not optimizer_op:
                producer = index          # the last writer wins, as in Paddle
        if producer is not None:
            indices.add(producer)
    return indices


def _generatable_vars(block: "Block", feeds: set) -> set[str]:
    """Variables that ops can compute from the feeds and persistables."""
    generatable = set()
    for op in block.ops:
        runnable = all(name not in block.vars or block.vars[name].persistable
                       or name in generatable or name in feeds for name in op.input_arg_names)
        if runnable:
            generatable.update(op.output_arg_names)
    return generatable


def _ops_to_keep(program: "Program", ops: list, feeds: set, targets: set[int]) -> list[bool]:
    """Paddle's reverse sweep: an op runs if it is a target or writes a needed variable
    (optimizer ops only as targets); its inputs, except fed ones, become needed."""
    needed: set[str] = set()
    keep = [False] * len(ops)
    for index in range(len(ops) - 1, -1, -1):
        op = ops[index]
        writes_needed = any(name in needed for name in op.output_arg_names)
        if index in targets or (writes_needed and not op._is_optimize_op()):
            keep[index] = True
            needed.update(n for n in _names_read(program, op) if n not in feeds)
    return keep


def _sub_blocks(program: "Program", op: Operator) -> list["Block"]:
    indices: list[int] = []
    for name, value in op.attrs.items():
        kind = op.attr_type(name)
        if kind == AttrType.BLOCK:
            indices.append(value)
        elif kind == AttrType.BLOCKS:
            indices.extend(value)
    return [program.blocks[i] for i in indices if 0 <= i < len(program.blocks)]


def _names_read(program: "Program", op: Operator) -> Iterable[str]:
    """The op's inputs plus whatever its sub-blocks (control flow) read from outside."""
    yield from op.read_arg_names
    for sub in _sub_blocks(program, op):
        for inner in sub.ops:
            for name in _names_read(program, inner):
                if name not in sub.vars:
                    yield name


def _names_used(program: "Program", op: Operator) -> Iterable[str]:
    yield from _names_read(program, op)
    yield from op.output_arg_names
