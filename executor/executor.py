"""The Executor: runs a Program's global block against a Scope."""
from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np

from ..framework.context import default_main_program
from ..framework.passes import DEFAULT_STRATEGY, BuildStrategy, apply_passes
from ..framework.program import Program
from . import auto_prune
from .collectives import lower_collectives
from .feed import (as_array, check_feed, check_feed_ops, check_fetch_ops, feed_op_targets,
                   fetch_names, fetch_op_targets, normalize_feed)
from .hoisting import build_plan, note_in_place_update
from .place import CPUPlace
from .scope import Scope, global_scope
from .tensor import LoDTensor, LoDTensorArray

_PLAN_CACHE_SIZE = 64


class Executor:
    """``Executor(place).run(program, feed, fetch_list)`` as in Paddle's static mode.

    A plan (the block compiled to one Python function) is built once per program version,
    feed names and fetch names, and reused; temporaries live only inside a run, persistable
    variables in the scope. The caches are shared by threads that run through one Executor
    (one lock; plans themselves keep no state between runs)."""

    def __init__(self, place: Any = None):
        self.place = place if place is not None else CPUPlace()
        self._plans: OrderedDict = OrderedDict()
        self._io_targets: OrderedDict = OrderedDict()
        self._pruned_programs: OrderedDict = OrderedDict()
        self._lock = threading.RLock()
        self._closed = False

    @property
    def _default_executor(self) -> "Executor":
        """Paddle's C++ executor behind this one (``core._create_loaded_parameter`` takes it);
        pyfluid has no second executor, so it is this one."""
        return self

    def close(self) -> None:
        self._closed = True
        self._plans.clear()

    def run(self, program: Program | None = None, feed: Any = None, fetch_list: Any = None,
            feed_var_name: str = "feed", fetch_var_name: str = "fetch",
            scope: Scope | None = None, return_numpy: bool = True,
            use_program_cache: bool = False, return_merged: bool = True,
            use_prune: bool = False) -> list:
        if self._closed:
            raise RuntimeError("Attempted to use a closed Executor")
        strategy = getattr(program, "_build_strategy", None)
        program = _unwrap(program)
        fetch_list, optimize_ops = auto_prune.split_optimize_ops(fetch_list)
        if use_prune or optimize_ops:          # naming optimizer ops implies pruning
            program = self._pruned(program, feed, fetch_list, optimize_ops)
        if scope is None:
            scope = global_scope()
        block = program.global_block()
        feed = normalize_feed(feed, block)
        names = fetch_names(fetch_list)
        feed_targets, fetch_targets = self._io_ops(program)
        check_feed_ops(feed_targets, feed)
        if fetch_targets and fetch_list is None:
            names = fetch_targets          # a loaded program fetches what its fetch ops name
        elif fetch_targets:
            check_fetch_ops(fetch_targets, names)
        plan = self._plan(program, tuple(feed), tuple(names), strategy)
        feeds = []
        for name, value in feed.items():
            var = block.vars[name]
            array = as_array(value, var)
            check_feed(var, array)
            feeds.append(array)
        if program.lr_scheduler is not None:
            program.lr_scheduler._refresh(program, scope)
        if plan.updates_in_place:
            note_in_place_update(scope)
        results = plan.run(scope, feeds)
        return _results(results, plan.fetch_is_shared, return_numpy)

    def _pruned(self, program: Program, feed: Any, fetch_list: Any, optimize_ops: list) -> Program:
        key = auto_prune.cache_key(program, feed, fetch_list, optimize_ops)
        with self._lock:
            pruned = self._pruned_programs.get(key)
            if pruned is None:
                pruned = self._pruned_programs[key] = self._prune_program(
                    program, feed, fetch_list, optimize_ops)
                _bound(self._pruned_programs)
        return pruned

    @classmethod
    def _prune_program(cls, program: Program, feed: Any, fetch_list: Any,
                       optimize_ops: list) -> Program:
        return auto_prune.prune_program(program, feed, fetch_list, optimize_ops)

    def _io_ops(self, program: Program) -> tuple[list[str], list[str]]:
        """Targets of the program's own feed and fetch ops (scanned once per version)."""
        key = (program._id, program._version)
        with self._lock:
            targets = self._io_targets.get(key)
            if targets is None:
                block = program.global_block()
                targets = self._io_targets[key] = (feed_op_targets(block),
                                                   fetch_op_targets(block))
                _bound(self._io_targets)
        return targets

    def _plan(self, program: Program, feed_names: tuple, fetch: tuple,
              strategy: BuildStrategy | None = None):
        key = (program._id, program._version, feed_names, fetch,
               strategy._key() if strategy is not None else None)
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        with self._lock:
            return self._plans.get(key) or self._build_plan(key, program, feed_names, fetch,
                                                             strategy)

    def _build_plan(self, key: tuple, program: Program, feed_names: tuple, fetch: tuple,
                    strategy: BuildStrategy | None):
        if not program.global_block().ops and program is default_main_program():
            warnings.warn("Now you are using default_main_program, but there are no operators "
                          "in the program to be executed. Please ensure you create model "
                          "correctly or you can pass the Program or the CompiledProgram "
                          "manually.", stacklevel=4)
        lowered = lower_collectives(program)      # overlapped gradient all-reduces
        optimized = apply_passes(lowered, strategy, feed_names, fetch)   # graph passes
        strategy = strategy or DEFAULT_STRATEGY
        plan = self._plans[key] = build_plan(
            optimized, feed_names, fetch, program, reuse_buffers=strategy.reusing_buffers(),
            checks=strategy.checking(), hoist=strategy.hoisting())
        _bound(self._plans)
        return plan


def _unwrap(program: Any) -> Program:
    if program is None:
        return default_main_program()
    inner = getattr(program, "_program", None)   # CompiledProgram
    if isinstance(inner, Program):
        return inner
    if not isinstance(program, Program):
        raise TypeError(f"Executor.run expects a Program, got {type(program).__name__}")
    return program


def _results(values: tuple, shared: list, return_numpy: bool) -> list:
    """Fetched values as arrays (or LoDTensors) the caller owns: buffers of the scope or the
    feed, views of them, and repeated fetches are copied. A tensor array (a list) comes back
    as a list of copies of its elements, as Paddle's ``as_numpy`` gives."""
    out, seen = [], set()
    for value, is_shared in zip(values, shared):
        if value is None:
            out.append(None)
            continue
        if isinstance(value, list):
            elements = [None if e is None else np.array(e) for e in value]
            out.append(elements if return_numpy else LoDTensorArray(
                [None if e is None else LoDTensor(e) for e in elements]))
            continue
        array = np.asarray(value)
        if is_shared or array.base is not None or id(array) in seen:
            array = array.copy()
        seen.add(id(array))
        out.append(array if return_numpy else LoDTensor(array))
    return out


def _bound(cache: OrderedDict) -> None:
    """Drop the oldest entries of a cache over its size."""
    while len(cache) > _PLAN_CACHE_SIZE:
        cache.popitem(last=False)
