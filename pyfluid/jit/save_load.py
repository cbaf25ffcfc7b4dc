"""``paddle.jit.save`` / ``paddle.jit.load``: a traced model as Paddle's inference files
(``<path>.pdmodel`` + ``<path>.pdiparams``, or Paddle 3's ``<path>.json`` with
``format="pir"``), and a Layer that runs such files."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..engine.tensor import Tensor
from ..executor import CPUPlace, Executor, Scope, scope_guard
from ..nn.layer.layers import Layer
from ..static.input_spec import InputSpec
from .to_static import StaticFunction


def _concrete_program(layer: Any, input_spec: Sequence[Any] | None):
    if isinstance(layer, Layer):
        forward = layer.forward
        if not isinstance(forward, StaticFunction):
            forward = StaticFunction(type(layer).forward, input_spec, layer)
    elif isinstance(layer, StaticFunction):
        forward = layer
    else:
        raise TypeError("The input of paddle.jit.save should be 'Layer' or 'Function', but "
                        f"received input type is {type(layer)}.")
    if input_spec is not None:
        specs = [s if isinstance(s, InputSpec) else InputSpec.from_tensor(s) for s in input_spec]
        return forward.get_concrete_program(*specs)
    return forward.concrete_program


def save(layer: Any, path: str, input_spec: Sequence[Any] | None = None, **configs: Any) -> None:
    """Trace ``layer`` (a Layer or a ``to_static`` function) and write ``path.pdmodel`` and
    ``path.pdiparams`` with ``paddle.static.save_inference_model``; the parameters are saved
    with their names (``linear_0.w_0``, ...). ``format="pir"`` (or ``FLAGS_enable_pir_api=1``
    in the environment) writes ``path.json`` instead, the PIR program Paddle 3 loads."""
    from ..static import save_inference_model
    concrete = _concrete_program(layer, input_spec)
    with scope_guard(concrete.scope()):
        save_inference_model(path, concrete.inputs, concrete.outputs, Executor(CPUPlace()),
                             program=concrete.main_program, format=configs.get("format"))


class TranslatedLayer(Layer):
    """A Layer that runs a loaded inference program: ``layer(x)`` feeds the program's inputs
    in order and returns its fetch targets as eager Tensors."""

    def __init__(self, program, feed_names: list[str], fetch_targets: list, scope: Scope):
        super().__init__()
        self._program = program
        self._feed_names = feed_names
        self._fetch_targets = fetch_targets
        self._scope = scope
        self._executor = Executor(CPUPlace())

    def program(self):
        return self._program

    def forward(self, *inputs):
        if len(inputs) != len(self._feed_names):
            raise ValueError(f"the loaded program takes {len(self._feed_names)} inputs "
                             f"{self._feed_names}, but {len(inputs)} were given")
        feed = {name: x._array if isinstance(x, Tensor) else np.asarray(x)
                for name, x in zip(self._feed_names, inputs)}
        values = self._executor.run(self._program, feed=feed, fetch_list=self._fetch_targets,
                                    scope=self._scope)
        tensors = [Tensor._wrap(np.asarray(v)) for v in values]
        return tensors[0] if len(tensors) == 1 else tensors


def load(path: str, **configs: Any) -> TranslatedLayer:
    """Load files written by :func:`save` (or Paddle's ``jit.save``, 2.x or 3.x: the format is
    told by which file exists)."""
    from ..static import load_inference_model
    scope = Scope()
    with scope_guard(scope):
        program, feed_names, fetch_targets = load_inference_model(path, Executor(CPUPlace()))
    return TranslatedLayer(program, feed_names, fetch_targets, scope)
