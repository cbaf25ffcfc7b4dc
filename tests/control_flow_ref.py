"""Helpers for the control-flow tests: Paddle 2.6.2's recorded programs and values
(tests/paddle_control_flow/), a structural comparison of programs, and central-difference
gradients of a whole program."""
from __future__ import annotations

import json
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np

import pyfluid as paddle
from pyfluid.framework.program import program_from_bytes
from pyfluid.ops.registry import COMMON_ATTRS

HERE = Path(__file__).resolve().parent / "paddle_control_flow"

# slots Paddle fills from a Python set: their order follows the hash seed
SET_SLOTS = {("conditional_block", "Input"), ("conditional_block", "Out"), ("while", "X"),
             ("while", "Out"), ("while_grad", "X"), ("while_grad", "Out"),
             ("while_grad", "Out@GRAD"), ("while_grad", "X@GRAD"),
             ("conditional_block_grad", "Input"), ("conditional_block_grad", "Out"),
             ("conditional_block_grad", "Input@GRAD"), ("conditional_block_grad", "Out@GRAD")}
# attributes Paddle's Python fills that pyfluid leaves to their defaults (runtime and extras)
_UNCOMPARED = set(COMMON_ATTRS) | {"use_mkldnn", "mkldnn_data_type", "use_quantizer",
                                   "force_cpu", "Scale_x", "Scale_y", "Scale_out", "use_cudnn",
                                   "skip_eager_deletion_vars", "original_output_grad"}


@lru_cache(maxsize=None)
def _archive() -> dict:
    with zipfile.ZipFile(HERE / "programs.zip") as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def recorded_bytes(case: str, suffix: str = ".pdmodel") -> bytes:
    return _archive()[case + suffix]


def recorded_program(case: str):
    return program_from_bytes(recorded_bytes(case), case)


def recorded_cases(prefix: str) -> list[str]:
    return sorted(n[:-len(".pdmodel")] for n in _archive() if n.startswith(prefix)
                  and n.endswith(".pdmodel"))


def recorded_values() -> dict:
    return json.loads(_archive()["values.json"])


@lru_cache(maxsize=None)
def recorded_arrays() -> dict:
    with np.load(HERE / "backward.npz") as data:
        return {k: data[k] for k in data.files}


def case_arrays(case: str) -> dict:
    prefix = case + "/"
    return {k[len(prefix):]: v for k, v in recorded_arrays().items() if k.startswith(prefix)}


def _signature(op) -> tuple:
    def slots(given):
        return {k: (frozenset(v) if (op.type, k) in SET_SLOTS else tuple(v))
                for k, v in given.items() if v}
    attrs = {k: v for k, v in op.attrs.items() if k not in _UNCOMPARED}
    return op.type, slots(op.inputs), slots(op.outputs), attrs


def structure(program) -> list:
    """What must match Paddle: per block its parent and forward block, its variables, and
    per op its type, slots (as sets where Paddle's order is a hash order) and attributes.
    Consecutive ``sum`` ops (gradients added up at the end of a block, in the hash order of
    the slots they come from) are compared in name order."""
    return [(b.idx, b.parent_idx, b.forward_block_idx, sorted(b.vars),
             _sorted_sums([_signature(op) for op in b.ops])) for b in program.blocks]


def _sorted_sums(signatures: list) -> list:
    result, run = [], []
    for sig in signatures + [None]:
        if sig is not None and sig[0] == "sum":
            run.append(sig)
            continue
        result += sorted(run, key=lambda s: s[2]["Out"])
        run = []
        if sig is not None:
            result.append(sig)
    return result


def structure_diff(ours, theirs) -> list[str]:
    """Readable differences between two structures (empty when they match)."""
    diffs = []
    if len(ours) != len(theirs):
        diffs.append(f"{len(ours)} blocks vs {len(theirs)}")
    for a, b in zip(ours, theirs):
        if a[:3] != b[:3]:
            diffs.append(f"block {a[0]}: (idx, parent, forward) {a[:3]} vs {b[:3]}")
        if a[3] != b[3]:
            diffs.append(f"block {a[0]} vars: only ours {sorted(set(a[3]) - set(b[3]))}, only "
                         f"Paddle's {sorted(set(b[3]) - set(a[3]))}")
        if len(a[4]) != len(b[4]):
            diffs.append(f"block {a[0]}: ops {[s[0] for s in a[4]]} vs {[s[0] for s in b[4]]}")
            continue
        diffs += [f"block {a[0]} op #{i}: {x} vs {y}" for i, (x, y) in enumerate(zip(a[4], b[4]))
                  if x != y]
    return diffs


def numeric_grad(exe, program, loss, feed: dict, name: str, scope=None, eps: float = 1e-6):
    """Central differences of ``loss`` w.r.t. the fed or scope variable ``name`` (in float64
    arithmetic; the program sees values of the variable's own dtype)."""
    scope = scope or paddle.static.global_scope()
    fed = name in feed
    original = np.asarray(feed[name] if fed else scope.find_var(name).get_tensor()._array)
    base = original.astype(np.float64)
    grad = np.zeros_like(base)

    def loss_at(value):
        value = value.astype(original.dtype)
        if fed:
            return float(exe.run(program, feed={**feed, name: value}, fetch_list=[loss],
                                 scope=scope)[0])
        scope.find_var(name).get_tensor()._array = value
        try:
            return float(exe.run(program, feed=feed, fetch_list=[loss], scope=scope)[0])
        finally:
            scope.find_var(name).get_tensor()._array = original
    for index in np.ndindex(*base.shape):
        plus, minus = base.copy(), base.copy()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = (loss_at(plus) - loss_at(minus)) / (2 * eps)
    return grad
