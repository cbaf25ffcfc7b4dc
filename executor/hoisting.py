"""Values computed once per parameter state (loop-invariant code motion across runs).

An inference program may compute values from its parameters alone: the folded filters and
biases of fold_conv_bn, the Winograd-transformed filters of conv_winograd. Such ops
(framework/passes/invariants.py) are split off into a *prep* plan; the main plan reads their
values as if they were parameters. A run re-runs the prep plan only when the parameters it
reads may have changed:

* a parameter holds another array than at the last prep (``tensor.set``, a program writing
  a new value, loading a checkpoint), or
* some plan updated a persistable in place since (an optimizer step of a training program on
  the same scope: :func:`note_in_place_update` bumps the root scope's generation).

The derived values live in a scope of their own layered over the user's scope, so the user's
scope never holds them. Arrays taken out of a scope and modified in place by user code are
not noticed (set values with ``tensor.set``), as in Paddle's predictor, which folds once.
"""
from __future__ import annotations

import operator

from ..framework.passes.invariants import invariant_ops
from ..framework.program import Program
from ..ops.registry import EMPTY_VAR
from .scope import Scope

_GENERATION = "_in_place_generation"     # attribute of a root scope


def note_in_place_update(scope) -> None:
    """A plan is about to update persistables of ``scope`` in place."""
    root = scope.root()
    setattr(root, _GENERATION, getattr(root, _GENERATION, 0) + 1)


def updates_in_place(plan) -> bool:
    """Whether ``plan`` runs in-place kernels on persistable variables."""
    return any(plan._is_persistable(n) for i in plan._inplace
               for n in plan.ops[i].output_arg_names if n != EMPTY_VAR)


def split_invariants(program: Program, feed_names: tuple, fetch_names: tuple):
    """``(prep, main, values)``: ``prep`` computes the run-invariant ``values`` that ``main``
    (the rest of ``program``, reading them like parameters) needs; None when there are none."""
    fixed = invariant_ops(program, feed_names)
    if not any(fixed):
        return None
    ops = program.global_block().ops
    produced = {n for op, f in zip(ops, fixed) if f for n in op.output_arg_names}
    needed = {n for op, f in zip(ops, fixed) if not f for n in op.input_arg_names}
    values = sorted((needed | set(fetch_names)) & produced)
    if not values:
        return None
    prep, main = program.clone(), program.clone()
    prep.global_block().ops = [op for op, f in zip(prep.global_block().ops, fixed) if f]
    main.global_block().ops = [op for op, f in zip(main.global_block().ops, fixed) if not f]
    for name in values:
        main.global_block().vars[name].persistable = True
    for part in (prep, main):
        part._link_producers()
        part._bump()
    return prep, main, tuple(values)


class _Layered:
    """A scope view: ``own`` variables first, then ``scope`` (whose root keeps writes)."""

    __slots__ = ("own", "scope")

    def __init__(self, own: Scope, scope):
        self.own, self.scope = own, scope

    def find_var(self, name: str):
        return self.own._vars.get(name) or self.scope.find_var(name)

    def root(self):
        return self.scope.root()

    def var(self, name: str):
        return self.scope.var(name)


class HoistedPlan:
    """A main plan run after a prep plan whose values are kept while the parameters it reads
    keep their values. Otherwise it reads like the main plan (``source``, ``ops``, ...)."""

    def __init__(self, prep, main, values: tuple):
        self.prep, self.main, self.values = prep, main, values
        self.sources = tuple(prep.scope_inputs)
        self.updates_in_place = updates_in_place(main)
        self._own = Scope()
        self._state = None          # (root scope, generation, source arrays) of the prep

    def __getattr__(self, name: str):
        return getattr(self.main, name)

    def run(self, scope, feeds: list) -> tuple:
        root = scope.root()
        found = [scope.find_var(n) for n in self.sources]
        arrays = [None if v is None else v._tensor._array for v in found]
        state = self._state
        if (state is None or state[0] is not root
                or state[1] != getattr(root, _GENERATION, 0)
                or not all(map(operator.is_, arrays, state[2]))):
            self._prepare(scope, root, arrays)
        return self.main.run(_Layered(self._own, scope), feeds)

    def _prepare(self, scope, root, arrays: list) -> None:
        self._state = None
        computed = self.prep.run(scope, [])
        for name, value in zip(self.values, computed):
            self._own.var(name)._tensor._array = value
        self._state = (root, getattr(root, _GENERATION, 0), arrays)


def build_plan(program: Program, feed_names: tuple, fetch_names: tuple, origin, *,
               reuse_buffers: bool, checks: bool, hoist: bool):
    """The plan the Executor runs: a :class:`HoistedPlan` when ``hoist`` and the program has
    run-invariant values, else a plain Plan."""
    from .plan import Plan
    split = split_invariants(program, feed_names, fetch_names) if hoist else None
    if split is None:
        plan = Plan(program, feed_names, fetch_names, origin=origin,
                    reuse_buffers=reuse_buffers, checks=checks)
        plan.updates_in_place = updates_in_place(plan)
        return plan
    prep, main, values = split
    return HoistedPlan(Plan(prep, (), values, origin=origin, checks=checks),
                       Plan(main, feed_names, fetch_names, origin=origin,
                            reuse_buffers=reuse_buffers, checks=checks), values)
