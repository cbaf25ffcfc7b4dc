"""Run 3x3 stride-1 convolutions of inference programs by Winograd F(m x m, 3x3)
(ops/winograd.py): ``conv2d``/``fused_conv2d`` with a filter that is the same on every run
(a parameter nothing writes, or a value computed from such parameters, e.g. a folded filter)
becomes ``winograd_filter`` (the filter transformed for the tile m that pays for the layer's
declared input size, computed once per parameter state: executor/hoisting.py) +
``fused_conv2d_winograd``, which runs F(m x m, 3 x 3) where it pays for the input it gets
and the plain kernel otherwise.

Winograd changes rounding (the products are taken in the transformed domain): results agree
with the plain convolution to about 1e-6 (F(2x2)) and 1e-5 (F(4x4)) of the output's
magnitude.
"""
from __future__ import annotations

from ...ops.conv_kernels import geometry, winograd_tile
from ..program import Program
from .graph import PassContext
from .invariants import with_prepared_values

_CONVS = ("conv2d", "fused_conv2d")
_KEPT = ("paddings", "padding_algorithm", "data_format", "fuse_activation", "fuse_alpha",
         "fuse_beta")


def _tile(op, x_shape, filter_shape) -> int:
    """The Winograd tile m for this convolution (0: none); with the input's height or width
    unknown, F(2x2) on channels alone (the kernel still picks the plain convolution for
    small inputs at run time)."""
    attrs = op.attrs
    algorithm = attrs.get("padding_algorithm", "EXPLICIT")
    dilations = [1, 1] if algorithm == "SAME" else list(attrs.get("dilations", [1, 1]))
    if (attrs.get("groups", 1) != 1 or list(attrs.get("strides", [1, 1])) != [1, 1]
            or dilations != [1, 1] or tuple(filter_shape[2:]) != (3, 3)
            or min(filter_shape[:2]) < 16 or len(x_shape) != 4):
        return 0
    n, *rest = x_shape
    c, h, w = (rest[2], rest[0], rest[1]) if attrs.get("data_format") == "NHWC" else rest
    if h < 0 or w < 0:
        return 2
    try:
        geo = geometry(op.type, (1, c, h, w), tuple(filter_shape), (1, 1),
                       tuple(attrs.get("paddings", [0, 0])), algorithm, (1, 1), 1)
    except ValueError:
        return 0
    return winograd_tile(geo)


def _prepare(op, block, invariant):
    filt = op.input("Filter")[0] if op.type in _CONVS else None
    x_var = block._find_var_recursive(op.input("Input")[0]) if filt else None
    f_var = block._find_var_recursive(filt) if filt else None
    tile = (_tile(op, x_var.shape or (), f_var.shape) if filt in invariant and x_var
            and f_var and len(f_var.shape or ()) == 4 else 0)
    if not tile:
        return None

    def make_op(transformed):
        inputs = {"Input": op.input("Input"), "Filter": [filt], "Transformed": [transformed]}
        for slot in ("Bias", "ResidualData"):
            if op.input(slot) if op.type == "fused_conv2d" else False:
                inputs[slot] = op.input(slot)
        return block._make_op("fused_conv2d_winograd", inputs, {"Output": op.output("Output")},
                              {k: op.attrs[k] for k in _KEPT if k in op.attrs})

    return (f"{filt}@winograd{tile}",
            lambda transformed: block._make_op("winograd_filter", {"Filter": [filt]},
                                               {"Output": [transformed]}, {"tile": tile}),
            make_op)


def conv_winograd(program: Program, ctx: PassContext) -> bool:
    return with_prepared_values(program, ctx, _prepare)
