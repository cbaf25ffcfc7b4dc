"""``pd_op.if`` and ``pd_op.while`` -> the legacy control-flow ops, as Paddle 2.x's
dynamic-to-static writes them:

* ``if`` (results r_i): ``conditional_block`` on the condition running the true region,
  ``logical_not`` + ``conditional_block`` running the false region, each region ending in
  ``assign``s of its yielded values to per-branch outputs, then ``cast(cond, int32)`` and one
  ``select_input(X=[false_i, true_i], Mask)`` per result.
* ``while`` (operands: condition, loop values; body arguments = loop values): the initial
  values are copied into fresh loop variables, ``while`` runs the body block while the
  condition variable holds, and the body ends by assigning the yielded values (the next
  condition first) to the loop and condition variables. The results are the loop variables.

Sub-blocks read values of enclosing blocks by name, as legacy sub-blocks do; the ops' ``Input``
/ ``X`` list every such outer variable and ``Out`` every outer variable the block writes."""
from __future__ import annotations

from ...ops.types import VarType
from .decode import PirBlock, PirOp
from .schema import PirFormatError, PirType

_BOOL = PirType("tensor", VarType.BOOL, ())


def _region_block(op: PirOp, index: int) -> PirBlock:
    if len(op.regions) <= index or len(op.regions[index]) != 1:
        raise PirFormatError(f"{op.where}: region {index} must hold exactly one block")
    return op.regions[index][0]


def _yield_of(lw, pblock: PirBlock, op: PirOp) -> tuple[PirBlock, list[int]]:
    """The block without its final ``cf.yield``, and the yielded value ids."""
    if not pblock.ops or pblock.ops[-1].name != "cf.yield":
        raise PirFormatError(f"{op.where}: {pblock.name} does not end with cf.yield")
    body = PirBlock(pblock.name, pblock.args, pblock.ops[:-1])
    return body, pblock.ops[-1].operands


def _sub_block(lw, parent):
    return lw.program._append_block(len(lw.program.blocks), parent.idx)


def _scopes(lw, block) -> str:
    return lw.define_var(block, None, lw.fresh("_generated_var"), type=VarType.STEP_SCOPES)


def _outer_reads(program, block) -> list[str]:
    """Names a sub-block (and its own sub-blocks) reads from enclosing blocks, in order."""
    seen, reads = set(), []
    written = set()
    for op in block.ops:
        for name in op.input_arg_names:
            if name not in written and name not in block.vars and name not in seen:
                seen.add(name)
                reads.append(name)
        sub = op.attrs.get("sub_block")
        if isinstance(sub, int) and 0 < sub < len(program.blocks):
            for name in _outer_reads(program, program.blocks[sub]):
                if name not in written and name not in block.vars and name not in seen:
                    seen.add(name)
                    reads.append(name)
        written.update(op.output_arg_names)
    return reads


def _outer_writes(program, block) -> list[str]:
    """Names a sub-block (and its sub-blocks) writes that belong to enclosing blocks: the
    targets of in-place PIR ops (``array_write_``, ``assign_out_``) on outer values."""
    writes = []
    for op in block.ops:
        names = list(op.output_arg_names)
        sub = op.attrs.get("sub_block")
        if isinstance(sub, int) and 0 < sub < len(program.blocks):
            names += _outer_writes(program, program.blocks[sub])
        writes += [n for n in names if n not in block.vars and n not in writes]
    return writes


def _assign(lw, block, source: str, target: str, op: PirOp) -> None:
    lw.emit(block, "assign", {"X": [source]}, {"Out": [target]}, {}, op)


