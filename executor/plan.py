"""A program compiled once into one Python function.

For a program ``y = relu(x @ w)`` fed ``x`` and fetching ``y`` the generated code is::

    def run(H, W, F):
        v0 = F[0]                 # feeds
        v1 = H[0]._array          # values read from the scope (parameters, ...)
        v2 = k0(v0, v1)           # op #0: matmul_v2, kernel bound at compile time
        del v0, v1                # liveness: temporaries die after their last use
        v3 = k1(v2)               # op #1: relu
        del v2
        return (v3,)              # fetches; W[i]._array = ... writes persistables back

Kernels and their attributes are resolved when the plan is built, so a run costs one
Python call per op. Control flow compiles into the same function: a ``conditional_block`` is
an ``if`` and a ``while`` a loop around its sub-block's code (executor/control_flow.py), each
sub-block's own variables in locals of their own (executor/frames.py: Paddle's child scopes).
When an op raises, the line number of the failing frame names the op.
"""
from __future__ import annotations

import itertools
import linecache
import math
from typing import Any

import numpy as np

from ..framework.errors import ExecutionError
from ..ops.registry import EMPTY_VAR, get_op
from ..ops.types import VarType
from . import plan_errors
from .buffer_reuse import reusable_temporaries
from .control_flow import EMITTERS, RUNTIME, step_record, sub_blocks
from .frames import Frame

_plan_ids = itertools.count()
_ROOT = 0       # the frame tag of block 0


