"""Running a traced program on eager Tensors, on the tape (Paddle's ``run_program`` op).

The forward run executes the program and returns eager Tensors. When gradients are wanted
(grad mode on, and an input or a parameter needs one), the call is recorded as one tape node,
:class:`RunProgramNode`. Its backward runs the program's training program
(``ConcreteProgram.backward``: the forward ops followed by their gradient ops, the output
gradients fed in) on the inputs and parameter values of the forward call, with the random
generator as it was then, so dropout masks and every other value are the forward's; it
returns the gradients of the inputs and parameters to the tape. The forward part is computed
again in backward: the executor keeps no values between two runs.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.grad_mode import is_grad_enabled
from ..engine.tape import Node, edge_of
from ..engine.tensor import Tensor
from ..ops.random import default_generator
from .concrete_program import ConcreteProgram


def run_concrete(concrete: ConcreteProgram, inputs: list) -> list[Tensor]:
    """Run ``concrete`` on ``inputs`` (eager Tensors or arrays, one per feed)."""
    feed = {var.name: _array(x) for var, x in zip(concrete.inputs, inputs)}
    wanted, sources = _wanted(concrete, inputs)
    record = bool(wanted) and is_grad_enabled()
    arrays = {name: p._array for name, p in concrete.parameters.items()}
    rng_state = default_generator.rng.bit_generator.state if record else None
    scope = concrete.scope(arrays)
    values = concrete.executor.run(concrete.compiled, feed=feed,
                                   fetch_list=concrete.outputs, scope=scope)
    concrete.write_back(scope)
    outputs = [Tensor._wrap(np.asarray(v)) for v in values]
    if record:
        differentiable = concrete.differentiable_outputs()
        node = RunProgramNode(concrete, [edge_of(t) for t in sources], tuple(wanted), feed,
                              arrays, rng_state, [(o._array.shape, o._array.dtype)
                                                  for o in outputs])
        for index in differentiable:
            outputs[index].stop_gradient = False
            outputs[index]._node, outputs[index]._out_index = node, index
    return outputs


def _array(value: Any) -> np.ndarray:
    return value._array if isinstance(value, Tensor) else np.asarray(value)


def _wanted(concrete: ConcreteProgram, inputs: list) -> tuple[list[str], list[Tensor]]:
    """Names (feeds, then parameters) whose gradients the tape needs, and their tensors."""
    names, sources = [], []
    for var, x in zip(concrete.inputs, inputs):
        if isinstance(x, Tensor) and not x.stop_gradient:
            names.append(var.name)
            sources.append(x)
    for name, param in concrete.parameters.items():
        if not param.stop_gradient and getattr(param, "trainable", False):
            names.append(name)
            sources.append(param)
    return names, sources


class RunProgramNode(Node):
    """The backward of one to_static call (see the module docstring)."""

    __slots__ = ("concrete", "wanted", "feed", "arrays", "rng_state", "out_meta")

    def __init__(self, concrete: ConcreteProgram, edges: list, wanted: tuple[str, ...],
                 feed: dict, arrays: dict, rng_state: dict, out_meta: list):
        super().__init__(edges, len(out_meta))
        self.concrete = concrete
        self.wanted = wanted
        self.feed = feed
        self.arrays = arrays
        self.rng_state = rng_state
        self.out_meta = out_meta

    @property
    def name(self) -> str:
        return "run_program"

    def apply(self, grads: list) -> list:
        backward = self.concrete.backward(self.wanted)
        feed = dict(self.feed)
        for index, name in backward.grad_feeds.items():
            grad = grads[index]
            if grad is None:                  # an output backward did not reach: zeros
                shape, dtype = self.out_meta[index]
                grad = np.zeros(shape, dtype)
            feed[name] = grad
        fetches = [v for v in backward.fetches if v is not None]
        rng = default_generator.rng.bit_generator
        current, rng.state = rng.state, self.rng_state
        try:
            values = self.concrete.executor.run(backward.program, feed=feed,
                                                fetch_list=fetches,
                                                scope=self.concrete.scope(self.arrays))
        finally:
            rng.state = current
        results, it = [], iter(values)
        for var in backward.fetches:
            results.append(None if var is None else np.asarray(next(it)))
        return results

    def release(self) -> None:
        super().release()
        self.feed = self.arrays = None
