"""Paddle's scopes, decided when a plan is compiled.

Paddle runs a sub-block in a child scope holding the block's own (non-persistable) variables;
every other name resolves up the chain to the enclosing scopes, so a branch or a loop body
writes the outer variables it does not declare. A plan keeps every value in a local of one
generated function, so a scope becomes a *frame*: the set of names it holds, each of which
gets its own Python local (its *slot*), distinct from the locals of the same name in the
enclosing frames. Resolving a name walks the frames outwards, as Paddle's ``FindVar`` does;
names no frame holds live in the root frame (block 0 and the Executor's scope).

A frame is tagged by the forward block it stands for: the grad block of a ``conditional_block``
runs in the forward branch's scope (its frame extends the branch's), and a ``while_grad`` step
runs in the step scope of the forward iteration (the body's frame, whose values a step record
brings back). The Plan owns the slots (``Plan.slot``) and learns from each resolved read and
write which values the root frame takes from the scope; a sub-frame learns which of its
slots a fresh scope must set up on entry (read before being written).
"""
from __future__ import annotations

from ..ops.types import VarType


def declared_locals(block) -> set[str]:
    """The names a block holds in its own scope: its non-persistable variables."""
    return {name for name, var in block.vars.items() if not var.persistable}


class Frame:
    """One scope of a compiled block: the ``names`` it holds, ``parent`` for the rest.

    A ``fallthrough`` name becomes local when this frame (or a frame in it) first writes it;
    before that, reads see the enclosing frame's value. A grad block reads the incoming
    gradient of a variable whose outgoing gradient it then writes under the same name."""

    def __init__(self, plan, tag: int, names: set[str], parent: "Frame | None",
                 fallthrough: set[str] = frozenset(), blocks: list = ()):
        self.plan = plan
        self.tag = tag
        self.names = set(names)
        self.parent = parent
        self.blocks = list(blocks)           # whose declarations give the names' types
        self.fallthrough = set(fallthrough)
        self.claimed: set[str] = set()        # fallthrough names written so far
        self.written: set[str] = set()        # names set on every path so far, in code order
        self.needs_init: dict[str, str] = {}  # slot -> value a fresh scope gives it

    def holds(self, name: str) -> bool:
        return name in self.names and (name not in self.fallthrough or name in self.claimed)

    def read(self, name: str, soft: bool = False) -> str:
        """The local holding ``name`` for an op of this frame reading it. ``soft``: the reader
        copes with an unset value (a gradient that may not exist), which is then None."""
        frame = self
        while frame.parent is not None and not frame.holds(name):
            frame = frame.parent
        if frame.parent is None:
            return self.plan.root_read(name, soft)
        slot = self.plan.slot(frame.tag, name)
        if name not in frame.written and slot not in frame.needs_init:
            frame.needs_init[slot] = frame.initial_value(name)
        return slot

    def write(self, name: str, definite: bool = True) -> str:
        """The local an op of this frame writes ``name`` to; ``definite``: the op runs
        whenever this frame does (so later reads in the frame see the value)."""
        frame = self
        while frame.parent is not None and name not in frame.names:
            frame = frame.parent
        if frame.parent is None:
            return self.plan.root_write(name, definite and frame is self)
        frame.claimed.add(name)
        if definite and frame is self:
            frame.written.add(name)
        return self.plan.slot(frame.tag, name)

    def initial_value(self, name: str) -> str:
        """What a fresh scope holds for ``name``: an empty array, or nothing."""
        for block in self.blocks:
            var = block.vars.get(name)
            if var is not None:
                return "[]" if var.type == VarType.LOD_TENSOR_ARRAY else "None"
        return "None"

    def child(self, tag: int, names: set[str], fallthrough: set[str] = frozenset(),
              blocks: list = ()) -> "Frame":
        return Frame(self.plan, tag, names, self, fallthrough, blocks)

    def init_lines(self, pad: str) -> list[str]:
        """Lines giving a fresh scope's values to the slots read before they are set."""
        return [f"{pad}{slot} = {value}" for slot, value in self.needs_init.items()]