class Plan:
    def __init__(self, program, feed_names: tuple, fetch_names: tuple, origin=None,
                 reuse_buffers: bool = False):
        self.program = program
        self.reuse_buffers = reuse_buffers     # in-place kernels on temporaries (buffer_reuse.py)
        self.origin = origin or program       # the program as the user wrote it (for errors)
        self.block = block = program.global_block()
        self.feed_names = feed_names
        self.fetch_names = fetch_names
        self.ops = [op for op in block.ops if op.type not in ("feed", "fetch")]
        self._slots: dict[tuple[int, str], str] = {}
        self.scope_inputs: list[str] = []      # read from the scope before the first op
        self.write_back: list[str] = []        # persistables written by the ops or fed
        self.namespace: dict[str, Any] = dict(RUNTIME)
        self.line_ops: dict[int, tuple] = {}   # generated line number -> (op, its input slots)
        self.folded: set[str] = set()          # temporaries computed once at compile time
        self.constant_ids: set[int] = set()    # ids of their values (kept in the namespace)
        self._set = set(feed_names)            # root names set on every path so far
        self._maybe: set[str] = set()          # root names set on some path (in a branch)
        self._initial: dict[str, str] = {}     # root name -> value it starts with (None, [])
        self._touched: set[str] = set()        # root names the current top-level op uses
        self._emitted_blocks: set[int] = set()
        self._records: dict[int, Any] = {}
        self._kernel_keys: list = []           # op of kernel k<i>
        self._build()

    # -- slots and frames -------------------------------------------------------------------
    def slot(self, tag: int, name: str) -> str:
        """The Python local holding ``name`` in the frame ``tag`` (a block index)."""
        key = (tag, name)
        if key not in self._slots:
            self._slots[key] = f"v{len(self._slots)}"
        return self._slots[key]

    def _local(self, name: str) -> str:
        return self.slot(_ROOT, name)

    def root_read(self, name: str, soft: bool = False) -> str:
        """A root-frame read: the value comes from an earlier op, the feed, or the scope."""
        self._touched.add(name)
        if name in self._set or name in self._initial or name in self.scope_inputs:
            return self._local(name)
        var = self.find_var(name)
        if var is not None and var.type == VarType.LOD_TENSOR_ARRAY:
            self._initial[name] = "[]"          # an array starts empty
        elif (name in self._maybe or soft) and not (var is not None and var.persistable):
            self._initial[name] = "None"        # set in a branch only, or may stay unset
        else:
            self.scope_inputs.append(name)
        return self._local(name)

    def root_write(self, name: str, definite: bool) -> str:
        self._touched.add(name)
        (self._set if definite else self._maybe).add(name)
        if self._is_persistable(name) and name not in self.write_back:
            self.write_back.append(name)
        return self._local(name)

    def find_var(self, name: str):
        var = self.block._find_var_recursive(name)
        if var is None:
            var = next((b.vars[name] for b in self.program.blocks if name in b.vars), None)
        return var

    def all_ops(self):
        return (op for b in self.program.blocks for op in b.ops)

    def sub_block(self, op):
        """The block ``op`` runs; each block compiles once, which also rules out cycles."""
        blocks = sub_blocks(op)
        index = op.attrs.get("sub_block")
        if not blocks or blocks[0].idx in self._emitted_blocks or blocks[0] is op.block:
            why = ("is not a block of this program" if not blocks else
                   "is the op's own block" if blocks[0] is op.block else
                   "is already run by another op (a cycle or a shared block)")
            raise ExecutionError(f"op #{op.idx} '{op.type}' of block {op.block.idx}: sub_block "
                                 f"{index!r} {why}; the program is malformed.")
        self._emitted_blocks.add(blocks[0].idx)
        return blocks[0]

    def forward_op(self, scope_names: list[str]):
        """The conditional_block / while op whose Scope / StepScopes output is named here."""
        if not hasattr(self, "_scope_writers"):
            self._scope_writers = {n: op for op in self.all_ops() if op.type in ("while",
                                   "conditional_block")
                                   for n in op.output("Scope") + op.output("StepScopes")}
        return next((self._scope_writers[n] for n in scope_names if n in self._scope_writers),
                    None)

    def step_record(self, op):
        """What a forward while records per step for the while_grad ops replaying it."""
        if id(op) not in self._records:
            steps = set(op.output("StepScopes"))
            grads = [g for g in self.all_ops() if g.type == "while_grad"
                     and steps & set(g.input("StepScopes"))]
            self._records[id(op)] = step_record(op, grads)
        return self._records[id(op)]

    # -- compilation ------------------------------------------------------------------------
    def _known_small(self, name: str) -> bool:
        """A variable whose declared shape is fully known and small: an ``out=`` ufunc call
        costs more (~0.6 us) than allocating it anew, so it is not worth reusing."""
        var = self.block._find_var_recursive(name)
        shape = var._shape if var is not None else None
        return shape is not None and all(d >= 0 for d in shape) and math.prod(shape) < 4096

    def _is_persistable(self, name: str) -> bool:
        var = self.find_var(name)
        return var is not None and var.persistable

    def _inplace_ops(self) -> set[int]:
        """Indices of ops that may run their in-place kernel: every overwritten variable is
        named on both sides of the op, lives in the scope (persistable, not fed), and no value
        that may share its buffer (a view of it, a py_func result) is read later or fetched."""
        roots: dict[str, set[str]] = {}
        last_read: dict[str, int] = {}
        for index, op in enumerate(self.ops):
            opdef = op.opdef or get_op(op.type)
            for name in op.input_arg_names:
                last_read[name] = index
            if opdef.views_input or opdef.op_kernel is not None:
                sources = set()
                for name in op.input_arg_names:
                    sources |= roots.get(name, {name})
                for name in op.output_arg_names:
                    if not self._is_persistable(name):     # persistables get a copy
                        roots[name] = roots.get(name, set()) | sources
        fetched = set(self.fetch_names)
        chosen = set()
        for index, op in enumerate(self.ops):
            opdef = op.opdef or get_op(op.type)
            if opdef.inplace_kernel is None:
                continue
            safe = True
            for out_slot, in_slot in opdef.inplace.items():
                names = op.inputs.get(in_slot, [])
                if len(names) != 1 or op.outputs.get(out_slot, []) != names:
                    safe = False
                    break
                name = names[0]
                aliases = [v for v, r in roots.items() if name in r]
                if (name in self.feed_names or not self._is_persistable(name)
                        or any(v in fetched or last_read.get(v, -1) > index for v in aliases)):
                    safe = False
                    break
            if safe:
                chosen.add(index)
        if self.reuse_buffers and len(self.program.blocks) == 1:   # sub-blocks: reads unseen
            chosen |= reusable_temporaries(self.ops, self.feed_names, self.fetch_names,
                                           self._is_persistable, self._known_small)
        return chosen

    def _build(self) -> None:
        self._inplace = self._inplace_ops()
        self._inplace_ids = {id(self.ops[i]) for i in self._inplace}
        for name in self.feed_names:
            self._local(name)
        root = Frame(self, _ROOT, set(), None, blocks=[self.block])
        body, touched = [], []
        for op in self.ops:
            self._touched = set()
            body.append(self.emit_ops([op], root, "    "))
            touched.append(self._touched)
        # a fed persistable keeps its value in the scope, as Paddle's feed op writes it there
        self.fed_kept = [n for n in self.feed_names
                         if self._is_persistable(n) and n not in self.write_back]
        self.write_back += self.fed_kept
        for name in self.fetch_names:
            self._fetchable(name)
        for name in self._maybe:              # written in a branch only: may stay unset
            if name not in self._set and name not in self.scope_inputs:
                self._initial.setdefault(name, "None")
        shared = (set(self.scope_inputs) | set(self.write_back) | set(self.feed_names)
                  | self.folded)
        self.fetch_is_shared = [name in shared for name in self.fetch_names]
        # a fetch written by a kernel that may return one of its inputs as is (an identity
        # gradient) may be a feed, a scope value or a folded constant: checked at run time
        writers = {n: op for op in self.all_ops() for n in op.output_arg_names}
        self.fetch_may_alias = [
            not is_shared and name in writers
            and not (writers[name].opdef or get_op(writers[name].type)).fresh_outputs
            for name, is_shared in zip(self.fetch_names, self.fetch_is_shared)]
        keep = set(self.fetch_names) | set(self.write_back)
        last_use = {}
        for index, names in enumerate(touched):
            for name in names:
                last_use[name] = index
        dels: dict[int, list[str]] = {}
        for name, index in last_use.items():
            if name not in keep:
                dels.setdefault(index, []).append(self._local(name))
        self._emit(body, dels)

    def _fetchable(self, name: str) -> None:
        if name in self._set or name in self._initial or name in self.scope_inputs:
            return
        var = self.find_var(name)
        if var is not None and var.block.idx != 0 and not var.persistable:
            raise plan_errors.missing_fetch(self, name, var)
        if name in self._maybe:
            self._initial[name] = "None"
        else:
            self.scope_inputs.append(name)

    def emit_ops(self, ops, frame: Frame, pad: str) -> list[tuple]:
        """Lines ``(text, op, input slots)`` running ``ops`` in ``frame``."""
        lines = []
        for op in ops:
            emitter = EMITTERS.get(op.type)
            if emitter is None:
                text, slots = self._op_call(op, frame)
                lines.append((pad + text, op, slots))
                continue
            for line in emitter(self, op, frame, pad):
                lines.append(line if isinstance(line, tuple) else (line, op, {}))
        return lines

    def _op_call(self, op, frame: Frame) -> tuple[str, dict]:
        opdef = op.opdef or get_op(op.type)
        if not opdef.has_kernel:
            raise ExecutionError(f"op #{op.idx} '{op.type}' of block {op.block.idx} cannot run "
                                 "inside a program here")
        kernel, kwargs = opdef.bound_kernel(op.attrs, op)
        key = str(len(self._kernel_keys))
        self._kernel_keys.append(op)
        folded = self._fold(key, op, opdef, kernel, kwargs, frame)
        if folded is not None:
            return folded, {}
        if id(op) in self._inplace_ids:   # takes the pure kernel's attrs, not a specialized one's
            kernel = opdef.inplace_kernel
            kwargs = {k: op.attrs.get(k, opdef.attrs[k].default) for k in opdef.kernel_attrs}
        self.namespace[f"k{key}"] = kernel
        args, slots = [], {}
        for slot in opdef.inputs:
            refs = []
            for n in op.inputs.get(slot.name, []):
                if n != EMPTY_VAR:
                    refs.append(slots.setdefault(n, frame.read(n)))
            args.append("[" + ", ".join(refs) + "]" if slot.duplicable else
                        refs[0] if refs else "None")
        for slot_name in opdef.reads_outputs:     # current values of outputs it updates
            decl = opdef.slot(slot_name, outputs=True)
            refs = ["None" if n == EMPTY_VAR else frame.read(n, soft=True)
                    for n in op.outputs.get(slot_name, [])]
            args.append("[" + ", ".join(refs) + "]" if decl.duplicable else
                        refs[0] if refs else "None")
        for j, (name, value) in enumerate(kwargs.items()):
            args.append(f"{name}={self._constant(key, j, value)}")
        targets, written = [], []
        for slot in opdef.outputs:
            refs = []
            for n in op.outputs.get(slot.name, []):
                refs.append("_" if n == EMPTY_VAR else frame.write(n))
                if n != EMPTY_VAR:
                    written.append((n, refs[-1]))
            if slot.duplicable:
                targets.append("[" + ", ".join(refs) + "]" if refs else "_")
            else:
                targets.append(refs[0] if refs else "_")
        call = f"{', '.join(targets) if targets else '_'} = k{key}({', '.join(args)})"
        if opdef.views_input or opdef.op_kernel is not None:
            # a persistable must own its buffer: a view of a parameter kept in the scope would
            # change with the parameter's in-place updates (this run's or a later one's)
            for name, ref in written:
                if self._is_persistable(name):
                    self.namespace["_own"] = _own
                    call += f"; {ref} = _own({ref})"
        return call, slots

    def _fold(self, key: str, op, opdef, kernel, kwargs, frame: Frame) -> str | None:
        """Compute a constant op (fill_constant without tensor inputs, writing a temporary)
        once, at compile time; the run then only binds the value."""
        if (not opdef.foldable or op.input_arg_names or len(op.output_arg_names) != 1
                or self._is_persistable(op.output_arg_names[0])):
            return None
        name = f"folded{key}"
        self.namespace[name] = value = kernel(
            *[[] if s.duplicable else None for s in opdef.inputs], **kwargs)
        self.constant_ids.add(id(value))
        self.folded.add(op.output_arg_names[0])
        return f"{frame.write(op.output_arg_names[0])} = {name}"

    def _constant(self, key: str, j: int, value: Any) -> str:
        if isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
            return repr(value)
        name = f"c{key}_{j}"
        self.namespace[name] = value
        return name

    def _emit(self, body: list[list[tuple]], dels: dict[int, list[str]]) -> None:
        lines = ["def run(H, W, F):"]
        for i, name in enumerate(self.feed_names):
            lines.append(f"    {self._local(name)} = F[{i}]")
        for i, name in enumerate(self.scope_inputs):
            lines.append(f"    {self._local(name)} = H[{i}]._array")
        for name, value in self._initial.items():
            lines.append(f"    {self._local(name)} = {value}")
        for index, op_lines in enumerate(body):
            for text, op, slots in op_lines:
                self.line_ops[len(lines) + 1] = (op, slots)
                lines.append(text)
            if index in dels:
                lines.append("    del " + ", ".join(dels[index]))
        if self.fed_kept:
            self.namespace["_own"] = _own
        for i, name in enumerate(self.write_back):
            value = self._local(name)
            if name in self.fed_kept:
                lines.append(f"    W[{i}]._array = _own({value})")
            elif name in self._set or name in self.scope_inputs:
                lines.append(f"    W[{i}]._array = {value}")
            else:                              # written in a branch that may not have run
                lines.append(f"    if {value} is not None: W[{i}]._array = {value}")
        fetched = ", ".join(self._local(n) for n in self.fetch_names)
        lines.append(f"    return ({fetched}{',' if self.fetch_names else ''})")
        source = "\n".join(lines) + "\n"
        filename = f"<pyfluid plan {next(_plan_ids)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), self.namespace)
        self.source = source
        self.fn = self.namespace["run"]

    # -- running ----------------------------------------------------------------------------
    def holders(self, scope) -> tuple[list, list]:
        inputs = []
        for name in self.scope_inputs:
            var = scope.find_var(name)
            if var is None or var._tensor._array is None:
                raise plan_errors.missing_value(self, name)
            inputs.append(var._tensor)
        # persistables live in the root scope (Paddle's executor creates them there) unless
        # a scope on the way already holds the name
        outputs = [(scope.find_var(name) or scope.root().var(name))._tensor
                   for name in self.write_back]
        return inputs, outputs

    def run(self, scope, feeds: list) -> tuple:
        inputs, outputs = self.holders(scope)
        may_alias = any(self.fetch_may_alias)
        outside = [h._array for h in inputs] if may_alias else ()
        try:
            values = self.fn(inputs, outputs, feeds)
        except Exception as exc:
            raise plan_errors.explain(self, exc) from exc
        if not may_alias:
            return values
        # the caller gets a copy of a fetched feed, scope value or folded constant
        known = self.constant_ids | {id(a) for a in feeds} | {id(a) for a in outside}
        return tuple(v.copy() if check and id(v) in known else v
                     for v, check in zip(values, self.fetch_may_alias))


def _own(value):
    """``value`` as an array that shares no buffer with another value."""
    return value.copy() if isinstance(value, np.ndarray) else value
