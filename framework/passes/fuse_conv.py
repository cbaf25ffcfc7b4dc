"""Fuse ``conv2d``/``depthwise_conv2d`` -> ``elementwise_add`` of a per-channel bias ->
``elementwise_add`` of a residual of the output's shape -> an activation (each step optional,
at least one present) into Paddle's inference op ``fused_conv2d`` (its oneDNN
conv_bias / conv_elementwise_add / conv_activation fuse passes in one).

Only where the intermediate results are private temporaries: inference programs (after
fold_conv_bn), never a training program's layers (their grad ops read the intermediate
results). The fused kernel takes the bias, the residual and the activation in place on the
convolution's fresh result, in the chain's order: bit-identical results, fewer passes and
buffers.
"""
from __future__ import annotations

from ..operator import Operator
from ..program import Program
from .graph import PassContext, Rewriter

CONVS = ("conv2d", "depthwise_conv2d")


def _activation(op: Operator) -> tuple[str, float, float] | None:
    """(fuse_activation, fuse_alpha, fuse_beta) computing what ``op`` computes, if any."""
    if op.type == "relu":
        return "relu", 0.0, 0.0
    if op.type == "relu6":
        return "relu6", 0.0, float(op.attrs.get("threshold", 6.0))
    if op.type == "leaky_relu":
        return "leaky_relu", float(op.attrs.get("alpha", 0.02)), 0.0
    if op.type == "hard_swish" and (op.attrs.get("threshold", 6.0), op.attrs.get("scale", 6.0),
                                    op.attrs.get("offset", 3.0)) == (6.0, 6.0, 3.0):
        return "hard_swish", 0.0, 0.0
    return None


def _same_shape(rw: Rewriter, a: str, b: str) -> bool:
    va, vb = rw.var(a), rw.var(b)
    return (va is not None and vb is not None and va.shape is not None
            and tuple(va.shape) == tuple(vb.shape) and va.dtype == vb.dtype)


def fuse_conv(program: Program, ctx: PassContext) -> bool:
    rw = Rewriter(program, ctx)
    taken: set[int] = set()          # ops already in a chain (a residual add has two convs)
    for conv in list(rw.block.ops):
        if conv.type not in CONVS:
            continue
        channel_last = conv.attrs.get("data_format", "NCHW") == "NHWC"
        filt = rw.var(conv.input("Filter")[0])
        if filt is None or len(filt.shape or ()) != 4:
            continue
        chain, out = [conv], conv.output("Output")[0]
        inputs = {"Input": conv.input("Input"), "Filter": conv.input("Filter")}
        attrs = {k: v for k, v in conv.attrs.items() if k in (
            "strides", "paddings", "padding_algorithm", "groups", "dilations", "data_format")}
        add = rw.sole_reader(out, "elementwise_add")
        if add is not None:                                         # the bias
            bias = rw.var(add.input("Y")[0])
            axis = add.attrs.get("axis", -1)
            if (bias is not None and tuple(bias.shape or ()) == (filt.shape[0],)
                    and axis in ((3, -1) if channel_last else (1,))):
                inputs["Bias"] = add.input("Y")
                chain.append(add)
                out = add.output("Out")[0]
        add = rw.reader_of.get(out) if rw.private_temporary(out) else None
        if add is not None and add.type == "elementwise_add" and id(add) not in taken:
            x, y = add.input("X")[0], add.input("Y")[0]
            other = y if x == out else x
            if other != out and _same_shape(rw, other, out) and add.attrs.get("axis", -1) == -1:
                inputs["ResidualData"] = [other]      # the residual
                attrs["fuse_residual_connection"] = True
                chain.append(add)
                out = add.output("Out")[0]
        act = rw.reader_of.get(out) if rw.private_temporary(out) else None
        found = _activation(act) if act is not None and act.input("X") == [out] else None
        if found is not None:
            attrs["fuse_activation"], attrs["fuse_alpha"], attrs["fuse_beta"] = found
            chain.append(act)
            out = act.output("Out")[0]
        if len(chain) > 1:
            taken.update(id(op) for op in chain)
            rw.fuse(chain, "fused_conv2d", inputs, {"Output": [out]}, attrs)
    return rw.apply()
