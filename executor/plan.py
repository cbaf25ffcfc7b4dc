"""A program compiled once into one Python function.

For a program ``y = relu(x @ w)`` fed ``x`` and fetching ``y``, ``plan.source`` is::

    def run(H, W, F):
        x = F[0]  # feed
        fc_0_w_0 = H[0]._array  # from the scope
        fc_0_tmp_0 = k0(x, fc_0_w_0)  # #0 matmul_v2
        del x, fc_0_w_0
        relu_0_tmp_0 = k1(fc_0_tmp_0)  # #1 relu
        del fc_0_tmp_0
        return (relu_0_tmp_0,)

Each variable is a local named after it (``@``, ``.`` and other non-identifier characters
become ``_``; a suffix keeps names unique and clear of the plan's own globals), each op one
call ``k<index>(...)`` whose kernel and attributes (``c<index>_<j>``) are bound at compile
time, temporaries are deleted after their last use, persistables are written back with
``W[i]._array = ...`` (``# to the scope``). A run costs one Python call per op; when an op
raises, the line number of the failing frame names the op. ``PYFLUID_SHOW_PLAN=1`` prints
every plan's source when it is built.

Control flow compiles into the same function: a ``conditional_block`` is an ``if`` and a
``while`` a loop around its sub-block's code (executor/control_flow.py); a sub-block's own
variables are locals of their own, ``<name>_b<block>`` (executor/frames.py: Paddle's child
scopes), and its op lines read ``# b<block>#<index> <type>``.
"""
from __future__ import annotations

import itertools
import keyword
import linecache
import math
import os
import re
import weakref
from typing import Any

import numpy as np

from ..framework.errors import ExecutionError
from ..ops.registry import EMPTY_VAR, FRESH, get_op
from ..ops.types import VarType
from . import plan_errors
from .buffer_reuse import inplace_ops
from .control_flow import EMITTERS, RUNTIME, BlockIndex, moved_assign
from ..framework.prune import _names_read
from .frames import Frame

_plan_ids = itertools.count()
_ROOT = 0       # the frame tag of block 0
# names of the generated function's globals and parameters: never used for a variable's local
_RESERVED = re.compile(r"(k|chk|folded)\d+(_\d+)?|c\d+(_\d+){1,2}|_own|_|H|W|F|run|_total\d+|"
                       r"_op\d+|"
                       + "|".join(RUNTIME) + "|_while_is_test")


def _identifier(name: str) -> str:
    """``name`` as a Python identifier: ``fc_0.tmp_0`` -> ``fc_0_tmp_0``."""
    ident = re.sub(r"\W", "_", name, flags=re.ASCII) or "v"
    if ident[0].isdigit():
        ident = "v_" + ident
    if keyword.iskeyword(ident) or _RESERVED.fullmatch(ident):
        ident += "_"
    return ident


