"""Building one static program from a converted function (Paddle's ``ConcreteProgram``).

The converted function runs once in static mode on ``paddle.static.data`` inputs made from
the InputSpecs (or the first call's tensors); every paddle call appends ops to a fresh
Program, and the runtime of the converted code adds ``cond``/``while`` ops for control flow
on Tensors. The Layer's parameters (and buffers) become persistable variables of the program
with the same names; their values are read from the eager tensors at each run.

A ConcreteProgram also makes, on demand, the training program ``run_program.py`` uses for
gradients: the forward ops plus ``gradients(outputs, inputs, output grads fed in)``.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

import numpy as np

from ..engine.tensor import EagerParameter, Tensor
from ..executor import CPUPlace, Executor, Scope
from ..framework import Program, program_guard, unique_name
from ..framework.context import disable_static, enable_static, in_dynamic_mode
from ..framework.passes import BuildStrategy
from ..framework.variable import Variable
from ..ops.types import VarType
from ..static import CompiledProgram
from ..static.input_spec import InputSpec
from .dy2static.errors import add_conversion_note

_FLOATS = (VarType.FP16, VarType.BF16, VarType.FP32, VarType.FP64)


class Backward:
    """The training program for one set of wanted gradients: feeds the forward inputs and
    ``grad_feeds`` (one per differentiable output, by output index), fetches ``fetches``
    (one per wanted name; None where the name gets no gradient)."""

    def __init__(self, program: Program, grad_feeds: dict[int, str], fetches: list):
        self.program = program
        self.grad_feeds = grad_feeds
        self.fetches = fetches


class ConcreteProgram:
    """One traced program: feed Variables, fetch Variables (and the structure to rebuild the
    result), and the eager parameters/buffers whose values it reads (by name)."""

    def __init__(self, program: Program, inputs: list, outputs: list, pack: Callable,
                 parameters: dict, name: str):
        self.main_program = program
        self.inputs = inputs
        self.outputs = outputs
        self.pack = pack
        self.parameters = parameters           # name -> EagerParameter or buffer Tensor
        self.name = name
        self.executor = Executor(CPUPlace())
        # each call runs on a fresh scope whose parameters eager optimizers update in place:
        # values computed from parameters alone (folded filters) would be recomputed on
        # every call, so the program runs without those passes
        strategy = BuildStrategy()
        strategy.hoist_invariants = False
        self.compiled = CompiledProgram(program, build_strategy=strategy)
        self._backward: dict[tuple, Backward] = {}

    def scope(self, arrays: dict[str, np.ndarray] | None = None) -> Scope:
        """A scope holding the parameters' values (the current ones, or ``arrays``)."""
        scope = Scope()
        for name, param in self.parameters.items():
            value = param._array if arrays is None else arrays[name]
            scope.var(name).get_tensor()._array = value
        return scope

    def write_back(self, scope: Scope) -> None:
        """Persistables the program updated (batch norm statistics) back to the Layer."""
        for name, param in self.parameters.items():
            value = scope.find_var(name).get_tensor()._array
            if value is not param._array:
                param._array = value

    def differentiable_outputs(self) -> list[int]:
        return [i for i, v in enumerate(self.outputs)
                if v.dtype in _FLOATS and not v.stop_gradient]

    def backward(self, wanted: tuple[str, ...]) -> Backward:
        found = self._backward.get(wanted)
        if found is None:
            found = self._backward[wanted] = self._build_backward(wanted)
        return found

    def _build_backward(self, wanted: tuple[str, ...]) -> Backward:
        from ..framework.backward import gradients
        from ..static import data
        program = self.main_program.clone()
        block = program.global_block()
        was_dynamic = in_dynamic_mode()
        enable_static()
        try:
            with program_guard(program, Program()):
                from ..tensor.creation import assign
                targets, seeds, grad_feeds = [], [], {}
                for index in self.differentiable_outputs():
                    out = block.var(self.outputs[index].name)
                    seed = data(f"{out.name}@GRAD@RUN_PROGRAM", list(out.shape), out.dtype)
                    # differentiate a copy: an output may be a loop variable that a while op
                    # writes in place, and its gradient must flow back through the loop
                    copy = block.create_var(name=f"{out.name}@RUN_PROGRAM", shape=out.shape,
                                            dtype=out.dtype)
                    targets.append(assign(out, output=copy))
                    seeds.append(seed)
                    grad_feeds[index] = seed.name
                grads = gradients(targets, [block.var(n) for n in wanted], seeds) \
                    if targets else [None] * len(wanted)
        finally:
            if was_dynamic:
                disable_static()
        return Backward(program, grad_feeds, grads)


