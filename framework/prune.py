"""Pruning a program to what some targets need (Paddle's ``Program._prune_with_input`` and
``core.prune``), used to export inference programs. Control flow goes with its blocks: the
blocks no kept op runs are dropped and the others renumbered densely, in their order, with
the ``sub_block`` attributes and the parent and forward block indices following."""
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
    keep_blocks(copy, reachable_blocks(copy))
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
    """The blocks ``op`` runs (valid indices other than its own block's)."""
    indices: list[int] = []
    for name, value in op.attrs.items():
        kind = op.attr_type(name)
        if kind == AttrType.BLOCK:
            indices.append(value)
        elif kind == AttrType.BLOCKS:
            indices.extend(value)
    return [program.blocks[i] for i in indices
            if isinstance(i, int) and 0 <= i < len(program.blocks) and i != op.block.idx]


def _names_read(program: "Program", op: Operator, seen: frozenset = frozenset()) -> Iterable[str]:
    """The op's inputs plus whatever its sub-blocks (control flow) read from outside (each
    block once on a path: a malformed program naming a block twice cannot loop)."""
    yield from op.read_arg_names
    for sub in _sub_blocks(program, op):
        if sub.idx in seen or sub.idx == op.block.idx:
            continue
        for inner in sub.ops:
            for name in _names_read(program, inner, seen | {op.block.idx, sub.idx}):
                if name not in sub.vars:
                    yield name


def _names_used(program: "Program", op: Operator) -> Iterable[str]:
    yield from _names_read(program, op)
    yield from op.output_arg_names


def reachable_blocks(program: "Program") -> set[int]:
    """Block 0 and the blocks its ops run, transitively (through BLOCK/BLOCKS attributes)."""
    found, todo = set(), [0]
    while todo:
        index = todo.pop()
        if index in found:
            continue
        found.add(index)
        for op in program.blocks[index].ops:
            todo += [b.idx for b in _sub_blocks(program, op)]
    return found


def keep_blocks(program: "Program", keep: Iterable[int]) -> None:
    """Keep block 0 and the blocks ``keep``, in their order, renumbered densely: parent,
    forward and backward indices and the ops' BLOCK/BLOCKS attributes follow (a reference to
    a dropped block becomes -1)."""
    kept = sorted(set(keep) | {0})
    if len(kept) == len(program.blocks):
        return
    new = {old: i for i, old in enumerate(kept)}
    program.blocks = [program.blocks[i] for i in kept]
    for block in program.blocks:
        block.idx = new[block.idx]
        block.parent_idx = new.get(block.parent_idx, -1)
        block.forward_block_idx = new.get(block.forward_block_idx, -1)
        block.backward_block_idx = new.get(block.backward_block_idx, -1)
        for op in block.ops:
            for name, value in list(op.attrs.items()):
                kind = op.attr_type(name)
                if kind == AttrType.BLOCK:
                    op._set_attr(name, new.get(value, -1))
                elif kind == AttrType.BLOCKS:
                    op._set_attr(name, [new.get(v, -1) for v in value])
    program.current_block_idx = 0
    program._bump()
