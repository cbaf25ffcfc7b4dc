"""The functions py_func ops may call: only those this process registered for that purpose.

A program names the function of each py_func op (``module:qualname``, beside Paddle's integer
``forward_callable_id``), and a program may come from an untrusted file. So a name resolves
only through this registry, filled on purpose by the process:

* passing a function to ``pyfluid.static.py_func`` while building a program registers it;
* ``pyfluid.static.register_py_func(fn)`` (also usable as a decorator, in the module that
  defines the function) registers it ahead of loading a saved program.

Nothing is ever imported, looked up in ``sys.modules`` or followed with ``getattr`` from a
name: a program file can call only functions the process offered to py_func, never an
arbitrary function of the user's script or of a library.

Naming reads only the function's own ``__module__`` and ``__qualname__``: a function gets
``module:qualname``, or ``module:qualname#n`` when that name already belongs to a different
function in this process (a redefined function, a second lambda). One name means one function
within a process; ``register_py_func(fn, name=...)`` picks the name explicitly (to run a program
saved by a script whose function was ``__main__:relu``). Integer ids are still handed out as
Paddle does (0, 1, 2, ... per py_func call) for ``forward_callable_id`` /
``backward_callable_id``.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, NamedTuple, TypeVar

F = TypeVar("F", bound=Callable)


class PyFuncNotRegisteredError(LookupError):
    """A py_func op names a function that this process has not registered."""


class RegisteredFunc(NamedTuple):
    fn: Callable
    name: str
    takes_inputs: bool     # False: Paddle calls a function without parameters with no arguments


_BY_NAME: dict[str, RegisteredFunc] = {}
_NAME_OF: dict[Any, str] = {}
_IDS: list[str] = []                      # Paddle-compatible callable id -> readable name
_SUFFIX_COUNT: dict[str, int] = {}


def _key(fn: Callable) -> Any:
    try:
        hash(fn)
        return fn
    except TypeError:
        return ("unhashable", id(fn))


def base_name(fn: Callable) -> str:
    """``module:qualname`` of a callable (its type's, plus ``()``, for callable objects)."""
    module = getattr(fn, "__module__", None) or type(fn).__module__
    qualname = getattr(fn, "__qualname__", None) or f"{type(fn).__qualname__}()"
    return f"{module}:{qualname}"


def _takes_inputs(fn: Callable) -> bool:
    try:
        spec = inspect.getfullargspec(fn)
    except TypeError:          # not introspectable: call it with the inputs
        return True
    return bool(spec.args or spec.varargs or spec.varkw)


def register_py_func(fn: F | None = None, name: str | None = None) -> F | Callable[[F], F]:
    """Allow programs to call ``fn`` from py_func ops; returns ``fn`` (so it is a decorator).

    ``@register_py_func`` or ``register_py_func(fn)`` names it ``module:qualname``;
    ``@register_py_func(name="mod:f")`` / ``register_py_func(fn, name="mod:f")`` give the name
    a saved program uses. Registering the same function again is a no-op; a name taken by a
    different function is a ValueError."""
    if fn is None:
        return lambda f: register_py_func(f, name)
    _register(fn, name)
    return fn


def _register(fn: Callable, name: str | None) -> str:
    if fn is None or not callable(fn):
        raise TypeError("func must be a Python function")
    key = _key(fn)
    if name is None:
        known = _NAME_OF.get(key)
        if known is not None:
            return known
        name = _fresh_name(fn)
    else:
        if not isinstance(name, str) or ":" not in name:
            raise ValueError(f"py_func name {name!r} must look like 'module:qualname'")
        taken = _BY_NAME.get(name)
        if taken is not None:
            if _key(taken.fn) == key:
                return name
            raise ValueError(f"py_func name {name!r} is already registered to a different "
                             f"function ({taken.fn!r}); pass another name")
    _BY_NAME[name] = RegisteredFunc(fn, name, _takes_inputs(fn))
    _NAME_OF.setdefault(key, name)
    return name


def _fresh_name(fn: Callable) -> str:
    base = base_name(fn)
    if base not in _BY_NAME:
        return base
    while True:
        _SUFFIX_COUNT[base] = _SUFFIX_COUNT.get(base, 0) + 1
        name = f"{base}#{_SUFFIX_COUNT[base]}"
        if name not in _BY_NAME:
            return name


def py_func_name(fn: Callable) -> str:
    """The name a registered function answers to in programs (LookupError if unregistered)."""
    name = _NAME_OF.get(_key(fn))
    if name is None:
        raise PyFuncNotRegisteredError(f"{base_name(fn)} is not registered: call "
                                       "pyfluid.static.register_py_func on it first")
    return name


def acquire_id(fn: Callable) -> tuple[int, str]:
    """Register ``fn`` (if needed) and hand out the next Paddle callable id for it."""
    name = _register(fn, None)
    _IDS.append(name)
    return len(_IDS) - 1, name


def registered_func(idx: int) -> Callable:
    """The function behind a Paddle callable id handed out in this process."""
    return _BY_NAME[_IDS[idx]].fn


def registered_func_num() -> int:
    return len(_IDS)


def lookup(name: str) -> RegisteredFunc:
    """The function registered as ``name``; PyFuncNotRegisteredError says how to register."""
    entry = _BY_NAME.get(name)
    if entry is None:
        raise PyFuncNotRegisteredError(_missing_message(name))
    return entry


def _missing_message(name: str) -> str:
    module_name, _, qualname = name.partition(":")
    short = qualname.split(".")[-1].split("#")[0] or "fn"
    return (f"py_func: the Python function {name!r} is not registered in this process. A "
            "program stores the names of its functions, and pyfluid calls only functions "
            "registered on purpose (never by importing or looking up a name): register it "
            f"before Executor.run, e.g. put @pyfluid.static.register_py_func above "
            f"`def {short}` in {module_name!r} and import that module, or call "
            f"pyfluid.static.register_py_func({short}, name={name!r}).")
