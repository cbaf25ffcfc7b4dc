"""Which ops may write their result into the buffer of a temporary input (Paddle's inplace
and buffer-reuse passes, decided once per plan).

An op with an in-place kernel (``def_inplace_kernel(Out="X")``) may overwrite its input
temporary ``x`` when ``x``

* is not persistable, fed, fetched, nor written by more than one op;
* holds a buffer nothing else shares: its writer declares ``fresh_outputs`` (kernels that
  always return newly allocated arrays), or is itself an op chosen here;
* has no value that may share its buffer (an output of an op without ``fresh_outputs``,
  e.g. a view or a py_func result) read at or after the op, fetched, or persistable;
* is read by no later op for its value: reads through a grad op's ``shape_only`` slots
  (Paddle's no-need-buffer inputs, e.g. ``elementwise_add_grad``'s X and Y) only look at
  the shape and dtype, which the in-place kernel keeps.

In-place kernels check at run time that the result has ``x``'s shape and dtype and fall
back to the pure kernel otherwise, so the choice never changes a result.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

from ..ops.registry import EMPTY_VAR, OpDef, get_op


def _opdef(op) -> OpDef:
    return op.opdef or get_op(op.type)


def _value_inputs(op, opdef: OpDef) -> Iterable[str]:
    for slot, names in op.inputs.items():
        if slot not in opdef.shape_only:
            yield from (n for n in names if n != EMPTY_VAR)


def reusable_temporaries(ops: list, fed: Iterable[str], fetched: Iterable[str],
                         is_persistable: Callable[[str], bool],
                         too_small: Callable[[str], bool] = lambda name: False) -> set[int]:
    """Indices of ``ops`` that may run their in-place kernel on a temporary input
    (``too_small(x)``: not worth it for that input)."""
    fed, fetched = set(fed), set(fetched)
    value_last, any_last, writers = {}, {}, Counter()
    for index, op in enumerate(ops):
        opdef = _opdef(op)
        for name in op.read_arg_names:
            any_last[name] = index
        for name in _value_inputs(op, opdef):
            value_last[name] = index
        writers.update(n for n in op.output_arg_names if n != EMPTY_VAR)

    fresh: set[str] = set()                 # temporaries whose buffer nothing else shares
    roots: dict[str, set[str]] = {}         # value -> buffers it may share
    sharers: dict[str, set[str]] = {}       # buffer -> values that may share it

    def may_overwrite(index: int, op, opdef: OpDef) -> bool:
        for out_slot, in_slot in opdef.inplace.items():
            names, outs = op.inputs.get(in_slot, []), op.outputs.get(out_slot, [])
            if len(names) != 1 or len(outs) != 1 or outs[0] in (EMPTY_VAR, names[0]):
                return False
            x = names[0]
            if (x not in fresh or writers[x] != 1 or x in fed or x in fetched
                    or is_persistable(x) or value_last.get(x) != index or too_small(x)):
                return False
            if any(v in fetched or is_persistable(v) or any_last.get(v, -1) >= index
                   for v in sharers.get(x, ()) if v != x):
                return False
        return bool(opdef.inplace)

    chosen = set()
    for index, op in enumerate(ops):
        opdef = _opdef(op)
        if opdef.inplace_kernel is not None and may_overwrite(index, op, opdef):
            chosen.add(index)
        outs = [n for n in op.output_arg_names if n != EMPTY_VAR]
        if opdef.fresh_outputs or index in chosen:
            fresh.update(outs)
            continue
        sources = set()
        for name in _value_inputs(op, opdef):
            sources |= roots.get(name, {name})
        for name in outs:
            fresh.discard(name)
            roots[name] = roots.get(name, set()) | sources
            for source in sources:
                sharers.setdefault(source, set()).add(name)
    return chosen
