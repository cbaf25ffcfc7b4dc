"""Backward of ops with a custom grad maker: run the grad-op specs the static
``append_backward`` would append, by name, on the values the forward op saved.

The maker sees a :class:`SpecOp` (the slice of the Operator interface it reads) whose
variables have made-up names; an environment maps those names, and the ``@GRAD`` names the
specs write, to values: arrays, or Tensors linked into the tape when ``create_graph``."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.registry import EMPTY_VAR, GRAD_SUFFIX, get_op, grad_name
from .tensor import Tensor


class SpecOp:
    """A recorded op as a grad maker sees it: slots -> names, attrs, and ``block`` for the
    shapes of its variables."""

    def __init__(self, opdef, attrs: dict, args: list, results: tuple):
        """``args``: kernel inputs per input slot; ``results``: values per output slot."""
        self.type = opdef.type
        self.attrs = {k: attrs.get(k, spec.default) for k, spec in opdef.attrs.items()}
        self.inputs: dict = {}
        self.outputs: dict = {}
        self.env: dict[str, Any] = {}
        self.output_index: dict[str, int] = {}     # output name -> its index among node outputs
        self.block = self
        flat = 0
        for side, slots, values in (("in", opdef.inputs, args), ("out", opdef.outputs, results)):
            target = self.inputs if side == "in" else self.outputs
            for k, (slot, value) in enumerate(zip(slots, values)):
                if value is None:
                    flat += side == "out"
                    continue
                values_ = value if slot.duplicable else [value]
                names = [f"{side}{k}_{j}" for j in range(len(values_))]
                target[slot.name] = names
                self.env.update(zip(names, values_))
                if side == "out":
                    self.output_index.update((n, flat + j) for j, n in enumerate(names))
                    flat += len(names)

    def input(self, slot: str) -> list:
        return self.inputs.get(slot, [])

    def output(self, slot: str) -> list:
        return self.outputs.get(slot, [])

    def attr(self, name: str) -> Any:
        return self.attrs[name]

    def _var_recursive(self, name: str) -> Any:
        """The value named ``name`` (it has the ``shape`` a maker may check)."""
        return self.env[name]


def apply_grad_specs(node, grads: list, graph: bool) -> list:
    """Gradients per edge of ``node`` (an ``OpNode`` of a grad-maker op) from the gradients
    of its outputs. ``graph``: values are Tensors and every spec runs as a recorded op."""
    args, results = node.saved
    opdef = node.info.opdef
    op = SpecOp(opdef, node.attrs, args, results)
    no_grad = set()
    for i, slot in enumerate(opdef.inputs):
        edges = node.slot_edges(i) or [None] * len(op.input(slot.name))
        no_grad.update(grad_name(n) for n, e in zip(op.input(slot.name), edges) if e is None)
    if graph:
        link_spec_values(node, op)
    env = op.env
    for name, k in op.output_index.items():
        if grads[k] is not None:
            env[grad_name(name)] = grads[k]
    for spec in opdef.make_grad_ops(op, no_grad):
        gdef = get_op(spec["type"])
        gargs = []
        for slot in gdef.inputs:
            names = [n for n in spec["inputs"].get(slot.name, []) if n != EMPTY_VAR]
            values = [_lookup(env, n, graph) for n in names]
            gargs.append(values if slot.duplicable else (values[0] if values else None))
        attrs = spec.get("attrs", {})
        if graph:
            out = run_on_tape(gdef.type, gargs, attrs)
        else:
            kernel, kwargs = gdef.bound_kernel(attrs)
            out = kernel(*gargs, **kwargs)
            out = (out,) if len(gdef.outputs) == 1 else out
        for slot, value in zip(gdef.outputs, out):
            names = spec["outputs"].get(slot.name, [])
            values = value if slot.duplicable else [value]
            for n, v in zip(names, values):
                if n != EMPTY_VAR and v is not None:
                    env[n] = env[n] + v if n in env else v
    flat = []
    for i in node.info.diff_slots:
        slot = opdef.inputs[i]
        names = op.input(slot.name)
        if not names and not slot.duplicable:
            flat.append(None)                  # an absent input still has its (None) edge
        flat.extend(env.get(grad_name(n)) for n in names)
    return flat


def _lookup(env: dict, name: str, graph: bool):
    """A value by name; the missing gradient of a forward output is zeros (as the static
    backward fills it with ``fill_any_like``)."""
    value = env.get(name)
    if value is None and name.endswith(GRAD_SUFFIX) and name[:-len(GRAD_SUFFIX)] in env:
        like = env[name[:-len(GRAD_SUFFIX)]]
        value = Tensor._wrap(np.zeros_like(like._array)) if graph else np.zeros_like(like)
    return value


from .higher_order import link_spec_values, run_on_tape  # noqa: E402