def lower_if(lw, op: PirOp, block) -> None:
    if len(op.operands) != 1:
        raise PirFormatError(f"{op.where}: expects one operand (the condition)")
    cond = lw.tensor(op.operands[0], op)
    branches = []
    for index in (0, 1):
        body, yielded = _yield_of(lw, _region_block(op, index), op)
        if len(yielded) != len(op.results):
            raise PirFormatError(f"{op.where}: region {index} yields {len(yielded)} values for "
                                 f"{len(op.results)} results")
        branches.append((body, yielded))
    not_cond = lw.define_var(block, _BOOL, lw.fresh("logical_not"))
    lw.emit(block, "logical_not", {"X": [cond]}, {"Out": [not_cond]}, {}, op)
    outs = []
    for (body, yielded), flag in zip(branches, (cond, not_cond)):
        sub = _sub_block(lw, block)
        lw.lower_block(body, sub)
        names = []
        for (_, ptype), vid in zip(op.results, yielded):
            name = lw.define_var(block, ptype, lw.fresh("_generated_var"))
            _assign(lw, sub, lw.tensor(vid, op), name, op)
            names.append(name)
        scope = _scopes(lw, block)
        written = [n for n in _outer_writes(lw.program, sub) if n not in names]
        lw.emit(block, "conditional_block",
                {"Cond": [flag], "Input": _outer_reads(lw.program, sub)},
                {"Out": names + written, "Scope": [scope]},
                {"sub_block": sub.idx, "is_scalar_condition": True}, op)
        outs.append(names)
    if not op.results:
        return
    mask = lw.define_var(block, PirType("tensor", VarType.INT32, ()), lw.fresh("cast"))
    lw.emit(block, "cast", {"X": [cond]}, {"Out": [mask]},
            {"in_dtype": VarType.BOOL, "out_dtype": VarType.INT32}, op)
    for (vid, ptype), true_name, false_name in zip(op.results, *outs):
        out = lw.define(block, vid, ptype, prefix="select_input", op=op)
        lw.emit(block, "select_input", {"X": [false_name, true_name], "Mask": [mask]},
                {"Out": [out]}, {}, op)


def lower_while(lw, op: PirOp, block) -> None:
    if not op.operands:
        raise PirFormatError(f"{op.where}: expects the condition and the loop values")
    cond_id, *init_ids = op.operands
    body, yielded = _yield_of(lw, _region_block(op, 0), op)
    if len(body.args) != len(init_ids) or len(op.results) != len(init_ids) or \
            len(yielded) != len(init_ids) + 1:
        raise PirFormatError(f"{op.where}: {len(init_ids)} loop values need as many block "
                             f"arguments ({len(body.args)}) and results ({len(op.results)}), "
                             f"and a yield of the condition and them ({len(yielded)})")
    cond = lw.define_var(block, lw.types.get(cond_id) or _BOOL, lw.fresh("while_cond"))
    _assign(lw, block, lw.tensor(cond_id, op), cond, op)
    loop_vars = []
    for vid, (arg_id, arg_type) in zip(init_ids, body.args):
        name = lw.define_var(block, arg_type, lw.fresh("while_var"))
        _assign(lw, block, lw.tensor(vid, op), name, op)
        lw.alias(arg_id, name, arg_type)
        loop_vars.append(name)
    sub = _sub_block(lw, block)
    lw.lower_block(body, sub)
    sources = [lw.tensor(v, op) for v in yielded]
    targets = [cond] + loop_vars
    staged = []
    for k, (source, target) in enumerate(zip(sources, targets)):
        if source != target and source in targets:   # read a loop var another assign writes
            temp = lw.define_var(sub, lw.types.get(yielded[k]), lw.fresh("while_next"))
            _assign(lw, sub, source, temp, op)
            source = temp
        staged.append((source, target))
    for source, target in staged:
        if source != target:
            _assign(lw, sub, source, target, op)
    scopes = _scopes(lw, block)
    reads = _outer_reads(lw.program, sub)
    written = [n for n in _outer_writes(lw.program, sub) if n not in loop_vars and n != cond]
    lw.emit(block, "while", {"X": reads, "Condition": [cond]},
            {"Out": loop_vars + [cond] + written, "StepScopes": [scopes]},
            {"sub_block": sub.idx, "is_test": True}, op)
    for (vid, ptype), name in zip(op.results, loop_vars):
        lw.alias(vid, name, ptype)


def stray_yield(lw, op: PirOp, block) -> None:
    raise PirFormatError(f"{op.where}: cf.yield outside the end of an if/while region")


HOOKS = {"pd_op.if": lower_if, "pd_op.while": lower_while, "cf.yield": stray_yield}
