"""``paddle.jit.to_static``: turn a function or Layer into a static Program by tracing.

Tracing runs the Python function once in static mode on ``paddle.static.data`` inputs built
from the InputSpecs (or from the first call's tensors), so every paddle call appends ops to a
fresh Program. Python control flow (``if``/``for`` on values) is therefore fixed at trace
time: a branch taken while tracing is the only branch the program has. The program is cached
per input signature and run by the Executor; the Layer's parameters are read from their eager
tensors on every call, so updates made by an eager optimizer are seen.

Outputs are eager Tensors off the tape: gradients do not flow back through a to_static call
(train eagerly, then convert for inference and ``jit.save``)."""
from __future__ import annotations

import contextlib
import functools
import inspect
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..engine.tensor import EagerParameter, Tensor
from ..executor import CPUPlace, Executor, Scope
from ..framework import Program, program_guard, unique_name
from ..framework.context import disable_static, enable_static, in_dynamic_mode
from ..framework.passes import BuildStrategy
from ..framework.variable import Variable
from ..static import CompiledProgram
from ..static.input_spec import InputSpec


class ConcreteProgram:
    """One traced program: its feed Variables, fetch Variables (and how to regroup them) and
    the eager parameters whose values it reads (by name)."""

    def __init__(self, program: Program, inputs: list, outputs: list, structure: Any,
                 parameters: dict):
        self.main_program = program
        self.inputs = inputs
        self.outputs = outputs
        self.structure = structure         # None: one output; else "tuple"/"list"
        self.parameters = parameters       # name -> EagerParameter
        # values computed from parameters alone are not kept between calls: the eager
        # optimizer updates the parameters' arrays in place, unseen by the Executor
        strategy = BuildStrategy()
        strategy.hoist_invariants = False
        self.compiled = CompiledProgram(program, build_strategy=strategy)

    def scope(self) -> Scope:
        """A scope holding the current values of the parameters."""
        scope = Scope()
        for name, param in self.parameters.items():
            scope.var(name).get_tensor()._array = param._array
        return scope


class StaticFunction:
    """The callable ``to_static`` returns. As a class attribute (``@to_static`` on
    ``forward``) it binds to the Layer instance like a method."""

    def __init__(self, function: Callable, input_spec: Sequence[InputSpec] | None = None,
                 layer: Any = None):
        self._function = function
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._layer = layer
        self._programs: dict = {}
        self._executor = Executor(CPUPlace())
        functools.update_wrapper(self, function)

    def __get__(self, instance: Any, owner: type) -> "StaticFunction":
        if instance is None:
            return self
        bound = instance.__dict__.get(f"_static_{self._function.__name__}")
        if bound is None:
            bound = StaticFunction(self._function, self._input_spec, instance)
            instance.__dict__[f"_static_{self._function.__name__}"] = bound
        return bound

    @property
    def dygraph_function(self) -> Callable:
        return self._function

    def _arg_names(self) -> list[str]:
        params = list(inspect.signature(self._function).parameters.values())
        if self._layer is not None:
            params = params[1:]
        return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    def get_concrete_program(self, *args) -> ConcreteProgram:
        """The traced program for these inputs (InputSpecs, tensors, arrays or other values;
        none: the ``input_spec`` given to to_static)."""
        specs = [_as_spec(a) for a in (args or self._input_spec or ())]
        key = tuple(s._key() if isinstance(s, InputSpec) else ("value", repr(s)) for s in specs)
        program = self._programs.get(key)
        if program is None:
            program = self._programs[key] = self._trace(specs)
        return program

    @property
    def concrete_program(self) -> ConcreteProgram:
        if self._input_spec is None and not self._programs:
            raise ValueError(f"{self._function.__name__} has no input_spec and has not been "
                             "called yet: pass input_spec=[InputSpec(...)] to to_static")
        if self._input_spec is not None:
            return self.get_concrete_program(*self._input_spec)
        return next(reversed(self._programs.values()))

    def _trace(self, specs: list) -> ConcreteProgram:
        names = self._arg_names()
        main, startup = Program(), Program()
        was_dynamic = in_dynamic_mode()
        enable_static()
        try:
            with program_guard(main, startup), unique_name.guard(), \
                    _static_parameters(self._layer, main) as parameters:
                from ..static import data
                args, feeds = [], []
                for i, spec in enumerate(specs):
                    if isinstance(spec, InputSpec):
                        name = spec.name or (names[i] if i < len(names) else f"input_{i}")
                        var = data(name, list(spec.shape), spec.dtype)
                        var.stop_gradient = spec.stop_gradient
                        feeds.append(var)
                        args.append(var)
                    else:
                        args.append(spec)
                result = self._call_function(*args)
        finally:
            if was_dynamic:
                disable_static()
        outputs, structure = _flatten_outputs(result, self._function.__name__)
        return ConcreteProgram(main, feeds, outputs, structure, parameters)

    def _call_function(self, *args):
        if self._layer is not None:
            return self._function(self._layer, *args)
        return self._function(*args)

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"to_static function {self._function.__name__} takes positional "
                            f"inputs only; received keywords {sorted(kwargs)}")
        if not in_dynamic_mode():
            return self._call_function(*args)
        specs = list(args) if self._input_spec is None else \
            self._input_spec + list(args[len(self._input_spec):])
        concrete = self.get_concrete_program(*specs)
        feed = {var.name: _array(a) for var, a in zip(concrete.inputs,
                                                      [a for a in args if _is_input(a)])}
        values = self._executor.run(concrete.compiled, feed=feed,
                                    fetch_list=concrete.outputs, scope=concrete.scope())
        tensors = [Tensor._wrap(np.asarray(v)) for v in values]
        if concrete.structure is None:
            return tensors[0]
        return tuple(tensors) if concrete.structure == "tuple" else tensors


