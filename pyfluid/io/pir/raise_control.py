"""Legacy control flow -> ``pd_op.if`` / ``pd_op.while``, as Paddle 3's ProgramTranslator
writes them:

* ``conditional_block`` (scalar condition) -> ``pd_op.if`` whose results are the op's ``Out``
  variables: the true region runs the sub-block and yields them, the false region yields what
  they held before (zeros when nothing did). The ``select_input`` that legacy programs put
  after a pair of conditional blocks is written as ``pd_op.select_input``.
* ``while`` -> ``pd_op.while``: its loop values are the ``Out`` variables other than the
  condition (their values before the loop are the operands), the body block's arguments stand
  for them, and the body yields the new condition and their new values."""
from __future__ import annotations

from .schema import TENSOR, Place, PirType


def _sub_block(op):
    return op.block.program.blocks[op.attr("sub_block")]


def _zeros(rs, ptype: PirType) -> int:
    dims = [d if d >= 0 else 1 for d in ptype.dims]
    return rs.op("pd_op.full", [], [PirType(TENSOR, ptype.dtype, tuple(dims))],
                 [("shape", "ia", dims), ("value", "f64", 0.0), ("dtype", "dtype", ptype.dtype),
                  ("place", "place", Place(1))])[0]


def _current_or_zeros(rs, name: str, ptype: PirType) -> int:
    return rs.value(name) if rs.has(name) else _zeros(rs, ptype)


def _yield(names: list[str], types: list[PirType], head: list[str] = ()):
    def tail(rs):
        operands = [rs.value(n) for n in head] + [
            _current_or_zeros(rs, n, t) for n, t in zip(names, types)]
        rs.op("cf.yield", operands, [], result_attrs={})
    return tail


def conditional_block(rs, op, block) -> None:
    if not op.attr("is_scalar_condition"):
        raise ValueError("conditional_block with is_scalar_condition=False (all-non-empty "
                         "conditions) has no PIR form; only scalar conditions can be written")
    cond = rs.value(op.input("Cond")[0], op)
    outs = op.output("Out")
    types = [rs.var_type(n, block) for n in outs]
    sub = _sub_block(op)

    def regions(results):
        true = rs.region(lambda: rs.block_json(sub, tail=_yield(outs, types)))
        false = rs.region(lambda: _else_block(rs, outs, types))
        return [true, false]

    results = rs.op("pd_op.if", [cond], types, regions=regions)
    for name, vid in zip(outs, results):
        rs.bind(name, vid)


def _else_block(rs, names, types) -> dict:
    class _Empty:
        ops, vars = (), {}
    return rs.block_json(_Empty(), tail=_yield(names, types))


def while_(rs, op, block) -> None:
    cond_name = op.input("Condition")[0]
    loop_names = [n for n in op.output("Out") if n != cond_name]
    types = [rs.var_type(n, block) for n in loop_names]
    operands = [rs.value(cond_name, op)] + [_current_or_zeros(rs, n, t)
                                            for n, t in zip(loop_names, types)]
    sub = _sub_block(op)

    def regions(results):
        args = [(rs.new_arg(t), t) for t in types]
        bind = {n: vid for n, (vid, _) in zip(loop_names, args)}
        return [rs.region(lambda: rs.block_json(
            sub, args=args, bind=bind, tail=_yield(loop_names, types, head=[cond_name])))]

    results = rs.op("pd_op.while", operands, types, regions=regions)
    for name, vid in zip(loop_names, results):
        rs.bind(name, vid)


HOOKS = {"conditional_block": conditional_block, "while": while_}