# -- tracing ------------------------------------------------------------------------------------
def flatten(value: Any) -> tuple[list, Callable]:
    """The leaves of nested lists/tuples/dicts, and a function rebuilding the structure from
    new leaves."""
    if isinstance(value, (list, tuple)):
        parts = [flatten(v) for v in value]
        leaves = [leaf for p, _ in parts for leaf in p]

        def pack_sequence(new: list, kind=type(value)):
            items, k = [], 0
            for p, pack in parts:
                items.append(pack(new[k:k + len(p)]))
                k += len(p)
            return kind(items) if kind in (list, tuple) else kind(*items)
        return leaves, pack_sequence
    if isinstance(value, dict):
        keys = list(value)
        leaves, pack = flatten([value[k] for k in keys])
        return leaves, lambda new: dict(zip(keys, pack(new)))
    return [value], lambda new: new[0]


def trace(function: Callable, layer: Any, args: tuple[list, dict], name: str
          ) -> ConcreteProgram:
    """Run ``function`` (the converted one) on static inputs made from the InputSpecs among
    ``args`` (positional values, keyword values; other values are passed as they are)."""
    main, startup = Program(), Program()
    was_dynamic = in_dynamic_mode()
    enable_static()
    main._converting = name
    try:
        with program_guard(main, startup), unique_name.guard(), \
                static_parameters(layer, main) as parameters:
            from ..static import data
            leaves, pack = flatten(args)
            feeds, values = [], []
            for leaf in leaves:
                if isinstance(leaf, InputSpec):
                    var = data(leaf.name, list(leaf.shape), leaf.dtype)
                    var.stop_gradient = leaf.stop_gradient
                    feeds.append(var)
                    leaf = var
                values.append(leaf)
            positional, keywords = pack(values)
            try:
                result = function(*positional, **keywords)
            except Exception as exc:
                add_conversion_note(exc, name)
                raise
    finally:
        main._converting = None
        if was_dynamic:
            disable_static()
    outputs, pack_outputs = flatten(result)
    fetches = [v for v in outputs if isinstance(v, Variable)]
    for value in outputs:
        if isinstance(value, Tensor):
            raise TypeError(f"to_static: {name} returned an eager Tensor that was not computed "
                            "from its inputs or parameters; return values computed by paddle "
                            "operations on them")

    def pack(values: list, outputs=outputs):
        it = iter(values)
        return pack_outputs([next(it) if isinstance(v, Variable) else v for v in outputs])
    return ConcreteProgram(main, feeds, fetches, pack, parameters, name)


@contextlib.contextmanager
def static_parameters(layer: Any, program: Program) -> Iterator[dict]:
    """Swap the eager parameters and buffers of ``layer`` (and its sublayers) for persistable
    variables of ``program`` with the same names while tracing; yields {name: eager tensor}."""
    swapped: list[tuple[dict, str, Any]] = []
    parameters: dict[str, Any] = {}
    block = program.global_block()
    layers = layer.sublayers(include_self=True) if layer is not None else []
    try:
        for sub in layers:
            for attr, param in list(sub._parameters.items()):
                if isinstance(param, EagerParameter):
                    static = block.vars.get(param.name)
                    if static is None:               # (a shared parameter is made once)
                        static = block.create_parameter(
                            name=param.name, shape=param.shape, dtype=param.dtype,
                            trainable=param.trainable)
                    static.stop_gradient = param.stop_gradient
                    _swap(sub._parameters, attr, param, static, parameters, swapped)
            # buffers, and plain Tensor attributes (Paddle captures those as persistables too)
            plain = [(sub.__dict__, a, t) for a, t in list(vars(sub).items())
                     if isinstance(t, Tensor) and not isinstance(t, EagerParameter)]
            for store, attr, buf in [(sub._buffers, a, b) for a, b in list(sub._buffers.items())
                                     if isinstance(b, Tensor)] + plain:
                static = block.vars.get(buf.name)
                if static is None:
                    static = block.create_var(name=buf.name, shape=buf.shape, dtype=buf.dtype,
                                              persistable=True, stop_gradient=True)
                _swap(store, attr, buf, static, parameters, swapped)
        yield parameters
    finally:
        for store, attr, value in swapped:
            store[attr] = value


def _swap(store: dict, attr: str, eager: Any, static: Variable, parameters: dict,
          swapped: list) -> None:
    parameters[eager.name] = eager
    swapped.append((store, attr, eager))
    store[attr] = static
