"""The process-wide registry of py_func callables, keyed by readable names.

Paddle keeps py_func callables in a process-global list and stores only the list index
(``forward_callable_id``) in the op, so a saved program points at nothing, or at the wrong
function, in another process. pyfluid also records a readable name per function:

* ``module:qualname`` when importing ``module`` and following ``qualname`` gives back this
  very function (it is *importable*);
* ``module:qualname#n`` otherwise (lambdas, nested functions, bound methods, partials, or a
  second function under a name already taken in this process). Such names only resolve in
  the process that registered them, or after an explicit ``register_py_func(fn, name=...)``.

A name always means one function within a process; registering a different function under a
taken name is an error. A name missing from the registry is resolved, without importing
anything, from an already-imported *user* module (one outside the Python installation,
site-packages and pyfluid itself) and only to a plain function whose own module and qualname
are that name: a program file can never make pyfluid call an arbitrary library function.

Integer ids are still handed out as Paddle does (0, 1, 2, ... per registration) for the
``forward_callable_id`` / ``backward_callable_id`` attributes.
"""
from __future__ import annotations

import inspect
import os
import site
import sys
import sysconfig
import types
from typing import Any, Callable, NamedTuple


class PyFuncNotRegisteredError(LookupError):
    """A py_func op names a function that this process does not know."""


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


def _follow(name: str) -> Any:
    """The object ``module:qualname`` denotes among already-imported modules, or None."""
    module_name, _, qualname = name.partition(":")
    obj = sys.modules.get(module_name)
    for part in qualname.split("."):
        if obj is None:
            return None
        obj = getattr(obj, part, None)
    return obj


def _takes_inputs(fn: Callable) -> bool:
    try:
        spec = inspect.getfullargspec(fn)
    except TypeError:          # not introspectable: call it with the inputs
        return True
    return bool(spec.args or spec.varargs or spec.varkw)


def register_py_func(fn: Callable, name: str | None = None) -> str:
    """Register ``fn`` for py_func ops and return its readable name.

    Registering the same function again returns the name it already has. With ``name``,
    ``fn`` answers to that name (e.g. to run a program saved by a script whose functions were
    named ``__main__:relu``); a name taken by a different function is a ValueError."""
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
    if base not in _BY_NAME and _follow(base) is fn:
        return base
    while True:
        _SUFFIX_COUNT[base] = _SUFFIX_COUNT.get(base, 0) + 1
        name = f"{base}#{_SUFFIX_COUNT[base]}"
        if name not in _BY_NAME:
            return name


def acquire_id(fn: Callable) -> tuple[int, str]:
    """Register ``fn`` (if needed) and hand out the next Paddle callable id for it."""
    name = register_py_func(fn)
    _IDS.append(name)
    return len(_IDS) - 1, name


def registered_func(idx: int) -> Callable:
    """The function behind a Paddle callable id handed out in this process."""
    return _BY_NAME[_IDS[idx]].fn


def registered_func_num() -> int:
    return len(_IDS)


def lookup(name: str) -> RegisteredFunc:
    """The function registered as ``name``, resolving importable names of user modules that
    are already imported. Raises PyFuncNotRegisteredError with what to do."""
    entry = _BY_NAME.get(name)
    if entry is not None:
        return entry
    obj = _follow(name) if "#" not in name else None
    if (isinstance(obj, types.FunctionType) and base_name(obj) == name
            and _is_user_module(sys.modules.get(obj.__module__))):
        register_py_func(obj, name)
        return _BY_NAME[name]
    raise PyFuncNotRegisteredError(_missing_message(name))


def _missing_message(name: str) -> str:
    module_name, _, qualname = name.partition(":")
    short = qualname.split(".")[-1].split("#")[0]
    if "#" in name or "<locals>" in name or "<lambda>" in name:
        how = (f"it is not importable (a nested function, lambda, bound method, or a second "
               f"function with the same name), so register it explicitly: "
               f"pyfluid.static.register_py_func({short}, name={name!r})")
    elif module_name not in sys.modules:
        how = (f"import the module that defines it (import {module_name}) or call "
               f"pyfluid.static.register_py_func({short})")
    else:
        how = (f"module {module_name!r} is imported but does not define a plain function "
               f"{qualname!r} of its own (or is a library module, which is never searched); "
               f"call pyfluid.static.register_py_func({short}, name={name!r})")
    return (f"py_func: the Python function {name!r} is not registered in this process. "
            f"Programs store the function's name, not its code: {how} before Executor.run.")


def _installation_dirs() -> tuple[str, ...]:
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
            sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
            sysconfig.get_paths()["platlib"], *getattr(site, "getsitepackages", list)(),
            site.getusersitepackages()}
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs.update(os.path.join(package_root, d)
                for d in ("ops", "framework", "executor", "proto", "pyfluid"))
    return tuple(os.path.realpath(d) + os.sep for d in dirs if d)


def _is_user_module(module: Any) -> bool:
    path = getattr(module, "__file__", None)
    if not path:
        return False
    return not os.path.realpath(path).startswith(_installation_dirs())
