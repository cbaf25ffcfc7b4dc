"""A block compiled once into one straight-line Python function.

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
"""
from __future__ import annotations

import difflib
import itertools
import keyword
import linecache
import math
import os
import re
import weakref
from typing import Any

import numpy as np

from ..framework.errors import ExecutionError, FetchError, ShapeError
from ..ops.registry import EMPTY_VAR, get_op
from ..ops.types import VarType, to_numpy_dtype
from .buffer_reuse import inplace_ops

_plan_ids = itertools.count()
# names of the generated function's globals and parameters: never used for a variable's local
_RESERVED = re.compile(r"(k|chk|folded)\d+|c\d+_\d+|_own|_|H|W|F|run")


def _identifier(name: str) -> str:
    """``name`` as a Python identifier: ``fc_0.tmp_0`` -> ``fc_0_tmp_0``."""
    ident = re.sub(r"\W", "_", name, flags=re.ASCII) or "v"
    if ident[0].isdigit():
        ident = "v_" + ident
    if keyword.iskeyword(ident) or _RESERVED.fullmatch(ident):
        ident += "_"
    return ident


class Plan:
    """One block compiled into one Python function (``fn``); ``source`` is its code, for
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
        self._locals: dict[str, str] = {}     # variable name -> its local in the source
        self._taken: set[str] = set()
        self.scope_inputs: list[str] = []      # read from the scope before the first op
        self.write_back: list[str] = []        # persistables written by the ops or fed
        self.namespace: dict[str, Any] = {}
        self.line_ops: dict[int, int] = {}     # generated line number -> op index
        self.folded: set[str] = set()          # temporaries computed once at compile time
        self.constant_ids: set[int] = set()    # ids of their values (kept in the namespace)
        self._build()

    # -- compilation ------------------------------------------------------------------------
    def _local(self, name: str) -> str:
        """The local holding variable ``name``: its name as an identifier, made unique."""
        local = self._locals.get(name)
        if local is None:
            local = base = _identifier(name)
            n = 0
            while local in self._taken:
                n += 1
                local = f"{base}_{n}"
            self._locals[name] = local
            self._taken.add(local)
        return local

    def _known_small(self, name: str) -> bool:
        """A variable whose declared shape is fully known and small: an ``out=`` ufunc call
        costs more (~0.6 us) than allocating it anew, so it is not worth reusing."""
        var = self.block._find_var_recursive(name)
        shape = var._shape if var is not None else None
        return shape is not None and all(d >= 0 for d in shape) and math.prod(shape) < 4096

    def _is_persistable(self, name: str) -> bool:
        var = self.block._find_var_recursive(name)
        return var is not None and var.persistable

    def _folds(self, op, opdef) -> bool:
        """A constant op (fill_constant without tensor inputs, writing a temporary): computed
        once, at compile time."""
        return (opdef.foldable and not op.input_arg_names and len(op.output_arg_names) == 1
                and not self._is_persistable(op.output_arg_names[0]))

    def _build(self) -> None:
        constants = [op.output_arg_names[0] for op in self.ops
                     if self._folds(op, op.opdef or get_op(op.type))]
        reuse = self.reuse_buffers and len(self.program.blocks) == 1   # sub-blocks: reads unseen
        self._inplace, self.sharing = inplace_ops(
            self.ops, self.feed_names, self.fetch_names, self._is_persistable, reuse,
            self._known_small, constants)
        available = set(self.feed_names)
        for name in self.feed_names:
            self._local(name)
        body: list[tuple[int | None, str]] = []
        reads: list[list[str]] = []
        for index, op in enumerate(self.ops):
            call, read_names, written = self._compile_op(index, op, available)
            body.append((index, call))
            reads.append(read_names)
            for name in written:
                available.add(name)
                if self._is_persistable(name) and name not in self.write_back:
                    self.write_back.append(name)
        # a fed persistable keeps its value in the scope, as Paddle's feed op writes it there
        self.fed_kept = [n for n in self.feed_names
                         if self._is_persistable(n) and n not in self.write_back]
        self.write_back += self.fed_kept
        for name in self.fetch_names:
            if name not in available and name not in self.scope_inputs:
                self.scope_inputs.append(name)
        shared = (set(self.scope_inputs) | set(self.write_back) | set(self.feed_names)
                  | self.folded)
        self.fetch_is_shared = [name in shared for name in self.fetch_names]
        # a fetch that may share the buffer of a feed, a scope value or a folded constant (an
        # identity gradient's result) is checked at run time, and copied if it does
        self.fetch_may_alias = [
            not is_shared and bool(self.sharing.roots_of(name) & shared)
            for name, is_shared in zip(self.fetch_names, self.fetch_is_shared)]
        keep = set(self.fetch_names) | set(self.write_back)
        last_read = {}
        for index, names in enumerate(reads):
            for name in names:
                last_read[name] = index
        dels: dict[int, list[str]] = {}
        for name, index in last_read.items():
            if name not in keep:
                dels.setdefault(index, []).append(self._local(name))
        self._emit(body, dels)

    def _compile_op(self, index: int, op, available: set) -> tuple[str, list[str], list[str]]:
        opdef = op.opdef or get_op(op.type)
        if not opdef.has_kernel:
            raise ExecutionError(f"op #{index} '{op.type}' cannot run inside a program here")
        kernel, kwargs = opdef.bound_kernel(op.attrs, op)
        folded = self._fold(index, op, opdef, kernel, kwargs)
        if folded is not None:
            return folded, [], op.output_arg_names
        if index in self._inplace:   # takes the pure kernel's attrs, not a specialized one's
            kernel = opdef.inplace_kernel
            kwargs = {k: op.attrs.get(k, opdef.attrs[k].default) for k in opdef.kernel_attrs}
        self.namespace[f"k{index}"] = kernel
        args, read_names = [], []
        for slot in opdef.inputs:
            names = [n for n in op.inputs.get(slot.name, []) if n != EMPTY_VAR]
            for n in names:
                read_names.append(n)
                if n not in available and n not in self.scope_inputs:
                    self.scope_inputs.append(n)
            refs = [self._local(n) for n in names]
            if slot.duplicable:
                args.append("[" + ", ".join(refs) + "]")
            else:
                args.append(refs[0] if refs else "None")
        for j, (key, value) in enumerate(kwargs.items()):
            args.append(f"{key}={self._constant(index, j, value)}")
        targets, written = [], []
        for slot in opdef.outputs:
            names = op.outputs.get(slot.name, [])
            refs = []
            for n in names:
                if n == EMPTY_VAR:
                    refs.append("_")
                else:
                    refs.append(self._local(n))
                    written.append(n)
            if slot.duplicable:
                targets.append("[" + ", ".join(refs) + "]" if refs else "_")
            else:
                targets.append(refs[0] if refs else "_")
        lhs = ", ".join(targets) if targets else "_"
        call = f"{lhs} = k{index}({', '.join(args)})"
        # a persistable must own its buffer: a view of a parameter kept in the scope would
        # change with the parameter's in-place updates (this run's or a later one's)
        for name in written:
            if (index, name) in self.sharing.copied:
                self.namespace["_own"] = _own
                call += f"; {self._local(name)} = _own({self._local(name)})"
        if self.checks and opdef.op_kernel is None:   # debug: outputs against their vars
            # (py_func's results are the function's, as in Paddle: declared shapes are hints)
            checked = [(n, self.block._find_var_recursive(n)) for n in written]
            checked = [(n, var) for n, var in checked
                       if var is not None and var.type == VarType.LOD_TENSOR
                       and var.has_tensor_desc]
            if checked:
                self.namespace[f"chk{index}"] = _output_check(index, op, checked)
                call += f"; chk{index}({', '.join(self._local(n) for n, _ in checked)})"
        return call, read_names, written

    def _fold(self, index: int, op, opdef, kernel, kwargs) -> str | None:
        """Compute a constant op (fill_constant without tensor inputs, writing a temporary)
        once, at compile time; the run then only binds the value."""
        if not self._folds(op, opdef):
            return None
        name = f"folded{index}"
        self.namespace[name] = value = kernel(
            *[[] if s.duplicable else None for s in opdef.inputs], **kwargs)
        out = op.output_arg_names[0]
        var = self.block._find_var_recursive(out)
        if self.checks and var is not None and var.has_tensor_desc:   # checked once, now
            _output_check(index, op, [(out, var)])(value)
        self.constant_ids.add(id(value))
        self.folded.add(op.output_arg_names[0])
        return f"{self._local(op.output_arg_names[0])} = {name}"

    def _constant(self, index: int, j: int, value: Any) -> str:
        if isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
            return repr(value)
        name = f"c{index}_{j}"
        self.namespace[name] = value
        return name

    def _emit(self, body, dels) -> None:
        lines = ["def run(H, W, F):"]
        for i, name in enumerate(self.feed_names):
            lines.append(f"    {self._local(name)} = F[{i}]  # feed")
        for i, name in enumerate(self.scope_inputs):
            lines.append(f"    {self._local(name)} = H[{i}]._array  # from the scope")
        for index, call in body:
            self.line_ops[len(lines) + 1] = index
            op = self.ops[index]
            note = " (folded)" if call.endswith(f"= folded{index}") else (
                " (in place)" if index in self._inplace else "")
            lines.append(f"    {call}  # #{index} {op.type}{note}")
            if index in dels:
                lines.append("    del " + ", ".join(dels[index]))
        if self.fed_kept:
            self.namespace["_own"] = _own
        for i, name in enumerate(self.write_back):
            value = self._local(name)
            value = f"_own({value})" if name in self.fed_kept else value
            lines.append(f"    W[{i}]._array = {value}  # to the scope")
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
                raise self._missing_value(name)
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
            raise self._explain(exc) from exc
        if not may_alias:
            return values
        # the caller gets a copy of a fetched feed, scope value or folded constant
        known = self.constant_ids | {id(a) for a in feeds} | {id(a) for a in outside}
        return tuple(v.copy() if check and id(v) in known else v
                     for v, check in zip(values, self.fetch_may_alias))

    # -- errors -----------------------------------------------------------------------------
    def _readers(self, name: str):
        for index, op in enumerate(self.ops):
            if name in op.input_arg_names:
                return index, op
        return None, None

    def _missing_value(self, name: str) -> Exception:
        var = self.block._find_var_recursive(name)
        index, op = self._readers(name)
        if index is None:
            return self._missing_fetch(name, var)
        where = f"op #{index} '{op.type}' (built at {op.site})"
        if var is not None and (var.is_data or var.need_check_feed):
            hint = f"it is a data variable: pass it in feed={{'{name}': ...}}"
        elif var is not None and var.persistable:
            hint = "it is persistable: run the startup program first (exe.run(startup_program))"
        else:
            hint = "no earlier op computes it, it was not fed, and the scope has no value for it"
        return ExecutionError(f"The Tensor in the {op.type} Op's Input Variable "
                              f"{_slot_of(op, name)}({name}) is not initialized: read by {where}; "
                              f"{hint}.{_fused_note(op)}")

    def _explain(self, exc: Exception) -> Exception:
        tb = exc.__traceback__
        frame_locals, index = None, None
        while tb is not None:
            if tb.tb_frame.f_code is self.fn.__code__:
                index = self.line_ops.get(tb.tb_lineno)
                frame_locals = tb.tb_frame.f_locals
            tb = tb.tb_next
        if index is None:
            return exc
        op = self.ops[index]
        shapes = []
        for slot, names in op.inputs.items():
            for name in names:
                value = frame_locals.get(self._locals.get(name, ""))
                desc = (f"{value.dtype}{list(value.shape)}" if hasattr(value, "shape")
                        else "None" if value is None else type(value).__name__)
                shapes.append(f"{slot}={name}: {desc}")
        return ExecutionError(
            f"{type(exc).__name__}: {exc}\n"
            f"  while running op #{index} in block {self.block.idx}:\n"
            f"  {str(op).strip()}\n"
            f"  inputs: {', '.join(shapes) or '(none)'}\n"
            f"  op built at: {op.site}{_fused_note(op)}")

    def _missing_fetch(self, name: str, var) -> Exception:
        if var is None:
            known = sorted({v.name for b in self.origin.blocks for v in b.vars.values()})
            close = difflib.get_close_matches(name, known, n=3)
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            return FetchError(f"Cannot fetch {name!r}: the program has no variable of that name "
                              f"and the scope holds no value for it.{hint} Fetch a Variable of "
                              "this program (or its name).")
        why = ("it is persistable: run the startup program first" if var.persistable else
               "no op of the program computes it and it was not fed")
        return FetchError(f"Cannot find fetch variable in scope, fetch_var_name is {name}: "
                          f"{why}.")


def _output_check(index: int, op, checked: list):
    """A function checking op ``index``'s output values against the shapes (``-1``: any
    size) and dtypes their variables declare; raises ShapeError naming what differs."""
    expected = [(name, var._shape, None if var._dtype is None else to_numpy_dtype(var._dtype))
                for name, var in checked]

    def check(*values):
        for (name, shape, dtype), value in zip(expected, values):
            if value is None:
                continue
            got_dtype = getattr(value, "dtype", None)
            got_shape = getattr(value, "shape", None)
            if got_dtype is None or got_shape is None:
                raise ShapeError(f"op #{index} '{op.type}' wrote {name!r} as a "
                                 f"{type(value).__name__}, not an array")
            if (shape is not None and (len(shape) != len(got_shape) or any(
                    d != -1 and d != g for d, g in zip(shape, got_shape)))) or (
                    dtype is not None and got_dtype != dtype):
                raise ShapeError(
                    f"op #{index} '{op.type}' wrote {name!r} with shape {list(got_shape)} "
                    f"dtype {got_dtype}, but the variable declares shape "
                    f"{'?' if shape is None else list(shape)} dtype "
                    f"{'?' if dtype is None else dtype} (-1: any size)")
    return check


def _own(value):
    """``value`` as an array that shares no buffer with another value."""
    return value.copy() if isinstance(value, np.ndarray) else value


def _fused_note(op) -> str:
    """For an op made by a fusion pass: the ops the user built, as they printed."""
    origin = getattr(op, "fused_from", None)
    if not origin:
        return ""
    return ("\n  (a graph pass fused these ops; BuildStrategy(enable_passes=False) runs them "
            "unfused):\n    " + "\n    ".join(origin))


def _slot_of(op, name: str) -> str:
    for slot, names in op.inputs.items():
        if name in names:
            return slot
    return "?"
