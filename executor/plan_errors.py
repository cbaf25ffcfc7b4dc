"""The errors a plan raises, phrased for the user: which op failed, in which block, on what
inputs, built where (and, for fused ops, which ops the user wrote); and the debug check of
op outputs against their declared shapes and dtypes."""
from __future__ import annotations

import difflib

from ..framework.errors import ExecutionError, FetchError, ShapeError
from ..ops.types import to_numpy_dtype


def missing_value(plan, name: str) -> Exception:
    """A value the run needs from the scope is not there."""
    var = plan.find_var(name)
    op = next((op for op in plan.all_ops() if name in op.input_arg_names), None)
    if op is None:
        return missing_fetch(plan, name, var)
    where = f"op #{op.idx} '{op.type}' of block {op.block.idx} (built at {op.site})"
    if var is not None and (var.is_data or var.need_check_feed):
        hint = f"it is a data variable: pass it in feed={{'{name}': ...}}"
    elif var is not None and var.persistable:
        hint = "it is persistable: run the startup program first (exe.run(startup_program))"
    else:
        hint = "no earlier op computes it, it was not fed, and the scope has no value for it"
    return ExecutionError(f"The Tensor in the {op.type} Op's Input Variable "
                          f"{_slot_of(op, name)}({name}) is not initialized: read by {where}; "
                          f"{hint}.{fused_note(op)}")


def missing_fetch(plan, name: str, var) -> Exception:
    if var is None:
        known = sorted({v.name for b in plan.origin.blocks for v in b.vars.values()})
        close = difflib.get_close_matches(name, known, n=3)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        return FetchError(f"Cannot fetch {name!r}: the program has no variable of that name "
                          f"and the scope holds no value for it.{hint} Fetch a Variable of "
                          "this program (or its name).")
    if var.block.idx != 0:
        return ExecutionError(f"(NotFound) {name} not in VariableScope. It is a variable of block "
                          f"{var.block.idx}, local to the control flow that runs that block: "
                          "assign it to a variable of the global block (paddle.assign(v, "
                          "output=outer)) to fetch it.")
    why = ("it is persistable: run the startup program first" if var.persistable else
           "no op of the program computes it and it was not fed")
    return FetchError(f"Cannot find fetch variable in scope, fetch_var_name is {name}: {why}.")


def explain(plan, exc: Exception) -> Exception:
    """The exception an op raised, with the op, its block, its input shapes and its origin."""
    tb = exc.__traceback__
    frame_locals, entry = None, None
    while tb is not None:
        if tb.tb_frame.f_code is plan.fn.__code__:
            entry = plan.line_ops.get(tb.tb_lineno)
            frame_locals = tb.tb_frame.f_locals
        tb = tb.tb_next
    if entry is None:
        return exc
    op, slots = entry
    shapes = []
    for slot, names in op.inputs.items():
        for name in names:
            value = frame_locals.get(slots.get(name, ""))
            desc = (f"{value.dtype}{list(value.shape)}" if hasattr(value, "shape")
                    else "None" if value is None else type(value).__name__)
            shapes.append(f"{slot}={name}: {desc}")
    return ExecutionError(
        f"{type(exc).__name__}: {exc}\n"
        f"  while running op #{op.idx} in block {op.block.idx}:\n"
        f"  {str(op).strip()}\n"
        f"  inputs: {', '.join(shapes) or '(none)'}\n"
        f"  op built at: {op.site}{fused_note(op)}")


def fused_note(op) -> str:
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


def output_check(where: str, op, checked: list):
    """A function checking the output values of op ``where`` (``#3``, ``b1#0``) against the shapes (``-1``: any
    size) and dtypes their variables declare (debug checks); raises ShapeError naming what
    differs."""
    expected = [(name, var._shape, None if var._dtype is None else to_numpy_dtype(var._dtype))
                for name, var in checked]

    def check(*values):
        for (name, shape, dtype), value in zip(expected, values):
            if value is None:
                continue
            got_dtype = getattr(value, "dtype", None)
            got_shape = getattr(value, "shape", None)
            if got_dtype is None or got_shape is None:
                raise ShapeError(f"op {where} '{op.type}' wrote {name!r} as a "
                                 f"{type(value).__name__}, not an array")
            if (shape is not None and (len(shape) != len(got_shape) or any(
                    d != -1 and d != g for d, g in zip(shape, got_shape)))) or (
                    dtype is not None and got_dtype != dtype):
                raise ShapeError(
                    f"op {where} '{op.type}' wrote {name!r} with shape {list(got_shape)} "
                    f"dtype {got_dtype}, but the variable declares shape "
                    f"{'?' if shape is None else list(shape)} dtype "
                    f"{'?' if dtype is None else dtype} (-1: any size)")
    return check