def _as_spec(value: Any) -> Any:
    """An input's InputSpec (tensors and arrays); other values are traced as constants."""
    if isinstance(value, (Tensor, np.ndarray)):    # named after the function's parameter
        return InputSpec(value.shape, value.dtype)
    return value


def _is_input(value: Any) -> bool:
    return isinstance(value, (Tensor, np.ndarray))


def _array(value: Any) -> np.ndarray:
    return value._array if isinstance(value, Tensor) else np.asarray(value)


def _flatten_outputs(result: Any, fn_name: str) -> tuple[list, Any]:
    if isinstance(result, Variable):
        return [result], None
    if isinstance(result, (list, tuple)) and result and all(isinstance(r, Variable)
                                                           for r in result):
        return list(result), "tuple" if isinstance(result, tuple) else "list"
    raise TypeError(f"to_static: {fn_name} must return a Tensor or a list/tuple of Tensors "
                    f"computed from its inputs, but returned {type(result).__name__}")


@contextlib.contextmanager
def _static_parameters(layer: Any, program: Program) -> Iterator[dict]:
    """Swap the eager parameters of ``layer`` (and its sublayers) for Parameters of
    ``program`` with the same names while tracing; yields {name: EagerParameter}."""
    swapped: list[tuple[dict, str, Any]] = []
    parameters: dict[str, EagerParameter] = {}
    block = program.global_block()
    layers = layer.sublayers(include_self=True) if layer is not None else []
    try:
        for sub in layers:
            for attr, param in list(sub._parameters.items()):
                if not isinstance(param, EagerParameter):
                    continue
                static = block.create_parameter(name=param.name, shape=param.shape,
                                                dtype=param.dtype, trainable=param.trainable)
                parameters[param.name] = param
                swapped.append((sub._parameters, attr, param))
                sub._parameters[attr] = static
        yield parameters
    finally:
        for store, attr, param in swapped:
            store[attr] = param


def to_static(function: Any = None, input_spec: Sequence[InputSpec] | None = None,
              build_strategy: Any = None, backend: Any = None, **kwargs: Any):
    """Convert a function or a Layer for static execution (see the module docstring: Python
    control flow is fixed at trace time). Usable as ``@to_static``, ``@to_static(input_spec=
    [...])`` or ``to_static(layer, input_spec=[...])``, which returns the layer with its
    ``forward`` converted."""
    def convert(target: Any):
        from ..nn.layer.layers import Layer
        if isinstance(target, Layer):
            forward = type(target).forward
            forward = forward._function if isinstance(forward, StaticFunction) else forward
            target.__dict__["forward"] = StaticFunction(forward, input_spec, target)
            return target
        if isinstance(target, StaticFunction):
            return target
        if not callable(target):
            raise TypeError(f"to_static expects a function or a Layer, received "
                            f"{type(target).__name__}")
        return StaticFunction(target, input_spec)

    return convert if function is None else convert(function)


def not_to_static(function: Callable) -> Callable:
    """Paddle's marker for functions to keep dynamic; tracing runs them as they are."""
    return function
