"""Run-time halves of converted ``if`` and ``while`` (Paddle's ``convert_ifelse`` and
``convert_while_loop``): Python control flow when the condition is a Python value, a
``conditional_block`` pair / a ``while`` op when it is a Tensor.

The converted code passes, besides the condition, the branch or body functions and a getter
and setter of the names they hand back. A Tensor ``if`` runs each branch in its own
sub-block, starting from the values the names had before the ``if``, and then merges the two
results name by name (``merge.py``). A ``while`` whose condition is first a Python value runs
as a Python loop; if the condition becomes a Tensor on the way, the remaining iterations
become one ``while_loop``.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from ...engine.tensor import Tensor
from ...static.nn.control_flow import ConditionalBlock, while_loop
from ...tensor.logic import logical_not
from .merge import branch_outputs, carried_values, merge_branches, patch_carried
from .values import is_variable, to_bool


def _python_bool(value: Any, what: str, location: str) -> bool:
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"the condition of the {what} at {location} is a Tensor with "
                             f"{value.size} elements; use paddle.all() or paddle.any()")
        return bool(value.item())
    return bool(value)


def _condition(pred: Any, what: str, location: str):
    """A Tensor condition as a one-element bool Variable."""
    size = 1
    for dim in pred.shape:
        size *= dim
    if size > 1:
        raise ValueError(f"the condition of the {what} at {location} is a Tensor of shape "
                         f"{list(pred.shape)}; a condition holds one value (reduce it with "
                         "paddle.all() or paddle.any())")
    return to_bool(pred)


def convert_ifelse(pred: Any, true_fn: Callable, false_fn: Callable, get_args: Callable,
                   set_args: Callable, names: Sequence[str], location: str) -> None:
    """``if pred: true_fn() else: false_fn()``; a Tensor ``pred`` builds both branches."""
    if not is_variable(pred):
        (true_fn if _python_bool(pred, "`if`", location) else false_fn)()
        return
    pred = _condition(pred, "`if`", location)
    initial = get_args()

    def branch(fn: Callable) -> Callable:
        def run() -> tuple:
            set_args(_fresh(initial))
            fn()
            return get_args()
        return run

    results = _static_cond(pred, branch(true_fn), branch(false_fn))
    set_args(merge_branches(pred, results, names, location))


def IfExp(pred: Any, true_fn: Callable, false_fn: Callable, location: str) -> Any:
    """``a if pred else b``."""
    what = "conditional expression"
    if not is_variable(pred):
        return true_fn() if _python_bool(pred, what, location) else false_fn()
    pred = _condition(pred, what, location)
    results = _static_cond(pred, lambda: (true_fn(),), lambda: (false_fn(),))
    return merge_branches(pred, results, ["<value>"], location)[0]


def _static_cond(pred, true_fn: Callable, false_fn: Callable) -> tuple:
    """Both branches built into ``conditional_block`` sub-blocks (true, then false under
    ``logical_not(pred)``), as ``paddle.static.nn.cond`` builds them; returns, per branch,
    the values with every Variable copied out to the enclosing block."""
    with ConditionalBlock([pred], is_scalar_condition=True).block():
        true_values = branch_outputs(true_fn())
    with ConditionalBlock([logical_not(pred)], is_scalar_condition=True).block():
        false_values = branch_outputs(false_fn())
    return true_values, false_values


def _fresh(values: tuple) -> tuple:
    """Each branch starts from the values before the ``if``: lists and dicts are copied, so
    what one branch appends is not seen by the other."""
    return tuple(type(v)(v) if type(v) in (list, dict) else v for v in values)


def convert_while(cond_fn: Callable, body_fn: Callable, get_args: Callable,
                  set_args: Callable, names: Sequence[str], location: str) -> None:
    """``while cond_fn(): body_fn()``."""
    pred = cond_fn()
    while not is_variable(pred):
        if not _python_bool(pred, "`while` loop", location):
            return
        body_fn()
        pred = cond_fn()
    _static_while(_condition(pred, "`while` loop", location), cond_fn, body_fn, get_args,
                  set_args, names, location)


def _static_while(pred, cond_fn: Callable, body_fn: Callable, get_args: Callable,
                  set_args: Callable, names: Sequence[str], location: str) -> None:
    if not names:
        raise ValueError(f"the `while` loop at {location} has a Tensor condition but assigns "
                         "no variable that is used after it or in its condition, so it "
                         "would never end (a change made in place, like paddle.increment(i), "
                         "is not seen: write i = i + 1)")
    loop_vars, holders = carried_values(get_args(), names, location)
    set_args(tuple(loop_vars))
    first = [pred]

    def cond(*values):
        if first:                         # built already, before the loop
            return first.pop()
        set_args(values)
        return _condition(cond_fn(), "`while` loop", location)

    def body(*values):
        set_args(values)
        body_fn()
        return patch_carried(get_args(), loop_vars, holders, names, location)

    set_args(tuple(while_loop(cond, body, loop_vars)))

