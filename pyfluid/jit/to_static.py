"""``paddle.jit.to_static``: a function or Layer as a static program, with its Python control
flow converted (Paddle's AST mode, ``full_graph=True``).

The function's source is transformed (``dy2static``): ``if``/``while``/``for`` on Tensors
become ``cond``/``while_loop`` ops, on Python values they stay Python. The converted function
is then traced once per input signature (``concrete_program.py``) and the program cached.
Called on eager Tensors, the program runs in the Executor and its outputs are on the tape:
``loss.backward()`` reaches the inputs and the Layer's parameters through the program's
gradient (``run_program.py``), so a converted Layer trains. Called in static mode, the
converted function builds into the current program.

``full_graph=False`` (Paddle's bytecode translation, SOT) is served by the same conversion.
``paddle.jit.enable_to_static(False)`` makes every StaticFunction call its Python function.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import numpy as np

from ..engine.tensor import Tensor
from ..framework.context import default_main_program, in_dynamic_mode
from ..static.input_spec import InputSpec
from .concrete_program import ConcreteProgram, flatten, trace
from .dy2static import convert_to_static, converted_source, not_to_static
from .run_program import run_concrete

_TO_STATIC_ENABLED = True       # Paddle's ProgramTranslator().enable_to_static state


def enable_to_static(enable_to_static_bool: bool) -> None:
    """False: functions decorated by to_static run as plain Python (dynamic graph)."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError("The type of 'enable_to_static_bool' in paddle.jit.enable_to_static "
                        f"must be bool, but received {type(enable_to_static_bool)}.")
    global _TO_STATIC_ENABLED
    _TO_STATIC_ENABLED = enable_to_static_bool


class StaticFunction:
    """The callable ``to_static`` returns. As a class attribute (``@to_static`` on
    ``forward``) it binds to the Layer instance like a method."""

    def __init__(self, function: Callable, input_spec: Sequence[Any] | None = None,
                 layer: Any = None, **options: Any):
        if inspect.ismethod(function):          # to_static(layer.forward)
            layer, function = function.__self__, function.__func__
        self._function = function
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._layer = layer
        self._options = options
        self._programs: dict = {}
        functools.update_wrapper(self, function)

    def __get__(self, instance: Any, owner: type) -> "StaticFunction":
        if instance is None:
            return self
        key = f"_static_{self._function.__name__}"
        bound = instance.__dict__.get(key)
        if bound is None:
            bound = StaticFunction(self._function, self._input_spec, instance, **self._options)
            instance.__dict__[key] = bound
        return bound

    @property
    def dygraph_function(self) -> Callable:
        return self._function

    @property
    def code(self) -> str:
        """The converted source (what the program is traced from)."""
        return converted_source(convert_to_static(self._function))

    def _converted_callable(self) -> Callable:
        converted = convert_to_static(self._function)
        return converted if self._layer is None else functools.partial(converted, self._layer)

    def _dygraph_callable(self) -> Callable:
        fn = self._function
        return fn if self._layer is None else functools.partial(fn, self._layer)

    def rollback(self) -> Callable:
        """Undo ``to_static`` on a Layer: ``forward`` is the Python method again."""
        if self._layer is not None:
            self._layer.__dict__.pop("forward", None)
            return self._layer.forward
        return self._function

    # -- inputs ---------------------------------------------------------------------------------
    def _parameters(self) -> list[inspect.Parameter]:
        params = list(inspect.signature(self._function).parameters.values())
        return params[1:] if self._layer is not None else params

    def _bind(self, args: tuple, kwargs: dict) -> tuple[list, list[str], dict]:
        """The call as (positional values, their parameter names, keyword values), defaults
        filled in (Python's rules: ``*args`` spread, keyword-only and ``**kwargs`` by name)."""
        sig = inspect.Signature(self._parameters())
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        names = []
        for param in sig.parameters.values():
            if param.kind == param.VAR_POSITIONAL:
                names += [f"{param.name}_{k}" for k in range(len(bound.arguments[param.name]))]
            elif param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                names.append(param.name)
        return list(bound.args), names, dict(bound.kwargs)

    def _specs(self, values: list, names: list[str], keywords: dict) -> tuple[list, dict]:
        """Per argument: the given InputSpec (``input_spec``, by position), else an InputSpec
        of a tensor (its exact shape), else the value itself (traced as a constant); specs
        are named after the parameter."""
        def spec(value: Any, base: str) -> Any:
            leaves, pack = flatten(value)
            return pack([_spec_of(leaf, base if k == 0 else f"{base}_{k}")
                         for k, leaf in enumerate(leaves)])
        given = self._input_spec or []
        args = [spec(given[i] if i < len(given) else value, names[i])
                for i, value in enumerate(values)]
        return args, {name: spec(value, name) for name, value in keywords.items()}

    def get_concrete_program(self, *args: Any, **kwargs: Any) -> ConcreteProgram:
        """The program for these inputs (InputSpecs, tensors, arrays or other values; none:
        the ``input_spec`` given to to_static)."""
        if not (args or kwargs):
            args = tuple(self._input_spec or ())
        return self._concrete(self._specs(*self._bind(args, kwargs)))

    def _concrete(self, specs: tuple[list, dict]) -> ConcreteProgram:
        key = tuple(_key(leaf) for leaf in flatten(specs)[0])
        if self._layer is not None:
            key += (bool(getattr(self._layer, "training", True)),)
        program = self._programs.get(key)
        if program is None:
            program = self._programs[key] = trace(self._converted_callable(), self._layer,
                                                  specs, self._function.__qualname__)
        return program

    @property
    def concrete_program(self) -> ConcreteProgram:
        if self._input_spec is None and not self._programs:
            raise ValueError(f"{self._function.__name__} has no input_spec and has not been "
                             "called yet: pass input_spec=[InputSpec(...)] to to_static")
        if self._input_spec is not None:
            return self.get_concrete_program(*self._input_spec)
        return next(reversed(self._programs.values()))

    # -- calls ----------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not _TO_STATIC_ENABLED:
            return self._dygraph_callable()(*args, **kwargs)
        if not in_dynamic_mode():
            program = default_main_program()
            outer, program._converting = program._converting, self._function.__qualname__
            try:
                return self._converted_callable()(*args, **kwargs)
            finally:
                program._converting = outer
        values, names, keywords = self._bind(args, kwargs)
        specs = self._specs(values, names, keywords)
        concrete = self._concrete(specs)
        feeds = [value for spec, value in zip(flatten(specs)[0], flatten([values, keywords])[0])
                 if isinstance(spec, InputSpec)]
        return concrete.pack(run_concrete(concrete, feeds))


