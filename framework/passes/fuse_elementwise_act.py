"""Fuse ``elementwise_add`` (or ``elementwise_mul``) + ``relu`` into Paddle's
``fused_elemwise_activation`` (``functor_list = ["relu", <binary>]``: relu(binary(X, Y))),
where the sum is a private temporary. ``relu_grad`` reads relu's output and the binary op's
grad reads its inputs, never the sum, so this applies to training programs too. The kernel
applies relu in place on the binary op's fresh result: bit-identical, one buffer less.
"""
from __future__ import annotations

from ..program import Program
from .graph import PassContext, Rewriter

_BINARY = ("elementwise_add", "elementwise_mul")


def fuse_elementwise_act(program: Program, ctx: PassContext) -> bool:
    rw = Rewriter(program, ctx)
    for op in list(rw.block.ops):
        if op.type not in _BINARY:
            continue
        relu = rw.sole_reader(op.output("Out")[0], "relu")
        if relu is None:
            continue
        rw.fuse([op, relu], "fused_elemwise_activation",
                {"X": op.input("X"), "Y": op.input("Y")}, {"Out": relu.output("Out")},
                {"axis": op.attrs.get("axis", -1), "functor_list": ["relu", op.type]})
    return rw.apply()
