"""The tape autograd engine: backward nodes, edges, and the reverse sweep.

Every recorded op (or PyLayer call) is a :class:`Node`. A node's ``edges`` say where the
gradient of each of its differentiable inputs goes: ``(child_node, output_index, None)``
for an input produced by another node, ``(None, 0, leaf)`` for a leaf that needs a gradient,
or None. Edges are captured when the op runs, so a later in-place re-pointing of a tensor
(a PyLayer returning its input) does not change older nodes.

``backward`` counts, for every node reachable from the roots, how many edges point at it,
then runs nodes whose count dropped to zero (a topological order), summing the incoming
gradients of each output first. Leaves accumulate into ``tensor.grad`` across calls."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .tensor import Tensor, is_zeros_view


class Node:
    """One backward step. Subclasses implement ``apply(grads) -> grads per edge``."""

    __slots__ = ("edges", "n_outputs", "released")

    def __init__(self, edges: list, n_outputs: int):
        self.edges = edges
        self.n_outputs = n_outputs
        self.released = False

    @property
    def name(self) -> str:
        return type(self).__name__

    def apply(self, grads: list) -> list:
        raise NotImplementedError

    def release(self) -> None:
        """Free what the node saved for backward (called unless retain_graph)."""
        self.released = True


def edge_of(t: Tensor):
    """Where the gradient of ``t`` goes when ``t`` is an input of a new node. Only a leaf is
    referenced (to accumulate into): intermediate tensors die with their last user."""
    if t.stop_gradient:
        return None
    if t._node is not None:
        return (t._node, t._out_index, None)
    return (None, 0, t)


def accumulate_leaf(t: Tensor, g: np.ndarray) -> None:
    """``t.grad += g`` (Paddle's leaf gradient accumulation, kept across backward calls)."""
    if g.dtype != t._array.dtype:
        g = g.astype(t._array.dtype)
    if g.shape != t._array.shape:
        g = np.broadcast_to(g, t._array.shape).copy()
    if t.grad is None:
        t.grad = Tensor._wrap(g)
    elif is_zeros_view(t.grad._array):        # cleared by clear_grad(): replace, don't add
        t.grad._array = g
    else:
        t.grad._array = t.grad._array + g


def _seed(t: Tensor, grad: Any) -> np.ndarray:
    if grad is None:
        return np.ones_like(t._array)
    array = grad._array if isinstance(grad, Tensor) else np.asarray(grad)
    if array.shape != t._array.shape:
        raise ValueError(f"The shape of grad_tensor {list(array.shape)} must equal the shape "
                         f"of the tensor it is the gradient of, {list(t._array.shape)}")
    return array.astype(t._array.dtype, copy=False)


def _run_graph(roots: Sequence[Tensor], seeds: Sequence[np.ndarray], retain_graph: bool,
               captures: dict | None = None, blocked: set | None = None) -> None:
    """The reverse sweep. ``captures`` (for ``grad()``) maps ``(node, index)`` or a leaf's id
    to a result slot and stops leaf accumulation; ``blocked`` keys get no gradient."""
    buffers: dict[Node, list] = {}
    for t, g in zip(roots, seeds):
        if t._node is None:
            _deliver_leaf(t, g, captures, blocked)
        else:
            _add(buffers, t._node, t._out_index, g)
    deps: dict[Node, int] = {}
    stack = list(buffers)
    seen = set(stack)
    while stack:
        node = stack.pop()
        for edge in node.edges:
            if edge is not None and edge[0] is not None:
                child = edge[0]
                deps[child] = deps.get(child, 0) + 1
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
    ready = [n for n in seen if n not in deps]
    while ready:
        node = ready.pop()
        grads = buffers.pop(node, None)
        if captures is not None and grads is not None:
            for i, g in enumerate(grads):
                if (node, i) in captures and g is not None:
                    captures[(node, i)] = g
        if blocked:
            grads = [None if (node, i) in blocked else g for i, g in enumerate(grads or ())]
        results = None
        if grads is not None and any(g is not None for g in grads):
            if node.released:
                raise RuntimeError(
                    f"Trying to run backward of {node.name} a second time: its saved values "
                    "were released by the first backward. Pass retain_graph=True to the first "
                    "backward() / paddle.grad() call to keep them.")
            results = node.apply(grads)
        for k, edge in enumerate(node.edges):
            if edge is None:
                continue
            child, index, tensor = edge
            g = results[k] if results is not None else None
            if child is None:
                if g is not None:
                    _deliver_leaf(tensor, g, captures, blocked)
                continue
            if g is not None:
                _add(buffers, child, index, g)
            deps[child] -= 1
            if deps[child] == 0:
                ready.append(child)
        if not retain_graph:
            node.release()


def _add(buffers: dict, node: Node, index: int, g: np.ndarray) -> None:
    slots = buffers.get(node)
    if slots is None:
        slots = buffers[node] = [None] * node.n_outputs
    slots[index] = g if slots[index] is None else slots[index] + g


def _deliver_leaf(t: Tensor, g: np.ndarray, captures: dict | None, blocked: set | None) -> None:
    if blocked and id(t) in blocked:
        return
    if captures is None:
        accumulate_leaf(t, g)
    elif id(t) in captures:
        old = captures[id(t)]
        captures[id(t)] = g if old is None else old + g


def backward(tensors: Sequence[Tensor], grad_tensors: Sequence[Any] | None = None,
             retain_graph: bool = False) -> None:
    """Run backward from ``tensors`` (Paddle's ``paddle.autograd.backward``). Tensors with
    stop_gradient=True contribute nothing."""
    grad_tensors = list(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise ValueError(f"The length of grad_tensors ({len(grad_tensors)}) must equal the "
                         f"length of tensors ({len(tensors)})")
    pairs = [(t, _seed(t, g)) for t, g in zip(tensors, grad_tensors) if not t.stop_gradient]
    if pairs:
        _run_graph([t for t, _ in pairs], [g for _, g in pairs], retain_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool = False,
         no_grad_vars=None) -> list:
    """The gradients of ``outputs`` with respect to ``inputs``, returned instead of being
    accumulated into ``.grad`` (Paddle's ``paddle.grad``)."""
    if create_graph:
        raise NotImplementedError("paddle.grad(create_graph=True): higher-order gradients are "
                                  "not supported by pyfluid's eager engine")
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = [inputs] if single else list(inputs)
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs] * len(outputs) if grad_outputs is None else [grad_outputs]
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"The length of grad_outputs ({len(grad_outputs)}) must equal the "
                         f"length of outputs ({len(outputs)})")
    keys = [id(t) if t._node is None else (t._node, t._out_index) for t in inputs]
    captures: dict = {key: None for key in keys}
    blocked = None
    if no_grad_vars is not None:
        no_grad_vars = [no_grad_vars] if isinstance(no_grad_vars, Tensor) else no_grad_vars
        blocked = {id(t) if t._node is None else (t._node, t._out_index) for t in no_grad_vars}
    pairs = [(t, _seed(t, g)) for t, g in zip(outputs, grad_outputs) if not t.stop_gradient]
    if pairs:
        _run_graph([t for t, _ in pairs], [g for _, g in pairs], bool(retain_graph),
                   captures, blocked)
    results = []
    for i, key in enumerate(keys):
        g = captures[key]
        if g is None and not allow_unused:
            raise ValueError(f"The {i}-th input does not appear in the backward graph. Please "
                             "check the input tensor or set allow_unused=True to get None result.")
        results.append(None if g is None else Tensor._wrap(g))
    return results
