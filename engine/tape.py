"""The tape autograd engine: backward nodes, edges, and the reverse sweep.

Every recorded op (or PyLayer call) is a :class:`Node`. A node's ``edges`` say where the
gradient of each of its differentiable inputs goes: ``(child_node, output_index, None)``
for an input produced by another node, ``(None, 0, leaf)`` for a leaf that needs a gradient,
or None. Edges are captured when the op runs, so a later in-place re-pointing of a tensor
(a PyLayer returning its input) does not change older nodes.

Nodes are numbered as they are created, so a node's inputs come from lower-numbered nodes.
``backward`` runs the nodes that received a gradient from the highest number down (a
topological order, the reverse op order the static backward uses), each once all of its
consumers have added their contributions. Leaves accumulate into ``tensor.grad`` across
calls.

With ``create_graph`` (``paddle.grad(..., create_graph=True)``) the gradients are Tensors and
every node runs its backward as recorded eager ops (``Node.apply_graph``), so the results
can be differentiated again."""
from __future__ import annotations

import contextlib
import heapq
import itertools
import weakref
from typing import Any, Sequence

import numpy as np

from .grad_mode import set_grad_enabled
from .tensor import Tensor, is_zeros_view


NODE_NUMBERS = itertools.count()     # creation order of nodes: a topological order

# Paddle's backward hooks (egr::Controller): callbacks run after a leaf's gradient is
# accumulated (by leaf id: [(weakref, fn)]), and once at the end of every backward().
# Data parallelism uses them to reduce gradients while backward runs.
_LEAF_HOOKS: dict[int, list] = {}
_FINAL_HOOKS: list = []


def register_leaf_hook(leaf: Tensor, hook) -> None:
    """Call ``hook(leaf)`` each time backward() accumulates into ``leaf.grad``."""
    _LEAF_HOOKS.setdefault(id(leaf), []).append((weakref.ref(leaf), hook))


def remove_leaf_hook(leaf: Tensor, hook) -> None:
    hooks = [(r, h) for r, h in _LEAF_HOOKS.get(id(leaf), []) if h is not hook]
    if hooks:
        _LEAF_HOOKS[id(leaf)] = hooks
    else:
        _LEAF_HOOKS.pop(id(leaf), None)


def register_backward_final_hook(hook) -> None:
    """Call ``hook()`` at the end of every backward() (Paddle's backward final hook)."""
    _FINAL_HOOKS.append(hook)


def remove_backward_final_hook(hook) -> None:
    if hook in _FINAL_HOOKS:
        _FINAL_HOOKS.remove(hook)


def _leaf_accumulated(t: Tensor) -> None:
    for ref, hook in _LEAF_HOOKS.get(id(t), ()):
        if ref() is t:
            hook(t)


class Node:
    """One backward step. Subclasses implement ``apply(grads) -> grads per edge``."""

    __slots__ = ("edges", "n_outputs", "released", "seq")

    def __init__(self, edges: list, n_outputs: int):
        self.edges = edges
        self.n_outputs = n_outputs
        self.released = False
        self.seq = next(NODE_NUMBERS)

    @property
    def name(self) -> str:
        return type(self).__name__

    def apply(self, grads: list) -> list:
        raise NotImplementedError

    def apply_graph(self, grads: list) -> list:
        """``apply`` on Tensors, recording the backward computation on the tape."""
        raise RuntimeError(f"(NotFound) The Op {self.name} doesn't have any grad op. If you "
                           "don't intend calculating higher order derivatives, please set "
                           "`create_graph` to False.")

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


def _seed(t: Tensor, grad: Any, create_graph: bool = False):
    """The initial gradient of ``t``: an array, or a Tensor (kept on the tape) when
    ``create_graph``."""
    if grad is None:
        array = t._array
        ones = np.array(1, array.dtype) if array.ndim == 0 else np.ones_like(array)
        return Tensor._wrap(ones) if create_graph else ones
    array = grad._array if isinstance(grad, Tensor) else np.asarray(grad)
    if array.shape != t._array.shape:
        raise ValueError(f"The shape of grad_tensor {list(array.shape)} must equal the shape "
                         f"of the tensor it is the gradient of, {list(t._array.shape)}")
    if not create_graph:
        return array.astype(t._array.dtype, copy=False)
    if not isinstance(grad, Tensor):
        return Tensor._wrap(array.astype(t._array.dtype))
    return grad if array.dtype == t._array.dtype else grad.astype(t._array.dtype)


def _run_graph(roots: Sequence[Tensor], seeds: Sequence[Any], retain_graph: bool,
               captures: dict, blocked: set | None = None, create_graph: bool = False) -> None:
    """The reverse sweep of ``grad()`` (``_sweep`` is backward()'s). ``captures`` maps
    ``(node, index)`` or a leaf's id to a result slot (leaves do not accumulate); ``blocked``
    keys get no gradient. With ``create_graph`` the seeds and gradients are Tensors and nodes
    run ``apply_graph``."""
    buffers: dict[Node, list] = {}
    pending: list = []                       # heap of (-seq, node) with a gradient buffer
    for t, g in zip(roots, seeds):
        node = t._node
        if node is None:
            _deliver_leaf(t, g, captures, blocked)
            continue
        if node not in buffers:
            heapq.heappush(pending, (-node.seq, node))
        _add(buffers, node, t._out_index, g)
    while pending:
        node = heapq.heappop(pending)[1]
        grads = _capture(node, buffers.pop(node), captures, blocked)
        if grads is None:
            continue
        if node.released:
            _raise_released(node)
        results = node.apply_graph(grads) if create_graph else node.apply(grads)
        edges = node.edges
        if len(results) != len(edges):
            raise RuntimeError(f"backward of {node.name} returned {len(results)} gradients "
                               f"for {len(edges)} inputs")
        for edge, g in zip(edges, results):
            if g is None or edge is None:
                continue
            child = edge[0]
            if child is None:
                _deliver_leaf(edge[2], g, captures, blocked)
                continue
            slots = buffers.get(child)
            if slots is None:
                slots = buffers[child] = [None] * child.n_outputs
                heapq.heappush(pending, (-child.seq, child))
            index = edge[1]
            slots[index] = g if slots[index] is None else slots[index] + g
        if not retain_graph:
            node.release()