def _spec_of(value: Any, name: str) -> Any:
    if isinstance(value, InputSpec):
        return value if value.name else InputSpec(value.shape, value.dtype, name,
                                                  value.stop_gradient)
    if isinstance(value, (Tensor, np.ndarray)):
        return InputSpec(value.shape, value.dtype, name)
    return value


def _key(leaf: Any) -> tuple:
    if isinstance(leaf, InputSpec):
        return leaf._key()
    return ("value", type(leaf).__name__, repr(leaf))


def to_static(function: Any = None, input_spec: Sequence[Any] | None = None,
              build_strategy: Any = None, backend: Any = None, **kwargs: Any):
    """Convert a function or a Layer for static execution (see the module docstring).
    Usable as ``@to_static``, ``@to_static(input_spec=[...])``, ``to_static(fn)`` or
    ``to_static(layer, input_spec=[...])``, which returns the layer with ``forward``
    converted."""
    if backend not in (None, "CINN"):
        raise ValueError(f"The backend of to_static should be 'CINN' or None, but received "
                         f"{backend}.")

    def convert(target: Any):
        from ..nn.layer.layers import Layer
        if isinstance(target, Layer):
            forward = type(target).forward
            forward = forward._function if isinstance(forward, StaticFunction) else forward
            target.__dict__["forward"] = StaticFunction(forward, input_spec, target, **kwargs)
            return target
        if isinstance(target, StaticFunction):
            return target
        if not callable(target):
            raise TypeError(f"to_static expects a function or a Layer, received "
                            f"{type(target).__name__}")
        return StaticFunction(target, input_spec, **kwargs)

    return convert if function is None else convert(function)


__all__ = ["StaticFunction", "enable_to_static", "not_to_static", "to_static"]
