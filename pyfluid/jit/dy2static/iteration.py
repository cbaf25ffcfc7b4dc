"""Run-time half of converted ``for`` loops, and the Tensor-aware ``len``, ``range``,
``enumerate`` and ``zip``.

``iter_start`` wraps what a ``for`` walks. Python iterables are walked lazily, item by item
(a list that grows during the loop is walked to its end, as Python does). A Tensor is walked
along its first axis: a Python loop when that axis has a known length (the body is repeated
in the program, as Paddle's conversion does), a ``while_loop`` over the index when it does
not. ``range`` with a Tensor bound always becomes a ``while_loop``.

In a Python loop whose ``break`` came to depend on a Tensor, the remaining iterations each
run under an ``if`` on that flag: the items are Python objects, so the loop cannot become a
``while_loop``.
"""
from __future__ import annotations

import functools
import itertools
from typing import Any, Callable, Sequence

from ...framework.variable import Variable
from ...ops.types import VarType
from ...static.nn.control_flow import while_loop
from ...tensor.array import array_length
from ...tensor.attribute import shape
from ...tensor.creation import full
from ...tensor.manipulation import cast
from ...tensor.math import minimum
from .control import _condition, convert_ifelse
from .merge import carried_values, patch_carried
from .values import And, is_variable


def _int64(value: Any) -> Any:
    if is_variable(value) and value.dtype != VarType.INT64:
        return cast(value, "int64")
    return value


def _dim0(var: Variable) -> Any:
    """The length of ``var``'s first axis: an int, or an int64 Variable when unknown."""
    if not var.shape:
        raise TypeError(f"iteration over a 0-D Tensor ({var.name})")
    if var.shape[0] >= 0:
        return var.shape[0]
    return _int64(shape(var)[0])


class TensorIter:
    """The first axis of a Variable."""

    def __init__(self, var: Variable):
        self.var = var
        self.n = _dim0(var)
        self.static = is_variable(self.n)

    def has(self, k: int) -> bool:
        return k < self.n

    def length(self) -> Any:
        return self.n

    def item(self, k: Any) -> Any:
        return self.var[k]


class RangeIter:
    """``range(start, stop, step)`` with a Tensor among them; ``step`` is an int."""

    static = True

    def __init__(self, start: Any, stop: Any, step: Any):
        if is_variable(step) or step == 0:
            raise ValueError("range() with a Tensor bound needs a non-zero int step, received "
                             f"{step!r}")
        self.start, self.stop, self.step = _int64(start), _int64(stop), step

    def length(self) -> Any:
        starts_at_zero = isinstance(self.start, int) and self.start == 0
        if self.step == 1:
            return _int64(self.stop if starts_at_zero else self.stop - self.start)
        if self.step > 0:
            n = (self.stop - self.start + (self.step - 1)) // self.step
        else:
            n = (self.start - self.stop + (-self.step - 1)) // -self.step
        return _int64(n)

    def item(self, k: Any) -> Any:
        value = k if self.step == 1 else k * self.step
        if not (isinstance(self.start, int) and self.start == 0):
            value = self.start + value
        return value


class EnumerateIter:
    def __init__(self, inner: Any, start: int = 0):
        self.inner, self.start = inner, start
        self.static = inner.static

    def has(self, k: int) -> Any:
        return self.inner.has(k)

    def length(self) -> Any:
        return self.inner.length()

    def item(self, k: Any) -> tuple:
        return (k + self.start if self.start else k), self.inner.item(k)


class ZipIter:
    def __init__(self, inners: Sequence[Any]):
        self.inners = list(inners)
        self.static = any(getattr(i, "static", False) for i in self.inners)

    def has(self, k: int) -> bool:
        return all(i.has(k) for i in self.inners)

    def length(self) -> Any:
        lengths = [i.length() for i in self.inners]
        return functools.reduce(lambda a, b: minimum(a, b) if is_variable(a) or is_variable(b)
                                else min(a, b), lengths)

    def item(self, k: Any) -> tuple:
        return tuple(i.item(k) for i in self.inners)


class PyIter:
    """Any Python iterable, fetched lazily."""

    static = False

    def __init__(self, iterable: Any):
        if isinstance(iterable, (list, tuple, range, str)):
            self.items, self.rest = iterable, None
        else:
            self.items, self.rest = [], iter(iterable)

    def has(self, k: int) -> bool:
        while self.rest is not None and len(self.items) <= k:
            try:
                self.items.append(next(self.rest))
            except StopIteration:
                self.rest = None
        return k < len(self.items)

    def length(self) -> int:
        raise TypeError("the length of a Python iterable is not a Tensor")

    def item(self, k: int) -> Any:
        return self.items[k]


_ITERS = (TensorIter, RangeIter, EnumerateIter, ZipIter, PyIter)


def iter_start(iterable: Any) -> Any:
    if isinstance(iterable, _ITERS):
        return iterable
    if is_variable(iterable):
        if iterable.type == VarType.LOD_TENSOR_ARRAY:
            raise TypeError(f"iterating over the tensor array {iterable.name} in a converted "
                            "`for` is not supported; index it with range(len(array))")
        return TensorIter(iterable)
    return PyIter(iterable)


def iter_item(iterator: Any, index: Any) -> Any:
    return iterator.item(index)


def convert_for(iterator: Any, body_fn: Callable, not_broken: Callable | None,
                get_args: Callable, set_args: Callable, names: Sequence[str],
                location: str) -> None:
    """Run ``body_fn(index)`` for each item of ``iterator`` (``iter_start``'s result) while
    ``not_broken()`` (the loop's ``not __break`` flag, None without a ``break``) holds."""
    if iterator.static:
        _static_for(iterator, body_fn, not_broken, get_args, set_args, names, location)
        return
    for k in itertools.count():
        if not iterator.has(k):
            return
        go = True if not_broken is None else not_broken()
        if is_variable(go):
            convert_ifelse(go, functools.partial(body_fn, k), lambda: None, get_args, set_args,
                           names, location)
        elif not go:
            return
        else:
            body_fn(k)


def _static_for(iterator: Any, body_fn: Callable, not_broken: Callable | None,
                get_args: Callable, set_args: Callable, names: Sequence[str],
                location: str) -> None:
    length = iterator.length()
    loop_vars, holders = carried_values(get_args(), names, location)
    set_args(tuple(loop_vars))

    def cond(index, *values):
        set_args(values)
        keep = index < length
        if not_broken is not None:
            keep = And(lambda: keep, not_broken)
        return _condition(keep, "`for` loop", location)

    def body(index, *values):
        set_args(values)
        body_fn(index)
        return [index + 1] + patch_carried(get_args(), loop_vars, holders, names, location)

    results = while_loop(cond, body, [full([], 0, "int64")] + loop_vars)
    set_args(tuple(results[1:]))


# -- builtins -------------------------------------------------------------------------------------
def convert_len(value: Any) -> Any:
    if is_variable(value):
        if value.type == VarType.LOD_TENSOR_ARRAY:
            return array_length(value)
        return _dim0(value)
    return len(value)


def convert_range(*args: Any) -> Any:
    if not any(is_variable(a) for a in args):
        return range(*args)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    return RangeIter(start, stop, step)


def convert_enumerate(iterable: Any, start: int = 0) -> Any:
    if is_variable(iterable) or isinstance(iterable, _ITERS):
        return EnumerateIter(iter_start(iterable), start)
    return enumerate(iterable, start)


def convert_zip(*iterables: Any) -> Any:
    if any(is_variable(i) or isinstance(i, _ITERS) for i in iterables):
        return ZipIter([iter_start(i) for i in iterables])
    return zip(*iterables)