def _capture(node: Node, grads: list, captures: dict, blocked: set | None):
    """Record the gradients ``grad()`` asked for; drop blocked ones (None: none is left)."""
    for i, g in enumerate(grads):
        if g is not None and (node, i) in captures:
            captures[(node, i)] = g
    if blocked:
        grads = [None if (node, i) in blocked else g for i, g in enumerate(grads)]
        if all(g is None for g in grads):
            return None
    return grads


def _add(buffers: dict, node: Node, index: int, g: np.ndarray) -> None:
    slots = buffers.get(node)
    if slots is None:
        slots = buffers[node] = [None] * node.n_outputs
    slots[index] = g if slots[index] is None else slots[index] + g


def _deliver_leaf(t: Tensor, g: np.ndarray, captures: dict, blocked: set | None) -> None:
    if blocked and id(t) in blocked:
        return
    if id(t) in captures:
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
        _sweep(pairs, retain_graph)
        for hook in list(_FINAL_HOOKS):
            hook()


def _sweep(pairs: list, retain_graph: bool) -> None:
    """``_run_graph`` for backward(): array gradients, every leaf accumulates (the hot path
    of an eager training step, so written out on its own)."""
    buffers: dict[Node, list] = {}
    pending: list = []
    for t, g in pairs:
        if t._node is None:
            accumulate_leaf(t, g)
            continue
        if t._node not in buffers:
            heapq.heappush(pending, (-t._node.seq, t._node))
        _add(buffers, t._node, t._out_index, g)
    pop, push, hooks = heapq.heappop, heapq.heappush, _LEAF_HOOKS
    while pending:
        node = pop(pending)[1]
        grads = buffers.pop(node)
        if node.released:
            _raise_released(node)
        results = node.apply(grads)
        edges = node.edges
        if len(results) != len(edges):
            raise RuntimeError(f"backward of {node.name} returned {len(results)} gradients "
                               f"for {len(edges)} inputs")
        for edge, g in zip(edges, results):
            if g is None or edge is None:
                continue
            child = edge[0]
            if child is None:
                accumulate_leaf(edge[2], g)
                if hooks:
                    _leaf_accumulated(edge[2])
                continue
            slots = buffers.get(child)
            if slots is None:
                slots = buffers[child] = [None] * child.n_outputs
                push(pending, (-child.seq, child))
            index = edge[1]
            slots[index] = g if slots[index] is None else slots[index] + g
        if not retain_graph:
            node.release()


def _raise_released(node: Node) -> None:
    raise RuntimeError(
        f"Trying to run backward of {node.name} a second time: its saved values "
        "were released by the first backward. Pass retain_graph=True to the first "
        "backward() / paddle.grad() call to keep them.")


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool = False,
         no_grad_vars=None) -> list:
    """The gradients of ``outputs`` with respect to ``inputs``, returned instead of being
    accumulated into ``.grad`` (Paddle's ``paddle.grad``). With ``create_graph=True`` the
    backward computation is recorded, so the results can be differentiated again;
    ``retain_graph`` defaults to ``create_graph``."""
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs] * len(outputs) if grad_outputs is None else [grad_outputs]
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"The length of grad_outputs ({len(grad_outputs)}) must equal the "
                         f"length of outputs ({len(outputs)})")
    create_graph = bool(create_graph)
    retain_graph = create_graph if retain_graph is None else bool(retain_graph)
    keys = [id(t) if t._node is None else (t._node, t._out_index) for t in inputs]
    captures: dict = {key: None for key in keys}
    blocked = None
    if no_grad_vars is not None:
        no_grad_vars = [no_grad_vars] if isinstance(no_grad_vars, Tensor) else no_grad_vars
        blocked = {id(t) if t._node is None else (t._node, t._out_index) for t in no_grad_vars}
    pairs = [(t, _seed(t, g, create_graph)) for t, g in zip(outputs, grad_outputs)
             if not t.stop_gradient]
    if pairs:
        with set_grad_enabled(True) if create_graph else contextlib.nullcontext():
            _run_graph([t for t, _ in pairs], [g for _, g in pairs], retain_graph,
                       captures, blocked, create_graph)
    results = []
    for i, key in enumerate(keys):
        g = captures[key]
        if g is None and not allow_unused:
            raise ValueError(f"The {i}-th input does not appear in the backward graph. Please "
                             "check the input tensor or set allow_unused=True to get None result.")
        results.append(g if g is None or create_graph else Tensor._wrap(g))
    return results
