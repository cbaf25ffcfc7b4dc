"""Which ops run their in-place kernel (``def_inplace_kernel``), decided once per plan with
the one alias model of executor/aliasing.py. Two cases:

Optimizer updates (Paddle's inplace for ``ParamOut="Param"``): the op names the same
variable on both sides of each pair, and that variable

* lives in the scope (persistable, not fed);
* has no value that may share its buffer (a view of it, a py_func result) read after the op
  or fetched;

and no op after it may raise (``OpDef.never_raises``; folded constants do not run). So a run
that fails has changed nothing in the scope: an update before a fallible op runs its pure
kernel, and every persistable is written back only when the last op has run (all-or-nothing
runs; docs/design.md). With the default passes the updates follow their gradients (early, for
memory), and the grad ops of a training step are declared ``never_raises``, so the updates of
ordinary programs still run in place.

Buffer reuse of temporaries (Paddle's buffer-reuse pass, ``BuildStrategy.reuse_buffers``;
``Out="X"``, different names): the op writes its result into the buffer of its input ``x``
when ``x``

* is not persistable, fed, fetched, nor written by more than one op, and is not known small
  (an ``out=`` ufunc call costs more than allocating a small array);
* holds a buffer nothing else shares: its writer's outputs are ``FRESH`` (kernels that
  always return newly allocated arrays), or its writer runs in place itself;
* has no value that may share its buffer (an output of a ``VIEWS`` or ``ANY`` op, e.g. a view
  or a py_func result) read at or after the op, fetched, or persistable;
* is read by no later op for its value: reads through a grad op's ``shape_only`` slots
  (Paddle's no-need-buffer inputs, e.g. ``elementwise_add_grad``'s X and Y) only look at
  the shape and dtype, which the in-place kernel keeps.

In-place kernels check at run time that the result has ``x``'s shape and dtype and fall
back to the pure kernel otherwise, so the choice never changes a result.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

from ..ops.registry import EMPTY_VAR
from .aliasing import BufferSharing, last_reads, opdef_of


def inplace_ops(ops: list, fed: Iterable[str], fetched: Iterable[str],
                is_persistable: Callable[[str], bool], reuse_buffers: bool = False,
                too_small: Callable[[str], bool] = lambda name: False,
                constants: Iterable[str] = ()) -> tuple[set[int], BufferSharing]:
    """Indices of ``ops`` that run their in-place kernel, and the buffer sharing of the block
    with those choices (``reuse_buffers``: also reuse temporaries; ``constants``: values
    bound to arrays that outlive a run)."""
    fed, fetched = set(fed), set(fetched)
    constants = set(constants)
    value_last, any_last = last_reads(ops)
    last_fallible = max((i for i, op in enumerate(ops) if not opdef_of(op).never_raises and not (
        op.output_arg_names and set(op.output_arg_names) <= constants)), default=-1)
    writers = Counter(n for op in ops for n in op.output_arg_names if n != EMPTY_VAR)
    sharing = BufferSharing(is_persistable, constants)

    def updates_in_place(index: int, pairs: list) -> bool:
        if index < last_fallible:
            return False
        for x, _ in pairs:
            if x in fed or not is_persistable(x):
                return False
            if any(v in fetched or any_last.get(v, -1) > index for v in sharing.may_share(x)):
                return False
        return True

    def reuses_buffer(index: int, pairs: list) -> bool:
        for x, out in pairs:
            if (x not in sharing.fresh or writers[x] != 1 or x in fed or x in fetched
                    or is_persistable(x) or value_last.get(x) != index or too_small(x)):
                return False
            if any(v in fetched or is_persistable(v) or any_last.get(v, -1) >= index
                   for v in sharing.may_share(x)):
                return False
        return True

    chosen = set()
    for index, op in enumerate(ops):
        opdef = opdef_of(op)
        pairs = _pairs(op, opdef) if opdef.inplace_kernel is not None else None
        if pairs:
            same = all(x == out for x, out in pairs)
            if same and updates_in_place(index, pairs):
                chosen.add(index)
            elif (not same and reuse_buffers and all(out not in (EMPTY_VAR, x) for x, out in pairs)
                  and reuses_buffer(index, pairs)):
                chosen.add(index)
        sharing.record(index, op, in_place=index in chosen)
    return chosen, sharing


def _pairs(op, opdef) -> list | None:
    """``[(input name, output name)]`` per declared in-place pair, or None when a pair does
    not name exactly one variable on each side."""
    pairs = []
    for out_slot, in_slot in opdef.aliasing.inplace.items():
        names, outs = op.inputs.get(in_slot, []), op.outputs.get(out_slot, [])
        if len(names) != 1 or len(outs) != 1:
            return None
        pairs.append((names[0], outs[0]))
    return pairs
