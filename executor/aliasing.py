"""The Executor's one alias model: which values of a block may share a buffer.

Per op, the registry derives what its outputs may share a buffer with (``OpDef.aliasing``,
from the declarations; tests/test_op_aliasing.py checks every registered kernel): ``FRESH``
(the default: nothing of the inputs; ``owned`` when declared ``fresh_outputs``: newly
allocated, so overwritable), ``VIEWS`` of the first input (``views_input``), or ``ANY`` of
some inputs (py_func, ``may_alias``; derived grad ops: the incoming gradients).
:class:`BufferSharing` walks a block's ops in order and keeps, for every value, the buffers
it may share. Everything that depends on aliasing asks it:

* the in-place optimizer updates and buffer reuse (executor/buffer_reuse.py): may this op
  overwrite the buffer of its input (who else may see the buffer, and are they read later)?
* the plan: which persistable outputs it copies (a persistable owns its buffer), and which
  fetches may be a feed, a scope value or a folded constant (those are checked at run time).

Buffers are named by the value that owns them (a value that owns its buffer, or one the
model knows nothing more about, is its own root). Names are tracked, not versions: a name
written twice accumulates what both writes may share, which errs on the safe side.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..framework.prune import _names_read
from ..ops.control_flow import BLOCK_OPS
from ..ops.registry import EMPTY_VAR, FRESH, OpDef, get_op


def opdef_of(op) -> OpDef:
    return op.opdef or get_op(op.type)


def value_inputs(op, opdef: OpDef | None = None) -> Iterable[str]:
    """The inputs ``op`` reads for their values (not a grad op's ``shape_only`` slots)."""
    shape_only = (opdef or opdef_of(op)).shape_only
    for slot, names in op.inputs.items():
        if slot not in shape_only:
            yield from (n for n in names if n != EMPTY_VAR)


def last_reads(ops: list) -> tuple[dict, dict]:
    """``(value_last, any_last)``: per name, the index of the last op reading its value, and
    of the last op reading it at all (shape_only reads included). An op running a sub-block
    reads whatever the block's ops read from outside it."""
    value_last, any_last = {}, {}
    for index, op in enumerate(ops):
        for name in op.read_arg_names:
            any_last[name] = index
        for name in value_inputs(op):
            value_last[name] = index
        if op.type in BLOCK_OPS:
            for name in _names_read(op.block.program, op):
                any_last[name] = value_last[name] = index
    return value_last, any_last


class BufferSharing:
    """Which values may share a buffer, after the ops recorded so far (in block order).

    ``constants``: values bound to arrays that outlive a run (folded constants): never
    treated as owning a fresh buffer."""

    def __init__(self, is_persistable: Callable[[str], bool], constants: Iterable[str] = ()):
        self._is_persistable = is_persistable
        self._constants = set(constants)
        self.roots: dict[str, set[str]] = {}    # value -> buffers it may share (absent: its own)
        self.sharers: dict[str, set[str]] = {}  # buffer -> the values that may share it
        self.fresh: set[str] = set()            # values holding a buffer nothing else shares
        self.copied: set[tuple[int, str]] = set()   # (op index, persistable output) to copy

    def roots_of(self, name: str) -> set[str]:
        return self.roots.get(name) or {name}

    def may_share(self, name: str) -> set[str]:
        """The other values that may share a buffer with ``name``."""
        found = set()
        for root in self.roots_of(name):
            found.add(root)
            found |= self.sharers.get(root, set())
        found.discard(name)
        return found

    def record(self, index: int, op, in_place: bool = False) -> None:
        """Account for ``op`` (number ``index``) writing its outputs; ``in_place``: it runs its
        in-place kernel (each paired output takes over its input's buffer)."""
        opdef = opdef_of(op)
        aliasing = opdef.aliasing
        inputs = op.inputs
        for slot, names in op.outputs.items():
            if in_place and slot in aliasing.inplace:   # takes over its input's buffer
                for name, x in zip(names, inputs.get(aliasing.inplace[slot], ())):
                    if name != x and name != EMPTY_VAR:
                        self.fresh.add(name)
                continue
            sources = {n for s in aliasing.output_sources(slot) if s not in opdef.shape_only
                       for n in inputs.get(s, ()) if n != EMPTY_VAR}
            for name in names:
                if name == EMPTY_VAR:
                    continue
                if name in self._constants:
                    self.fresh.discard(name)
                elif aliasing.owned:
                    self.fresh.add(name)
                elif aliasing.kind == FRESH:
                    self.fresh.discard(name)     # shares nothing with the inputs, but is not
                                                 # known to be a buffer of its own
                elif self._is_persistable(name) and sources - {name}:
                    self.copied.add((index, name))   # a persistable owns its buffer: copied
                    self.fresh.add(name)
                else:
                    self.fresh.discard(name)
                    roots = self.roots.setdefault(name, set())
                    for source in sources:
                        for root in self.roots_of(source):
                            roots.add(root)
                            self.sharers.setdefault(root, set()).add(name)
