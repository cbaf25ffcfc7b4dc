"""``_jst.call(f)``: what converted code calls instead of ``f`` (Paddle's ``convert_call``).

Functions, methods and Layers the user wrote are converted too, the first time they are
called (and cached), so ``if``/``while`` on Tensors inside helpers and sub-Layers become
``cond``/``while_loop`` as well. Left as they are: pyfluid itself, the standard library and
NumPy, modules given to ``paddle.jit.ignore_module``, functions marked with
``paddle.jit.not_to_static``, lambdas, generators, and anything whose source is not
available. Builtins that meet Tensors get their converted versions (``len``, ``range``,
``enumerate``, ``zip``, ``int``/``float``/``bool``); ``print`` prints while the program is
built (a Tensor shows its variable: name, shape, dtype).
"""
from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable

from ...framework.variable import Variable
from .iteration import convert_enumerate, convert_len, convert_range, convert_zip

NOT_TO_STATIC = "_pyfluid_not_to_static"
_IGNORED_MODULES = {"pyfluid", "numpy", "builtins", "collections", "copy", "inspect", "re",
                    "logging", "math", "functools", "itertools", "typing", "abc", "operator",
                    "warnings", "random", "os", "sys", "enum", "dataclasses"}


def not_to_static(function: Callable | None = None) -> Callable:
    """Keep ``function`` as it is when a converted function calls it (Paddle's
    ``paddle.jit.not_to_static``); a Tensor in a Python ``if`` inside it is then an error."""
    if function is None:
        return not_to_static
    setattr(function, NOT_TO_STATIC, True)
    return function


def ignore_module(modules: list) -> None:
    """Functions of these modules are called as they are (Paddle's ``jit.ignore_module``)."""
    for module in modules:
        _IGNORED_MODULES.add(module.__name__ if isinstance(module, types.ModuleType)
                             else str(module))


def _ignored(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or ""
    root = module.partition(".")[0]
    return root in _IGNORED_MODULES or root == "paddle"


def _cast(name: str, python_type: type, dtype: str) -> Callable:
    def convert(value: Any = 0, *args: Any) -> Any:
        if isinstance(value, Variable):
            from ...tensor.manipulation import cast
            return cast(value, dtype)
        return python_type(value, *args)
    convert.__name__ = name
    return convert


_BUILTINS = {len: convert_len, range: convert_range, enumerate: convert_enumerate,
             zip: convert_zip, int: _cast("int", int, "int32"),
             float: _cast("float", float, "float32"), bool: _cast("bool", bool, "bool")}


def call(function: Any) -> Any:
    """What to call in place of ``function`` in converted code."""
    try:
        replacement = _BUILTINS.get(function)
    except TypeError:                       # unhashable callables
        replacement = None
    if replacement is not None:
        return replacement
    if getattr(function, NOT_TO_STATIC, False):
        return function
    from ..to_static import StaticFunction
    if isinstance(function, StaticFunction):
        return function._converted_callable()
    if inspect.isbuiltin(function) or inspect.isclass(function):
        return function
    if inspect.ismethod(function):
        converted = _convert_function(function.__func__)
        return function if converted is function.__func__ else \
            types.MethodType(converted, function.__self__)
    if inspect.isfunction(function):
        return _convert_function(function)
    from ...nn.layer.layers import Layer
    if isinstance(function, Layer):
        return _layer_call(function)
    if callable(function) and not _ignored(type(function)):
        method = getattr(type(function), "__call__", None)
        if inspect.isfunction(method):
            converted = _convert_function(method)
            if converted is not method:
                return functools.partial(converted, function)
    return function


def _convert_function(function: types.FunctionType) -> Callable:
    if getattr(function, NOT_TO_STATIC, False) or _ignored(function):
        return function
    from .transform import convert_to_static
    return convert_to_static(function)


def _layer_call(layer: Any) -> Callable:
    """A Layer called from converted code: its ``forward``, converted."""
    forward = layer.forward
    from ..to_static import StaticFunction
    if isinstance(forward, StaticFunction):
        return forward._converted_callable()
    if inspect.ismethod(forward) and not getattr(forward.__func__, NOT_TO_STATIC, False) \
            and not _ignored(forward.__func__):
        return types.MethodType(_convert_function(forward.__func__), layer)
    return layer

