"""Give the ``fc`` ops of inference programs their weight transposed, once: ``fc`` with a W
that is the same on every run (a parameter nothing writes, or a value computed from such
parameters) becomes ``fc_weight_transpose`` (W^T, computed once per parameter state:
executor/hoisting.py) + ``fc_transposed``, whose few-row products read the transposed
weight in blocks OpenBLAS multiplies without repacking (ops/small_products.py). Only weights of
256 KiB or more: below, packing costs little and the program keeps Paddle's ``fc``. Results
agree with ``fc`` to the rounding of a differently blocked product."""
from __future__ import annotations

from ..program import Program
from .graph import PassContext
from .invariants import with_prepared_values

_KEPT = ("in_num_col_dims", "activation_type")
MIN_WEIGHT_VALUES = 1 << 16


def _prepare(op, block, invariant):
    w = op.input("W")[0] if op.type == "fc" else None
    w_var = block._find_var_recursive(w) if w in invariant else None
    shape = tuple(w_var.shape or ()) if w_var is not None else ()
    if (len(shape) != 2 or min(shape) < 0 or shape[0] * shape[1] < MIN_WEIGHT_VALUES
            or op.attrs.get("padding_weights")):
        return None

    def make_op(transposed):
        inputs = {"Input": op.input("Input"), "WT": [transposed]}
        if op.input("Bias"):
            inputs["Bias"] = op.input("Bias")
        return block._make_op("fc_transposed", inputs, {"Out": op.output("Out")},
                              {k: op.attrs[k] for k in _KEPT if k in op.attrs})

    return (f"{w}@T",
            lambda transposed: block._make_op("fc_weight_transpose", {"W": [w]},
                                              {"Out": [transposed]}, {}),
            make_op)


def fc_transposed(program: Program, ctx: PassContext) -> bool:
    return with_prepared_values(program, ctx, _prepare)
