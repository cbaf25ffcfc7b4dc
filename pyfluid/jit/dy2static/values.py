"""Run-time helpers of converted code for values: the placeholder of a name not assigned yet
(Paddle's ``UndefinedVar``), logical operators that work on Python values and on Tensors,
``assert``, and turning Python values into Variables where a static loop needs them."""
from __future__ import annotations

import operator
import warnings
from typing import Any, Callable

from ...engine.tensor import Tensor
from ...framework.variable import Variable
from ...ops.types import VarType
from ...tensor.logic import logical_and, logical_not, logical_or
from ...tensor.manipulation import cast

_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
            "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


def is_variable(value: Any) -> bool:
    return isinstance(value, Variable)


class UndefinedVar:
    """The value of a local that converted code declared before the user's code assigned it.
    Reading it (``ld``) or computing with it raises UnboundLocalError, as Python would."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"UndefinedVar({self.name!r})"

    def check(self) -> None:
        raise UnboundLocalError(
            f"local variable '{self.name}' is used before it is assigned (Paddle: local "
            f"variable '{self.name}' should be created before using it). In converted code "
            "this happens when it is assigned only in some branches of an `if`, or only "
            "inside a loop, and the path that ran did not assign it.")

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        self.check()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _fail
    __rtruediv__ = __floordiv__ = __mod__ = __pow__ = __matmul__ = __neg__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __iter__ = __len__ = __getitem__ = _fail
    __call__ = __array__ = __float__ = __int__ = __index__ = _fail

    def __getattr__(self, attr: str) -> Any:
        self.check()


def ld(value: Any, name: str) -> Any:
    """A read of a local that may not be assigned yet."""
    if isinstance(value, UndefinedVar):
        value.check()
    return value


def return_value(value: Any) -> Any:
    """The function's result: None when no ``return`` ran."""
    return None if isinstance(value, UndefinedVar) else value


def to_bool(value: Variable) -> Variable:
    """A Tensor used as a condition, as bool (Paddle's ``cast_bool_if_necessary``)."""
    if value.dtype != VarType.BOOL:
        value = cast(value, "bool")
    return value


def And(x_fn: Callable, y_fn: Callable) -> Any:
    """``x and y``: Python's for Python values, ``logical_and`` once a Tensor is involved."""
    x = x_fn()
    if not is_variable(x):
        return x and y_fn()
    y = y_fn()
    if not is_variable(y):
        return x if y else y
    return logical_and(to_bool(x), to_bool(y))


def Or(x_fn: Callable, y_fn: Callable) -> Any:
    """``x or y`` (see :func:`And`)."""
    x = x_fn()
    if not is_variable(x):
        return x or y_fn()
    y = y_fn()
    if not is_variable(y):
        return y if y else x
    return logical_or(to_bool(x), to_bool(y))


def Not(x: Any) -> Any:
    if is_variable(x):
        return logical_not(to_bool(x))
    return not x


def compare_chain(left_fn: Callable, *pairs: Any) -> Any:
    """``a < b < c``: each operand once, stopping at the first Python False."""
    left, result = left_fn(), True
    for i in range(0, len(pairs), 2):
        right = pairs[i + 1]()
        step = _COMPARE[pairs[i]](left, right)
        result = step if result is True else And(lambda r=result: r, lambda s=step: s)
        if not is_variable(result) and not result:
            return result
        left = right
    return result


def convert_assert(cond: Any, message_fn: Callable) -> None:
    """``assert`` on a Python value asserts; on a Tensor its value is unknown while the
    program is built, so the check is left out, with a warning saying so."""
    if is_variable(cond):
        warnings.warn("an `assert` on a Tensor is not checked by the converted program "
                      "(its value is known only when the program runs)", stacklevel=2)
        return
    if isinstance(cond, Tensor):
        cond = bool(cond)
    assert cond, message_fn()
