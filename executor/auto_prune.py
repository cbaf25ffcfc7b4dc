"""``Executor.run(use_prune=True)``: run only what the fetches need, as Paddle's Executor does.

A fetch list may name optimizer ops besides variables (``minimize``'s ops, or its whole
``(ops, params_grads)`` result); naming any forces pruning. The pruned program keeps the ops
the fetched variables and the optimizer ops need (every optimizer op when none is named),
drops the producers of fed variables, and holds no variable nothing kept uses, so unfetched
results are never created in the scope. Pruned programs are cached per program version,
feed names and fetch targets."""
from __future__ import annotations

from typing import Any

from ..framework.operator import Operator
from ..framework.program import Program
from ..framework.variable import Variable
from .feed import fetch_names


def split_optimize_ops(fetch_list: Any) -> tuple[Any, list[Operator]]:
    """(the fetch list without operators, the optimizer ops it named)."""
    if not isinstance(fetch_list, (list, tuple)):
        return fetch_list, []
    fetches: list = []
    ops: list[Operator] = []

    def take(item: Any) -> None:
        if isinstance(item, Operator):
            if not item._is_optimize_op():
                raise TypeError("The operator in fetch_list is not an optimize_op")
            ops.append(item)
        elif isinstance(item, (Variable, str)):
            fetches.append(item)
        else:
            raise TypeError("The item in fetch_list should be str, variable or optimize_op, but "
                            f"received {type(item)}.")

    if not _has_ops(fetch_list):
        return fetch_list, []             # plain fetches: checked and named by feed.py
    for index, item in enumerate(fetch_list):
        if isinstance(item, list):
            for inner in item:
                take(inner)
        elif isinstance(item, tuple):
            if not isinstance(item[0], (list, tuple)):
                raise TypeError(f"Requires fetch_list[{index}][0] shall be one of (list, tuple) "
                                f"when type(fetch_list[{index}]) is `tuple`, but received "
                                f"fetch_list[{index}][0]'s type is `{type(item[0]).__name__}`.")
            for inner in item[0]:
                take(inner)
        else:
            take(item)
    return fetches, ops


def _has_ops(items: Any) -> bool:
    return any(isinstance(i, Operator) or (isinstance(i, (list, tuple)) and _has_ops(i))
               for i in items)


def prune_program(program: Program, feed: Any, fetch_list: Any,
                  optimize_ops: list[Operator]) -> Program:
    """``program`` cut to what ``fetch_list`` and ``optimize_ops`` need (all of the program's
    optimizer ops when none are given), given the fed variables."""
    targets = list(optimize_ops) or [op for block in program.blocks for op in block.ops
                                     if op._is_optimize_op()]
    return program._prune_with_input(feed_names(feed), fetch_names(fetch_list) + targets)


def feed_names(feed: Any) -> list[str]:
    feeds = feed if isinstance(feed, (list, tuple)) else [feed or {}]
    return [getattr(n, "name", n) for each in feeds for n in each]


def cache_key(program: Program, feed: Any, fetch_list: Any,
              optimize_ops: list[Operator]) -> tuple:
    return (program._id, program._version, tuple(feed_names(feed)),
            tuple(fetch_names(fetch_list)), tuple(id(op) for op in optimize_ops))
