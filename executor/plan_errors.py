"""The errors a plan raises, phrased for the user: which op failed, in which block, on what
inputs, built where (and, for fused ops, which ops the user wrote); and the debug check of
op outputs against their declared shapes and dtypes."""
from __future__ import annotations

import difflib

from ..framework.errors import ExecutionError, FetchError, ShapeError
from ..ops.types import Meta, VarType, convert_dtype, to_numpy_dtype


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


def checked_call(plan, key: str, where: str, op, opdef, args: list, written: list) -> str:
    """The code that checks op ``where``'s outputs after its call (debug checks), or "".
    py_func's results are the function's, as in Paddle (declared shapes are hints), and
    ``runtime_shaped`` outputs are decided by the run."""
    if opdef.op_kernel is not None or opdef.infer_shape is None:
        return ""
    unchecked = {n for slot in opdef.runtime_shaped for n in op.output(slot)}
    checked = [(n, ref) for n, ref in written if n not in unchecked
               and getattr(plan.find_var(n), "type", None) == VarType.LOD_TENSOR]
    if not checked:
        return ""
    plan.namespace[f"chk{key}"] = output_check(where, op, opdef, [n for n, _ in checked])
    inputs = ", ".join(args[:len(opdef.inputs)]) + ("," if len(opdef.inputs) == 1 else "")
    return f"; chk{key}(({inputs}), {', '.join(ref for _, ref in checked)})"


def output_check(where: str, op, opdef, out_names: list):
    """A function checking op ``where``'s outputs against its shape rule (debug checks): the
    rule runs on the shapes and dtypes of this run's inputs, so the check holds for programs
    read from files too, whatever shapes the file declares. ``check(inputs, *outputs)`` takes
    the input values per slot and the values of ``out_names``; ``-1`` in the rule's result
    matches any size. Raises ShapeError naming the op, the variable and what differs."""
    attrs = {k: op.attrs.get(k, spec.default) for k, spec in opdef.attrs.items()}
    out_slots = [(slot, name) for slot in opdef.outputs for name in op.outputs.get(slot.name, ())
                 if name in out_names]

    def check(inputs, *values):
        metas = [_meta_of(value, slot.duplicable) for slot, value in zip(opdef.inputs, inputs)]
        if any(m is _UNKNOWN for m in metas):
            return              # an input that is not an array (a tensor array, a request)
        try:
            result = opdef.infer_shape(*metas, **attrs)
        except (ValueError, TypeError, IndexError, KeyError) as exc:
            raise ShapeError(f"op {where} '{op.type}': its shape rule rejects this run's "
                             f"inputs ({_describe(metas)}): {exc}") from None
        rule = _rule_by_output(opdef, op, result)
        for (slot, name), value in zip(out_slots, values):
            expected = rule.get(name)
            if value is None or expected is None:
                continue
            got_dtype, got_shape = getattr(value, "dtype", None), getattr(value, "shape", None)
            if got_dtype is None or got_shape is None:
                raise ShapeError(f"op {where} '{op.type}' wrote {name!r} as a "
                                 f"{type(value).__name__}, not an array")
            shape = tuple(expected.shape)
            dtype = to_numpy_dtype(expected.dtype) if expected.dtype is not None else None
            if len(shape) != len(got_shape) or any(d != -1 and d != g
                                                    for d, g in zip(shape, got_shape)) or (
                    dtype is not None and got_dtype != dtype):
                raise ShapeError(
                    f"op {where} '{op.type}' wrote {name!r} (slot {slot.name}) with shape "
                    f"{list(got_shape)} dtype {got_dtype}, but its shape rule gives shape "
                    f"{list(shape)} dtype {dtype} for inputs {_describe(metas)} (-1: any "
                    "size): the kernel or the shape rule is wrong")
    return check


_UNKNOWN = object()


def _meta_of(value, duplicable: bool):
    if value is None:
        return None
    if duplicable:
        metas = [_meta_of(v, False) for v in value]
        return _UNKNOWN if any(m is _UNKNOWN or m is None for m in metas) else metas
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is None or dtype is None or not isinstance(shape, tuple):
        return _UNKNOWN
    try:
        return Meta(tuple(shape), convert_dtype(dtype))
    except (TypeError, ValueError, KeyError):
        return _UNKNOWN


def _rule_by_output(opdef, op, result) -> dict:
    """Output variable name -> the Meta the shape rule gave it."""
    results = (result,) if isinstance(result, Meta) or len(opdef.outputs) == 1 else result
    by_name = {}
    for slot, res in zip(opdef.outputs, results):
        names = op.outputs.get(slot.name, [])
        res_list = res if slot.duplicable and isinstance(res, list) else [res] * len(names)
        by_name.update((n, m) for n, m in zip(names, res_list) if isinstance(m, Meta))
    return by_name


def _describe(metas: list) -> str:
    def one(m):
        if m is None:
            return "-"
        if isinstance(m, list):
            return "[" + ", ".join(one(x) for x in m) + "]"
        return f"{m.dtype.name_str}{list(m.shape)}"
    return ", ".join(one(m) for m in metas)
