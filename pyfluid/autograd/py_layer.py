"""``paddle.autograd.PyLayer``: a dynamic-graph op whose forward and backward are Python
functions, with the rules of Paddle's eager PyLayer (spec section 8)."""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from ..engine.tape import Node, edge_of
from ..engine.grad_mode import is_grad_enabled, no_grad, set_grad_enabled
from ..engine.tensor import Tensor
from ..framework.variable import Variable


class PyLayerContext:
    """The ``ctx`` passed to forward and backward. Arbitrary attributes may be set on it."""

    def __init__(self) -> None:
        self.container: tuple | None = None
        self.materialize_grads = True
        self.non_differentiable: tuple = ()
        self.not_inplace_tensors: tuple = ()
        self.grad_in_dtype_consistent = True

    def save_for_backward(self, *tensors) -> None:
        """Keep ``tensors`` for backward (call it once, in forward)."""
        self.container = tensors

    def saved_tensor(self) -> tuple | None:
        """The tensors given to ``save_for_backward``."""
        return self.container

    def mark_not_inplace(self, *args: Tensor) -> None:
        """Inputs that forward returns as they are get a new output Tensor object instead of
        being treated as modified in place."""
        self.not_inplace_tensors = args

    def mark_non_differentiable(self, *args: Tensor) -> None:
        """These outputs get stop_gradient=True; backward still receives a (zero) grad."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """True (default): outputs that got no gradient pass zeros to backward; False: None."""
        self.materialize_grads = bool(value)

    def set_grad_in_dtype_consistent(self, flag: bool) -> None:
        """True (default): incoming gradients are cast to the dtype of their forward output."""
        self.grad_in_dtype_consistent = bool(flag)


class PyLayer:
    """Subclass with static ``forward(ctx, *args, **kwargs)`` and ``backward(ctx, *grads)``,
    then call ``YourLayer.apply(*args, **kwargs)``."""

    @staticmethod
    def forward(ctx: PyLayerContext, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for PyLayer.")

    @staticmethod
    def backward(ctx: PyLayerContext, *args):
        raise NotImplementedError("You must implement the backward function for PyLayer.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if any(isinstance(v, Variable) for v in list(args) + list(kwargs.values())):
            raise TypeError(f"{cls.__name__}.apply got a static Variable: PyLayer runs in "
                            "dynamic mode; in static mode use paddle.static.py_func")
        ctx = PyLayerContext()
        in_slots = [_tensors_of(v) for v in list(args) + list(kwargs.values())]
        in_slots = [s for s in in_slots if s is not None]
        inputs = [t for _, ts in in_slots for t in ts]
        requires_grad = is_grad_enabled() and any(not t.stop_gradient for t in inputs)
        edges = [edge_of(t) for t in inputs] if requires_grad else None
        with set_grad_enabled(False):
            outputs = cls.forward(ctx, *args, **kwargs)
        is_sequence = isinstance(outputs, (tuple, list))
        items = list(outputs) if is_sequence else [outputs]
        items = [_replace_returned_inputs(item, inputs, ctx, requires_grad) for item in items]
        out_slots = [s for s in (_tensors_of(item) for item in items) if s is not None]
        if not out_slots:
            raise ValueError("At least one output of `PyLayer.forward` is a `Tensor`.")
        if requires_grad:
            node = PyLayerNode(cls, ctx, edges, in_slots, out_slots)
            k = 0
            for _, tensors in out_slots:
                for t in tensors:
                    if any(t is n for n in ctx.non_differentiable):
                        t.stop_gradient = True
                    else:
                        t.stop_gradient = False
                        t._node, t._out_index = node, k
                    k += 1
        else:
            for t in ctx.non_differentiable:
                t.stop_gradient = True
        if not is_sequence:
            return items[0]
        return tuple(items) if isinstance(outputs, tuple) else items


def _tensors_of(value: Any) -> tuple[bool, list] | None:
    """(duplicable, tensors) when ``value`` is a slot: a Tensor or a list/tuple with Tensors."""
    if isinstance(value, Tensor):
        return False, [value]
    if isinstance(value, (list, tuple)):
        tensors = [v for v in value if isinstance(v, Tensor)]
        return (True, tensors) if tensors else None
    return None


def _replace_returned_inputs(item: Any, inputs: list, ctx: PyLayerContext, requires_grad: bool):
    """Forward returning one of its inputs: a new Tensor if marked not-inplace, else an
    in-place output (the input's version is bumped; leaves needing a grad refuse)."""
    if isinstance(item, (list, tuple)):
        replaced = [_replace_returned_inputs(v, inputs, ctx, requires_grad) for v in item]
        return type(item)(replaced)
    if not isinstance(item, Tensor) or not any(item is t for t in inputs):
        return item
    if any(item is t for t in ctx.not_inplace_tensors):
        return Tensor._wrap(item._array, item.stop_gradient)
    if requires_grad and item._node is None and not item.stop_gradient:
        raise ValueError(f"Leaf Var ({item.name}) that doesn't stop gradient can't use inplace "
                         "strategy.")
    item._bump_inplace_version()
    return item


class PyLayerNode(Node):
    """The backward step of one PyLayer call: runs the user's backward and checks it."""

    __slots__ = ("cls", "ctx", "in_slots", "out_slots", "out_meta")

    def __init__(self, cls: type, ctx: PyLayerContext, edges: list, in_slots: list,
                 out_slots: list):
        super().__init__(edges, sum(len(ts) for _, ts in out_slots))
        self.cls = cls
        self.ctx = ctx
        self.in_slots = [(dup, len(ts), all(t.stop_gradient for t in ts)) for dup, ts in in_slots]
        self.out_slots = [(dup, len(ts)) for dup, ts in out_slots]
        self.out_meta = [(t._array.shape, t._array.dtype) for _, ts in out_slots for t in ts]

    @property
    def name(self) -> str:
        return self.cls.__name__

    def release(self) -> None:
        super().release()
        self.ctx = None

    def apply(self, grads: list) -> list:
        return self._run_backward(grads, graph=False)

    def apply_graph(self, grads: list) -> list:
        """``create_graph``: backward runs with grad recording on (spec §8), so the Tensors
        it returns stay on the tape (unless it is ``once_differentiable``)."""
        return self._run_backward(grads, graph=True)

    def _run_backward(self, grads: list, graph: bool) -> list:
        ctx = self.ctx
        args, k = [], 0
        for dup, count in self.out_slots:
            slot = [self._incoming(grads[k + j], k + j, graph) for j in range(count)]
            args.append(slot if dup else slot[0])
            k += count
        try:
            with set_grad_enabled(graph):
                result = self.cls.backward(ctx, *args)
        except Exception as exc:
            raise OSError(f"Error message in backward of PyLayer '{self.name}':\n"
                          f"  {type(exc).__name__}: {exc}") from exc
        return self._check(result, graph)

    def _incoming(self, g, index: int, graph: bool) -> Tensor | None:
        shape, dtype = self.out_meta[index]
        if g is None:
            return Tensor._wrap(np.zeros(shape, dtype)) if self.ctx.materialize_grads else None
        if self.ctx.grad_in_dtype_consistent and g.dtype != dtype:
            g = g.astype(dtype)
        return g if graph else Tensor._wrap(g)

    def _check(self, result: Any, graph: bool) -> list:
        """The gradient per input tensor: arrays, or the returned Tensors when ``graph``."""
        to_grad = self._grad_tensor if graph else self._grad_array
        values = result if isinstance(result, tuple) else (result,)
        n_slots = len(self.in_slots)
        if len(values) > n_slots:
            raise ValueError(f"The number of outputs of `PyLayer.backward` should be {n_slots}, "
                             f"but received {len(values)}.")
        flat = []
        for i, (dup, count, stop) in enumerate(self.in_slots):
            if i >= len(values):
                if not stop:
                    raise ValueError(f"{self.name}'s backward function should not return empty "
                                     f"at {i} position.")
                flat.extend([None] * count)
                continue
            value = values[i]
            if stop:
                if value is not None:
                    raise ValueError(f"{self.name}'s backward function should return None at "
                                     f"{i} position, because it's forward Tensor's "
                                     "stopgradient is true.")
                flat.extend([None] * count)
            elif dup:
                grads = list(value) if isinstance(value, (list, tuple)) else [value]
                if len(grads) != count:
                    raise ValueError(f"{self.name}'s backward function should return {count} "
                                     f"gradients at {i} position (a list input), but returned "
                                     f"{len(grads)}.")
                flat.extend(to_grad(g) for g in grads)
            else:
                flat.append(to_grad(value))
        return flat

    @classmethod
    def _grad_tensor(cls, value: Any):
        cls._grad_array(value)                  # the same type check
        return value

    @staticmethod
    def _grad_array(value: Any):
        if value is None:
            return None
        if isinstance(value, Tensor):
            return value._array
        raise ValueError("We can only support Tensor or None for backward output, , but got "
                         f"{type(value).__name__}, please check your PyLayer code and make it fits")


def once_differentiable(backward: Callable) -> Callable:
    """Run ``backward`` without recording gradients (it is not differentiated again)."""
    @functools.wraps(backward)
    def wrapper(ctx, *args):
        with no_grad():
            return backward(ctx, *args)
    return wrapper
