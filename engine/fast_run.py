"""``run_op`` written out for one op type: the loops of the generic ``run_op`` over the op's
input slots, its differentiable slots and its saved values unrolled into straight-line code,
generated once per type (as the static Executor generates one function per block).

It covers the ops without duplicable inputs; it checks, converts, runs and records exactly
as ``run_op`` does, in the same order, with the same messages. A single-output op whose
backward is its derived grad op is recorded here; any other result goes through
``run.py``'s ``_outputs``."""
from __future__ import annotations

from typing import Callable

from .grad_mode import _GradMode
from .op_info import OpInfo
from .run import OpNode, _as_tensor, _explain, _outputs
from .tensor import Tensor


def compile_run(info: OpInfo) -> Callable | None:
    """``run(inputs, attrs)`` for ``info``'s op type; None when an input slot is
    duplicable (the generic ``run_op`` handles those)."""
    if any(duplicable for _, _, duplicable in info.slots):
        return None
    n = len(info.slots)
    lines = ["def run(inputs, attrs):"]
    for i, (name, dispensable, _) in enumerate(info.slots):
        lines.append(f"    t{i} = inputs.get({name!r})")
        lines.append(f"    if t{i} is None:")
        lines.append("        pass" if dispensable else f"        _missing(inputs, {name!r})")
        lines.append(f"    elif t{i}.__class__ is not Tensor and not isinstance(t{i}, Tensor):")
        lines.append(f"        t{i} = _as_tensor(t{i})")
    arrays = "".join(_array(info, i) + ", " for i in range(n))
    tensors = ", ".join(f"t{i}" for i in range(n))
    lines.append(f"    args = ({arrays})")
    lines += ["    entry = bound(attrs)",
              "    try:",
              "        result = entry[0](*args, **entry[1])",
              "    except Exception as exc:",
              "        raise _explain(op_type, slots, args, exc) from exc"]
    wants = " or ".join(_wants_grad(info, i) for i in range(n)) or "False"
    lines.append(f"    record = ({wants}) and differentiable and _GradMode.enabled")
    if info.plain and info.single_output:
        lines += ["    if isinstance(result, list):",
                  f"        return _outputs(info, attrs, entry, [{tensors}], args, result, record)",
                  "    out = Tensor._wrap(result, not record)",
                  "    if record:",
                  *_node_lines(info, "1", "result"),
                  "        out._node = node",
                  "    return out"]
    elif info.plain:                    # several outputs, none duplicable
        lines += ["    stop = not record",
                  "    outs = tuple([None if v is None else Tensor._wrap(v, stop) for v in result])",
                  "    if record:",
                  *_node_lines(info, "len(outs)", "result[{}]"),
                  "        node.out_meta = [None if o is None else (o._array.shape, o._array.dtype)",
                  "                         for o in outs]",
                  "        for k, o in enumerate(outs):",
                  "            if o is not None:",
                  "                o._node = node",
                  "                o._out_index = k",
                  "    return outs"]
    else:
        lines.append(f"    return _outputs(info, attrs, entry, [{tensors}], args, result, record)")
    namespace = {"Tensor": Tensor, "OpNode": OpNode, "_GradMode": _GradMode, "info": info,
                 "_as_tensor": _as_tensor, "_explain": _explain, "_outputs": _outputs,
                 "bound": info.bound, "op_type": info.opdef.type, "slots": info.inputs,
                 "differentiable": info.differentiable,
                 "_missing": _missing_input(info.opdef.type)}
    exec(compile("\n".join(lines), f"<eager run_op of {info.opdef.type}>", "exec"), namespace)
    return namespace["run"]


def _missing_input(op_type: str) -> Callable:
    def missing(inputs: dict, name: str):
        raise ValueError(f"op '{op_type}': input '{name}' is required but was not given "
                         f"(received slots {sorted(inputs)})")
    return missing


def _optional(info: OpInfo, i: int) -> bool:
    return info.slots[i][1]


def _array(info: OpInfo, i: int) -> str:
    return f"(None if t{i} is None else t{i}._array)" if _optional(info, i) else f"t{i}._array"


def _wants_grad(info: OpInfo, i: int) -> str:
    if _optional(info, i):
        return f"(t{i} is not None and not t{i}.stop_gradient)"
    return f"not t{i}.stop_gradient"


def _edges(info: OpInfo) -> list:
    """Per differentiable slot: where its gradient goes (``tape.edge_of``, inlined)."""
    edges = []
    for i in info.diff_slots:
        none = f"t{i} is None or t{i}.stop_gradient" if _optional(info, i) else \
            f"t{i}.stop_gradient"
        edges.append(f"(None if {none} else (t{i}._node, t{i}._out_index, None) "
                     f"if t{i}._node is not None else (None, 0, t{i}))")
    return edges


def _node_lines(info: OpInfo, n_outputs: str, output: str) -> list:
    """The tape node of a call (as ``run._record_plain`` builds it); ``output`` formats
    the expression of output ``k``."""
    saved = "".join((output.format(index) if is_output else f"args[{index}]") + ", "
                    for index, is_output in info.saved_values)
    lines = [f"        node = OpNode(info, attrs, [{', '.join(_edges(info))}], {n_outputs})",
             "        node.bound = entry",
             f"        node.saved = ({saved})"]
    if info.saved_inputs:
        lines.append(f"        node.versions = {_versions(info)}")
    return lines


def _versions(info: OpInfo) -> str:
    """The version snapshot of the saved input tensors (absent optional ones skipped)."""
    if not any(_optional(info, i) for i in info.saved_inputs):
        return "[" + ", ".join(f"(t{i}, t{i}._version)" for i in info.saved_inputs) + "]"
    pairs = ", ".join(f"t{i}" for i in info.saved_inputs)
    return f"[(t, t._version) for t in ({pairs},) if t is not None]"