class Plan:
    """A program compiled into one Python function (``fn``); ``source`` is its code, for
    reading (see the module docstring). ``run(scope, feeds)`` runs it."""

    def __init__(self, program, feed_names: tuple, fetch_names: tuple, origin=None,
                 reuse_buffers: bool = False, checks: bool = False):
        self.program = program
        self.reuse_buffers = reuse_buffers     # in-place kernels on temporaries (buffer_reuse.py)
        self.checks = checks                   # check every output's shape and dtype (debug)
        self.origin = origin or program       # the program as the user wrote it (for errors)
        self.block = block = program.global_block()
        self.feed_names = feed_names
        self.fetch_names = fetch_names
        self.ops = [op for op in block.ops if op.type not in ("feed", "fetch")]
        self._slots: dict[tuple[int, str], str] = {}   # (frame tag, name) -> its local
        self._locals: dict[str, str] = {}     # variable name -> its local in the root frame
        self._taken: set[str] = set()
        self.scope_inputs: list[str] = []      # read from the scope before the first op
        self.write_back: list[str] = []        # persistables written by the ops or fed
        self.namespace: dict[str, Any] = dict(RUNTIME)
        self.line_ops: dict[int, tuple] = {}   # generated line number -> (op, its input locals)
        self.folded: set[str] = set()          # temporaries computed once at compile time
        self.constant_ids: set[int] = set()    # ids of their values (kept in the namespace)
        self._set = set(feed_names)            # root names set on every path so far
        self._maybe: set[str] = set()          # root names set on some path (in a branch)
        self._initial: dict[str, str] = {}     # root name -> the value it starts with
        self._touched: set[str] = set()        # root names the current top-level op uses
        self.flow = BlockIndex(program)        # which op runs which block, step records
        self._labels = itertools.count()
        self._build()

    # -- slots and frames (executor/frames.py) ------------------------------------------------
    def slot(self, tag: int, name: str) -> str:
        """The local holding ``name`` in the frame ``tag`` (a block index; 0 is the root)."""
        local = self._slots.get((tag, name))
        if local is None:
            local = base = _identifier(name) + (f"_b{tag}" if tag else "")
            n = 0
            while local in self._taken:
                n += 1
                local = f"{base}_{n}"
            self._slots[(tag, name)] = local
            self._taken.add(local)
            if not tag:
                self._locals[name] = local
        return local

    def _local(self, name: str) -> str:
        return self.slot(_ROOT, name)

    def label(self, prefix: str) -> str:
        """A fresh name for a helper value of the generated code (``_total3``)."""
        return f"{prefix}{next(self._labels)}"

    def root_read(self, name: str, soft: bool = False) -> str:
        """A read in the root frame: the value comes from an earlier op, the feed, or the
        scope (``soft``: a value that may be unset, then None)."""
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
        return self.flow.all_ops()

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

    def _folds(self, op, opdef) -> bool:
        """A constant op (fill_constant without tensor inputs, writing a temporary): computed
        once, at compile time."""
        return (opdef.foldable and not op.input_arg_names and len(op.output_arg_names) == 1
                and not self._is_persistable(op.output_arg_names[0]))

    def _build(self) -> None:
        constants = [op.output_arg_names[0] for op in self.ops
                     if self._folds(op, op.opdef or get_op(op.type))]
        reuse = self.reuse_buffers
        self._inplace, self.sharing = inplace_ops(
            self.ops, self.feed_names, self.fetch_names, self._is_persistable, reuse,
            self._known_small, constants)
        for name in self.feed_names:
            self._local(name)
        root = Frame(self, _ROOT, set(), None, blocks=[self.block])
        body, touched = [], []
        for index, op in enumerate(self.ops):
            self._touched = set()
            body.append(self.emit_ops([op], root, "    ", start=index))
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
        # a fetch that may share the buffer of a feed, a scope value or a folded constant (an
        # identity gradient's result) is checked at run time, and copied if it does; a value
        # a control-flow op wrote is checked too
        self.fetch_may_alias = [
            not is_shared and (bool(self.sharing.roots_of(name) & shared) or name in self._maybe)
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

    def emit_ops(self, ops, frame: Frame, pad: str, start: int = 0,
                 kept: frozenset = frozenset()) -> list[tuple]:
        """Lines ``(text, op, input locals)`` running ``ops`` in ``frame``; ``start``: the
        index of the first op in its block; ``kept``: frame names read after the ops (a step
        record)."""
        lines = []
        last_read = {} if frame.parent is None else {
            n: i for i, op in enumerate(ops) for n in _names_read(self.program, op)}
        for index, op in enumerate(ops, start):
            emitter = EMITTERS.get(op.type)
            if emitter is None:
                moved = moved_assign(self, op, frame, last_read, index - start, kept)
                text, slots = moved or self._op_call(index, op, frame)
                lines.append((pad + text, op, slots))
                continue
            where = f"#{index}" if op.block.idx == 0 else f"b{op.block.idx}#{index}"
            for n, line in enumerate(emitter(self, op, frame, pad)):
                if not isinstance(line, tuple):
                    line = (line + (f"  # {where} {op.type}" if n == 0 else ""), op, {})
                lines.append(line)
        return lines

    def _op_call(self, index: int, op, frame: Frame) -> tuple[str, dict]:
        opdef = op.opdef or get_op(op.type)
        where = f"#{index}" if op.block.idx == 0 else f"b{op.block.idx}#{index}"
        if not opdef.has_kernel:
            raise ExecutionError(f"op {where} '{op.type}' cannot run inside a program here")
        key = str(index) if op.block.idx == 0 else f"{op.block.idx}_{index}"
        top = frame.parent is None and index < len(self.ops) and self.ops[index] is op
        kernel, kwargs = opdef.bound_kernel(op.attrs, op)
        folded = self._fold(key, where, op, opdef, kernel, kwargs, frame)
        if folded is not None:
            return f"{folded}  # {where} {op.type} (folded)", {}
        in_place = top and index in self._inplace
        if in_place:   # takes the pure kernel's attrs, not a specialized one's
            kernel = opdef.inplace_kernel
            kwargs = {k: op.attrs.get(k, opdef.attrs[k].default) for k in opdef.kernel_attrs}
        self.namespace[f"k{key}"] = kernel
        args, slots = [], {}
        for slot in opdef.inputs:
            refs = [slots.setdefault(n, frame.read(n))
                    for n in op.inputs.get(slot.name, []) if n != EMPTY_VAR]
            args.append("[" + ", ".join(refs) + "]" if slot.duplicable else
                        refs[0] if refs else "None")
        for slot_name in opdef.reads_outputs:     # current values of outputs it updates
            refs = ["None" if n == EMPTY_VAR else frame.read(n, soft=True)
                    for n in op.outputs.get(slot_name, [])]
            args.append("[" + ", ".join(refs) + "]" if opdef.slot(slot_name, True).duplicable
                        else refs[0] if refs else "None")
        for j, (name, value) in enumerate(kwargs.items()):
            args.append(f"{name}={self._constant(key, j, value)}")
        targets, written = [], []
        for slot in opdef.outputs:
            refs = []
            for n in op.outputs.get(slot.name, []):
                refs.append("_" if n == EMPTY_VAR else frame.write(n))
                if n != EMPTY_VAR:
                    written.append((n, refs[-1]))
            targets.append(("[" + ", ".join(refs) + "]" if refs else "_") if slot.duplicable
                           else refs[0] if refs else "_")
        call = f"{', '.join(targets) if targets else '_'} = k{key}({', '.join(args)})"
        # a persistable must own its buffer: a view of a parameter kept in the scope would
        # change with the parameter's in-place updates (this run's or a later one's)
        for name, ref in written:
            if ((top and (index, name) in self.sharing.copied) or (
                    not top and self._is_persistable(name) and opdef.aliasing.kind != FRESH)):
                self.namespace["_own"] = _own
                call += f"; {ref} = _own({ref})"
        if self.checks:
            call += plan_errors.checked_call(self, key, where, op, opdef, args, written)
        return f"{call}  # {where} {op.type}{' (in place)' if in_place else ''}", slots

    def _fold(self, key: str, where: str, op, opdef, kernel, kwargs, frame: Frame) -> str | None:
        """Compute a constant op (fill_constant without tensor inputs, writing a temporary)
        once, at compile time; the run then only binds the value."""
        if not self._folds(op, opdef):
            return None
        name = f"folded{key}"
        self.namespace[name] = value = kernel(
            *[[] if s.duplicable else None for s in opdef.inputs], **kwargs)
        out = op.output_arg_names[0]
        if self.checks:                                             # checked once, now
            plan_errors.output_check(where, op, opdef, [out])(
                tuple([] if s.duplicable else None for s in opdef.inputs), value)
        self.constant_ids.add(id(value))
        self.folded.add(out)
        return f"{frame.write(out)} = {name}"

    def _constant(self, key: str, j: int, value: Any) -> str:
        if isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
            return repr(value)
        name = f"c{key}_{j}"
        self.namespace[name] = value
        return name

    def _emit(self, body: list[list[tuple]], dels: dict[int, list[str]]) -> None:
        lines = ["def run(H, W, F):"]
        for i, name in enumerate(self.feed_names):
            lines.append(f"    {self._local(name)} = F[{i}]  # feed")
        for i, name in enumerate(self.scope_inputs):
            lines.append(f"    {self._local(name)} = H[{i}]._array  # from the scope")
        for name, value in self._initial.items():
            lines.append(f"    {self._local(name)} = {value}  # unset until an op writes it")
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
                lines.append(f"    W[{i}]._array = _own({value})  # to the scope")
            elif name in self._set or name in self.scope_inputs:
                lines.append(f"    W[{i}]._array = {value}  # to the scope")
            else:                              # written in a branch that may not have run
                lines.append(f"    if {value} is not None: W[{i}]._array = {value}  # to the scope")
        fetched = ", ".join(self._local(n) for n in self.fetch_names)
        lines.append(f"    return ({fetched}{',' if self.fetch_names else ''})")
        source = "\n".join(lines) + "\n"
        self.filename = filename = f"<pyfluid plan {next(_plan_ids)}>"
        # tracebacks show the generated lines while the plan lives; its entry goes with it
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        weakref.finalize(self, linecache.cache.pop, filename, None)
        exec(compile(source, filename, "exec"), self.namespace)
        self.source = source
        self.fn = self.namespace["run"]
        if os.environ.get("PYFLUID_SHOW_PLAN", "") == "1":
            print(f"--- {filename}: block {self.block.idx} of {self.origin!r}, feeds "
                  f"{list(self.feed_names)}, fetches {list(self.fetch_names)} ---\n{source}",
                  flush=True)

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
