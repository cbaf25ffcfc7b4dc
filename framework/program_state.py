"""``Program.state_dict`` / ``set_state_dict`` (spec section 5.3): the values of a program's
parameters and optimizer variables, read from and written to a scope.

The framework sits below the executor and never imports it: the executor registers its global
scope here (:func:`use_global_scope`), which is used when no scope is given."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..ops.types import VarType
from .variable import Parameter, Variable

if TYPE_CHECKING:
    from .program import Program

_NOT_SAVED = frozenset({VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.READER})


def is_persistable(var: Variable) -> bool:
    """Paddle's ``is_persistable``: persistable, and not a feed/fetch/reader holder."""
    return var.persistable and var.type not in _NOT_SAVED


def is_parameter(var: Variable) -> bool:
    return isinstance(var, Parameter)


def is_belong_to_optimizer(var: Variable) -> bool:
    """Persistable non-parameter, non-data variables (learning rate, moments, beta pows...)."""
    return not (isinstance(var, Parameter) or var.need_check_feed) and is_persistable(var)


def _selector(mode: str):
    if mode == "param":
        return is_parameter
    if mode == "opt":
        return is_belong_to_optimizer
    if mode == "all":
        return lambda v: is_parameter(v) or is_belong_to_optimizer(v)
    raise ValueError(f"`mode` string should be 'param', 'opt' or 'all', but received {mode}.")


_global_scope: Callable[[], Any] | None = None


def use_global_scope(provider: Callable[[], Any]) -> None:
    """Called by the executor: ``provider()`` is the scope used when none is given."""
    global _global_scope
    _global_scope = provider


def _resolve_scope(scope: Any):
    if scope is not None:
        return scope
    if _global_scope is None:
        raise RuntimeError("no scope given and no executor registered a global scope; pass "
                           "scope=... (pyfluid.executor registers one when imported)")
    return _global_scope()


def state_dict(program: "Program", mode: str = "all", scope: Any = None) -> dict:
    """``{name: LoDTensor}`` of the program's parameters (``mode='param'``), optimizer
    variables (``'opt'``) or both (``'all'``), taken from ``scope`` (default: global scope)."""
    selected = _selector(mode)
    scope = _resolve_scope(scope)
    result = {}
    for var in program.list_vars():
        if not selected(var) or var.name in result:
            continue
        held = scope.find_var(var.name)
        if held is None:
            raise ValueError(f"Can not find Variable '{var.name}' in the scope. Make sure it is "
                             "initialized")
        result[var.name] = held.get_tensor()
    return result


def set_state_dict(program: "Program", values: dict, scope: Any = None) -> None:
    """Set the program's variables from ``values`` (arrays or tensors). Names the program does
    not have, and values of the wrong shape, are skipped with a warning, as in Paddle."""
    if not isinstance(values, dict):
        raise TypeError(f"Type of `state_dict` should be dict, but received {type(values)}.")
    scope = _resolve_scope(scope)
    by_name = {var.name: var for var in program.list_vars()}
    renames = values.get("StructuredToParameterName@@", {})
    for name, value in values.items():
        if name == "StructuredToParameterName@@":
            continue
        name = renames.get(name, name)
        if name not in by_name:
            warnings.warn(f"Skip loading for '{name}'. Because '{name}' not in the program.",
                          stacklevel=3)
            continue
        problem = _set_value(scope, name, value)
        if problem:
            warnings.warn(f"Skip loading for '{name}'. {problem}", stacklevel=3)


def _set_value(scope: Any, name: str, value: Any) -> str | None:
    if not (isinstance(value, np.ndarray) or hasattr(value, "__array__")):
        return f"`value` should be `numpy.ndarray` or `LoDTensor`, but received {type(value)}."
    held = scope.find_var(name)
    if held is None:
        return f"Can not find Variable '{name}' in the Scope."
    array = np.asarray(value)
    tensor = held.get_tensor()
    if tensor._is_initialized() and list(tensor.shape()) != list(array.shape):
        return (f"{name} expected a shape {list(tensor.shape())}, but the received shape is "
                f"{list(array.shape)}.")
    tensor.set(array)
    return None
