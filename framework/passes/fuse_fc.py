"""Fuse ``mul`` (or ``matmul_v2`` without transposes) + ``elementwise_add`` of a 1-D bias on
the last axis (+ ``relu``) into Paddle's inference op ``fc``.

Only where the intermediate results are private temporaries (one writer, one reader, not fed,
fetched or persistable): inference programs and ``clone(for_test=True)``, and in training
programs only the layers whose backward does not read them (``elementwise_add_grad`` reads
the product, so fc layers of a training program stay unfused; ``fuse_elementwise_act`` then
fuses their bias add + relu). The ``fc`` kernel performs the same NumPy operations.
"""
from __future__ import annotations

from ..operator import Operator
from ..program import Program
from .graph import PassContext, Rewriter


def _product(rw: Rewriter, op: Operator) -> tuple[int, int] | None:
    """``(in_num_col_dims, out_columns)`` when ``op`` is a product fc can compute exactly."""
    x, w = rw.var(op.input("X")[0]), rw.var(op.input("Y")[0])
    if x is None or w is None or not x.has_tensor_desc or len(w.shape) != 2:
        return None
    if op.type == "mul":
        k = op.attrs.get("x_num_col_dims", 1)
        if op.attrs.get("y_num_col_dims", 1) != 1 or not 1 <= k < len(x.shape):
            return None
    elif op.type == "matmul_v2":
        if op.attrs.get("trans_x") or op.attrs.get("trans_y") or len(x.shape) != 2:
            return None      # batched matmul may round differently from one flat product
        k = 1
    else:
        return None
    if x.dtype != w.dtype:
        return None
    return k, w.shape[1]


def _bias(rw: Rewriter, add: Operator, k: int, columns: int, dtype) -> str | None:
    """The name of the bias ``add`` adds, when it is 1-D over the product's last axis."""
    name = add.input("Y")[0]
    bias = rw.var(name)
    if bias is None or tuple(bias.shape) != (columns,) or bias.dtype != dtype:
        return None
    return name if add.attrs.get("axis", -1) in (-1, k) else None


def fuse_fc(program: Program, ctx: PassContext) -> bool:
    rw = Rewriter(program, ctx)
    for op in list(rw.block.ops):
        if op.type not in ("mul", "matmul_v2"):
            continue
        shape = _product(rw, op)
        product = op.output("Out")[0]
        add = rw.sole_reader(product, "elementwise_add")
        if shape is None or add is None:
            continue
        k, columns = shape
        bias = _bias(rw, add, k, columns, rw.var(product).dtype)
        if bias is None:
            continue
        chain, activation, out = [op, add], "", add.output("Out")[0]
        relu = rw.sole_reader(out, "relu")
        if relu is not None:
            chain, activation, out = chain + [relu], "relu", relu.output("Out")[0]
        rw.fuse(chain, "fc", {"Input": op.input("X"), "W": op.input("Y"), "Bias": [bias]},
                {"Out": [out]}, {"in_num_col_dims": k, "activation_type": activation,
                                 "padding_weights": False})
    return rw.apply()
