"""Higher-order eager gradients: with ``paddle.grad(..., create_graph=True)`` every backward
step runs as eager ops recorded on the tape, so its results can be differentiated again.

A node's backward is the registry declaration the static backward uses: the derived
``<type>_grad`` op, run on the tape like any op (its own gradient comes from its grad maker
in ``ops/double_grad.py``), or the specs of the op's grad maker (``grad_specs.py``). The
values the forward op saved are linked back into the tape: a saved input through the edge
recorded for it, a saved output to the node itself. A grad op without a rule whose inputs
need a gradient raises Paddle's NotFound error naming it."""
from __future__ import annotations

from typing import Any

import numpy as np

from .tape import Node
from .grad_mode import _GradMode
from .run import OpNode, _explain, _info, _record
from .tensor import Tensor


class LeafLink(Node):
    """Sends the gradient of a saved value to the leaf it was read from, when the leaf holds
    another array by now (an optimizer step replaced it)."""

    __slots__ = ()

    def __init__(self, edge: tuple):
        super().__init__([edge], 1)

    def apply(self, grads: list) -> list:
        return grads

    apply_graph = apply


def linked(array: np.ndarray, edge) -> Tensor:
    """``array`` as a Tensor whose gradient flows along ``edge`` (None: a constant)."""
    if edge is None:
        return Tensor._wrap(array)
    child, index, leaf = edge
    if child is None:
        if leaf._array is array:
            return leaf
        child, index = LeafLink(edge), 0
    t = Tensor._wrap(array, False)
    t._node, t._out_index = child, index
    return t


def run_on_tape(op_type: str, slots: list, attrs: dict, extra: dict | None = None) -> list:
    """Run ``op_type`` on Tensors given per input slot (a Tensor, a list, or None) and record
    it like ``run_op``. Returns the values per output slot. ``extra``: more kernel keywords."""
    info = _info(op_type)
    args, needs_grad = [], False
    for value in slots:
        if value is None:
            args.append(None)
        elif isinstance(value, list):
            args.append([t._array for t in value])
            needs_grad = needs_grad or any(not t.stop_gradient for t in value)
        else:
            args.append(value._array)
            needs_grad = needs_grad or not value.stop_gradient
    needs_grad = needs_grad and _GradMode.enabled
    if needs_grad and not info.differentiable and (info.opdef.differentiable
                                                   or "_grad" in op_type):
        raise RuntimeError(
            f"(NotFound) The Op {op_type} doesn't have any grad op. If you don't intend "
            "calculating higher order derivatives, please set `create_graph` to False.\n"
            f"  [Hint: pyfluid registers no gradient for '{op_type}'; double gradients are "
            "grad makers in pyfluid's ops/double_grad.py.]")
    entry = info.bound(attrs)
    kwargs = {**entry[1], **extra} if extra else entry[1]
    try:
        result = entry[0](*args, **kwargs)
    except Exception as exc:
        raise _explain(op_type, info.inputs, args, exc) from exc
    results = (result,) if info.single_output else tuple(result)
    stop = not needs_grad
    outs = [None if v is None else [Tensor._wrap(a, stop) for a in v] if isinstance(v, list)
            else Tensor._wrap(v, stop) for v in results]
    if needs_grad:
        flat = [o for out in outs for o in (out if isinstance(out, list) else [out])]
        _record(info, attrs, entry, list(slots), args, results, flat)
    return outs


def run_grad_op_on_tape(node: OpNode, grads: list) -> list:
    """``node``'s derived ``<type>_grad`` op on the tape; gradients per differentiable slot."""
    info = node.info
    saved = iter(node.saved)
    slots: list[Any] = []
    for is_dout, index, is_output in info.grad_args:
        if is_dout:
            g = grads[index]
            if g is None:
                shape, dtype = node.out_meta[index]
                g = Tensor._wrap(np.zeros(shape, dtype))
            slots.append(g)
        elif is_output:
            slots.append(_linked_output(node, index, next(saved)))
        else:
            slots.append(_linked_input(node, index, next(saved)))
    extra = {"wanted": node.wanted()} if info.grad_def.takes_wanted else None
    return run_on_tape(info.grad_def.type, slots, node.attrs, extra)


def link_spec_values(node: OpNode, op) -> None:
    """Replace the arrays of a ``grad_specs.SpecOp`` by Tensors linked into the tape."""
    env = op.env
    for i, slot in enumerate(node.info.opdef.inputs):
        names = op.input(slot.name)
        edges = node.slot_edges(i) or [None] * len(names)
        for name, edge in zip(names, edges):
            env[name] = linked(env[name], edge)
    for name, k in op.output_index.items():
        env[name] = _output_tensor(node, k, env[name])


def _linked_input(node: OpNode, i: int, value):
    edges = node.slot_edges(i)
    if isinstance(value, list):
        return [linked(a, e) for a, e in zip(value, edges or [None] * len(value))]
    return linked(value, edges[0] if edges else None)


def _linked_output(node: OpNode, slot_index: int, value) -> Tensor:
    outputs = node.info.opdef.outputs
    if any(s.duplicable for s in outputs[:slot_index + 1]):
        raise NotImplementedError(
            f"create_graph: the grad rule of '{node.info.opdef.type}' reads a list output "
            "(after a list output slot); its double gradient is not supported")
    return _output_tensor(node, slot_index, value)


def _output_tensor(node: OpNode, k: int, array: np.ndarray) -> Tensor:
    t = Tensor._wrap(array, False)
    t._node, t._out_index = node, k
    return t
