"""What the passes ask of a program: which variables an op reads and writes, who else reads
or writes them, and which ops must run even when nothing reads their outputs."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...ops.registry import EMPTY_VAR
from ..operator import Operator
from ..program import Program
from ..prune import _names_read, _sub_blocks

# Random ops and how they pick their generator: they draw from the process-wide generator
# (shared by every later random op of every program) unless they carry their own seed.
_SEEDED_BY_ATTR = {"uniform_random", "gaussian_random", "truncated_gaussian_random"}


@dataclass
class PassContext:
    """What a pass knows beyond the program: the names fed and fetched by this run."""

    feed_names: tuple = ()
    fetch_names: tuple = ()
    pinned: set = field(init=False)   # names the run hands in or out: never fused away

    def __post_init__(self) -> None:
        self.pinned = set(self.feed_names) | set(self.fetch_names)


def sub_blocks(program: Program, op: Operator) -> list:
    """The blocks ``op`` runs (control flow), if any."""
    return _sub_blocks(program, op) if len(program.blocks) > 1 else []


def reads(program: Program, op: Operator) -> list[str]:
    """Variables ``op`` reads, including what its sub-blocks read from outside."""
    names = _names_read(program, op) if len(program.blocks) > 1 else op.read_arg_names
    return [n for n in names if n != EMPTY_VAR]


def writes(op: Operator) -> list[str]:
    return [n for n in op.output_arg_names if n != EMPTY_VAR]


def is_persistable(op: Operator, name: str) -> bool:
    var = op.block._find_var_recursive(name)
    return var is not None and var.persistable


def uses_shared_rng(op: Operator) -> bool:
    """True when ``op`` draws from the process-wide random generator, so that running it or
    not changes the numbers every later random op draws."""
    if op.type in _SEEDED_BY_ATTR:
        return not op.attrs.get("seed", 0)
    if op.type == "dropout":
        return (not op.attrs.get("is_test", False) and not op.attrs.get("fix_seed", False)
                and not [n for n in op.input("Seed") if n != EMPTY_VAR])
    return False


def has_side_effects(program: Program, op: Operator) -> bool:
    """Ops that must run whether or not anything reads their outputs: py_func (user code,
    debug prints), ops without outputs, writers of persistable variables (parameter
    updates, running statistics), control flow, feed/fetch and unknown ops, ops that
    advance the shared random generator, and ops declared ``side_effects`` (collectives)."""
    outputs = writes(op)
    return (op.type == "py_func" or not outputs or op.opdef is None
            or not op.opdef.has_kernel or getattr(op.opdef, "side_effects", False)
            or bool(sub_blocks(program, op))
            or any(is_persistable(op, n) for n in outputs) or uses_shared_rng(op))


def usage(program: Program) -> tuple[Counter, Counter]:
    """``(readers, writers)``: how many ops of any block read / write each variable."""
    readers, writers = Counter(), Counter()
    for block in program.blocks:
        for op in block.ops:
            readers.update(set(op.read_arg_names))
            writers.update(set(op.output_arg_names))
    return readers, writers


def drop_unused_vars(program: Program, names) -> None:
    """Remove the global block's declarations of ``names`` that no op references any more
    (temporaries only: persistable and data variables stay)."""
    block = program.global_block()
    used = {n for b in program.blocks for op in b.ops
            for n in op.input_arg_names + op.output_arg_names}
    for name in names:
        var = block.vars.get(name)
        if var is not None and name not in used and not var.persistable and not var.is_data:
            del block.vars[name]


class Rewriter:
    """Collects fusions of op chains in the global block, then applies them at once: each
    chain becomes one op at the place of its last op (where its result appears)."""

    def __init__(self, program: Program, ctx: PassContext):
        self.program, self.ctx = program, ctx
        self.block = program.global_block()
        self.readers, self.writers = usage(program)
        self.index = {id(op): i for i, op in enumerate(self.block.ops)}
        self.reader_of: dict[str, Operator] = {}
        for op in self.block.ops:
            for name in set(op.input_arg_names):
                self.reader_of[name] = op        # meaningful only where readers == 1
        self._replaced: dict[int, Operator] = {}
        self._removed: set[int] = set()
        self._dropped_vars: set[str] = set()

    def private_temporary(self, name: str) -> bool:
        """A temporary written once and read once, by ops of the global block, that the run
        neither feeds nor fetches: it can disappear inside a fused op."""
        var = self.block.vars.get(name)
        return (var is not None and not var.persistable and not var.is_data
                and name not in self.ctx.pinned and self.readers[name] == 1
                and self.writers[name] == 1 and name in self.reader_of)

    def sole_reader(self, name: str, op_type: str, slot: str = "X") -> Operator | None:
        """The one op reading temporary ``name``, if it is an ``op_type`` taking it in ``slot``."""
        if not self.private_temporary(name):
            return None
        op = self.reader_of[name]
        return op if op.type == op_type and op.input(slot) == [name] else None

    def var(self, name: str):
        return self.block._find_var_recursive(name)

    def fuse(self, chain: list[Operator], type: str, inputs: dict, outputs: dict,
             attrs: dict) -> None:
        """Replace ``chain`` (in block order) by one new op, unless an op between a chain op
        reading one of the new op's inputs and the last op writes it (the new op, at the last
        op's place, would then see another value)."""
        positions = [self.index[id(op)] for op in chain]
        if positions != sorted(set(positions)):
            return
        first, last = positions[0], positions[-1]
        members = {id(op) for op in chain}
        read_at = {}                      # each input: where the chain first reads it
        for op, at in zip(chain, positions):
            for n in op.input_arg_names:
                read_at.setdefault(n, at)
        fused_inputs = {n for names in inputs.values() for n in names}
        for at in range(first + 1, last):
            op = self.block.ops[at]
            if id(op) not in members and any(read_at.get(n, first) < at for n in
                                             fused_inputs & set(op.output_arg_names)):
                return
        if any(id(op) in self._removed or id(op) in self._replaced for op in chain):
            return
        head = chain[0]
        attrs = {**attrs, "op_role": head.role,
                 "op_namescope": head.attrs.get("op_namescope", "/"),
                 "op_callstack": list(head.attrs.get("op_callstack", []))}
        new = self.block._make_op(type, inputs, outputs, attrs)
        new.site = head.site
        new.fused_from = [str(op).strip() for op in chain]   # for error messages
        self._replaced[id(chain[-1])] = new
        self._removed.update(id(op) for op in chain[:-1])
        self._dropped_vars.update(n for op in chain for n in op.output_arg_names)

    def apply(self) -> bool:
        if not self._replaced:
            return False
        self.block.ops = [self._replaced.get(id(op), op) for op in self.block.ops
                          if id(op) not in self._removed]
        drop_unused_vars(self.program, self._dropped_vars)
        self.program._link_producers()
        self.program._bump()
        return True
