"""Scopes: name -> variable holding a tensor, with a parent chain."""
from __future__ import annotations

import contextlib
from typing import Iterator

from ..framework.program_state import use_global_scope
from .tensor import LoDTensor


class ScopeVariable:
    """A variable living in a Scope (Paddle's ``core.Variable``)."""

    __slots__ = ("name", "_tensor", "_scalar")

    def __init__(self, name: str):
        self.name = name
        self._tensor = LoDTensor()
        self._scalar: tuple[type, object] | None = None   # set_int/set_float/set_string

    def _set_scalar(self, kind: type, value: object) -> None:
        self._scalar = (kind, kind(value))

    def _get_scalar(self, kind: type):
        if self._scalar is None or self._scalar[0] is not kind:
            raise RuntimeError(f"The variable {self.name!r} holds no {kind.__name__}: it was "
                               f"set as {self._scalar[0].__name__ if self._scalar else 'a tensor'}")
        return self._scalar[1]

    def set_int(self, value: int) -> None:
        self._set_scalar(int, value)

    def get_int(self) -> int:
        return self._get_scalar(int)

    def is_int(self) -> bool:
        return self._scalar is not None and self._scalar[0] is int

    def set_float(self, value: float) -> None:
        self._set_scalar(float, value)

    def get_float(self) -> float:
        return self._get_scalar(float)

    def is_float(self) -> bool:
        return self._scalar is not None and self._scalar[0] is float

    def set_string(self, value: str) -> None:
        self._set_scalar(str, value)

    def get_string(self) -> str:
        return self._get_scalar(str)

    def get_tensor(self) -> LoDTensor:
        return self._tensor

    def is_initialized(self) -> bool:
        return self._tensor._array is not None

    def __repr__(self) -> str:
        return f"ScopeVariable({self.name!r}, {self._tensor!r})"


class Scope:
    def __init__(self, parent: "Scope | None" = None):
        self._vars: dict[str, ScopeVariable] = {}
        self._parent = parent
        self._kids: list[Scope] = []
        self._in_pool = True            # Paddle's pool of scopes created from Python

    def var(self, name: str) -> ScopeVariable:
        """The variable ``name`` of this scope, created if needed."""
        var = self._vars.get(name)
        if var is None:
            var = self._vars[name] = ScopeVariable(name)
        return var

    def find_var(self, name: str) -> ScopeVariable | None:
        scope: Scope | None = self
        while scope is not None:
            var = scope._vars.get(name)
            if var is not None:
                return var
            scope = scope._parent
        return None

    def root(self) -> "Scope":
        """The outermost ancestor (where an Executor keeps persistable variables)."""
        scope = self
        while scope._parent is not None:
            scope = scope._parent
        return scope

    def new_scope(self) -> "Scope":
        kid = Scope(self)
        self._kids.append(kid)
        return kid

    def drop_kids(self) -> None:
        self._kids.clear()

    def size(self) -> int:
        """The number of variables of this scope itself (not its parents')."""
        return len(self._vars)

    def _remove_from_pool(self) -> None:
        """Delete this scope (Paddle frees it); deleting it twice is an error."""
        if not self._in_pool:
            raise RuntimeError("Deleting a nonexistent scope is not allowed.")
        self._in_pool = False
        self._vars.clear()
        self._kids.clear()

    def local_var_names(self) -> list[str]:
        return list(self._vars)

    def erase(self, names) -> None:
        for name in names:
            self._vars.pop(name, None)

    def __repr__(self) -> str:
        return f"<Scope with {len(self._vars)} variable(s)>"


_global_scope = Scope()


def global_scope() -> Scope:
    return _global_scope


use_global_scope(global_scope)   # Program.state_dict() without a scope reads this one


@contextlib.contextmanager
def scope_guard(scope: Scope) -> Iterator[None]:
    """Make ``scope`` the global scope inside the block."""
    global _global_scope
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard expects a Scope, got {type(scope).__name__}")
    old, _global_scope = _global_scope, scope
    try:
        yield
    finally:
        _global_scope = old
