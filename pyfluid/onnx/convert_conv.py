"""Convolutions (conv2d, depthwise_conv2d, conv3d and their transposes) and pooling (pool2d,
max_pool2d_with_index), with Paddle's padding rules (EXPLICIT, SAME, VALID), channel-last
layouts, ceil mode, exclusive averages and adaptive windows.

Paddle's average pool divides by a count that ONNX's AveragePool cannot always reproduce
(the window end is bounded by ``size + leading padding``; ceil-mode windows may run past the
padding). When the spatial size is known at export time, the average is written as a sum over
an explicitly zero-padded input divided by Paddle's own counts, so every configuration is
exact; otherwise ONNX's AveragePool is used with the matching ``count_include_pad``.
"""
from __future__ import annotations

import numpy as np

from ..ops.pool import pool_geometry
from ..ops.windows import expand_paddings, resolve_padding
from ..ops.winograd import MATRICES as WINOGRAD
from .registry import converter


def _onnx_pads(pads: list[int]) -> list[int]:
    """Paddle's [before_0, after_0, before_1, after_1, ...] -> ONNX's [befores..., afters...]."""
    return list(pads[0::2]) + list(pads[1::2])


def _channels_first(g, n, slot: str) -> tuple[str, tuple, bool]:
    """The input as NC..., its static shape in that order, and whether it was channel-last."""
    x, shape = n.input(slot), n.shape(slot)
    layout = n.attr("data_format") or n.attr("data_layout") or "NCHW"
    if layout not in ("NHWC", "NDHWC"):
        return x, shape, False
    perm = [0, len(shape) - 1] + list(range(1, len(shape) - 1))
    return g.op("Transpose", x, perm=perm), tuple(shape[p] for p in perm), True


def _restore_layout(g, value: str, out: str, channel_last: bool, rank: int) -> None:
    if channel_last:
        g.op("Transpose", value, perm=[0] + list(range(2, rank)) + [1], outputs=[out])
    else:
        g.op("Identity", value, outputs=[out])


def _window_attrs(n, in_size: tuple, kernel: tuple, transposed: bool = False) -> dict:
    strides = list(n.attr("strides") or [1] * len(kernel))    # fused_conv2d_winograd: 1
    algorithm = n.attr("padding_algorithm") or "EXPLICIT"
    if algorithm == "SAME" and min(in_size) < 0:
        if transposed:
            n.fail("padding_algorithm SAME needs the input's spatial size, unknown here")
        return {"strides": strides, "auto_pad": "SAME_UPPER",    # Paddle pads more at the end
                "dilations": [1] * len(kernel)}
    pads, dilations = resolve_padding(n.type, in_size, kernel, strides, n.attr("paddings"),
                                      algorithm, n.attr("dilations"))
    return {"strides": strides, "pads": _onnx_pads(pads), "dilations": dilations}


@converter("conv2d", "depthwise_conv2d", "conv3d")
def conv(g, n):
    x, shape, channel_last = _channels_first(g, n, "Input")
    kernel = n.shape("Filter")[2:]
    attrs = _window_attrs(n, shape[2:], kernel)
    conv_value = g.op("Conv", x, n.input("Filter"), group=int(n.attr("groups")),
                      kernel_shape=list(kernel) if min(kernel) > 0 else None, **attrs)
    _restore_layout(g, conv_value, n.output("Output"), channel_last, len(shape))


@converter("winograd_filter")
def winograd_filter(g, n):
    """((m + 2)^2, C, OC) = G W G^T of the (OC, C, 3, 3) Filter (ops/winograd.py)."""
    tile = int(n.attr("tile"))
    gm = WINOGRAD[tile][0].astype(n.np_dtype("Filter"))
    rows = g.op("MatMul", g.const(gm), n.input("Filter"))              # OC C t 3
    both = g.op("MatMul", rows, g.const(np.ascontiguousarray(gm.T)))   # OC C t t
    oc, c = n.shape("Filter")[:2]
    g.op("Reshape", g.op("Transpose", both, perm=[2, 3, 1, 0]),
         g.ints([(tile + 2) ** 2, c, oc]), outputs=[n.output("Output")])


@converter("pointwise_filter_transpose")
def pointwise_filter_transpose(g, n):
    """(C, OC) transpose of an (OC, C, 1, 1) Filter (framework/passes/pointwise_transposed.py)."""
    oc, c = n.shape("Filter")[:2]
    g.op("Transpose", g.reshape(n.input("Filter"), [oc, c]), perm=[1, 0],
         outputs=[n.output("Output")])


@converter("fused_conv2d", "fused_conv2d_winograd", "fused_conv2d_pointwise")
def fused_conv(g, n):
    """``act(conv(Input, Filter) + Bias + ResidualData)`` (framework/passes/fuse_conv.py,
    conv_winograd.py, pointwise_transposed.py: the Winograd and pointwise ops' Filter is the
    untransformed filter)."""
    x, shape, channel_last = _channels_first(g, n, "Input")
    kernel = n.shape("Filter")[2:]
    value = g.op("Conv", x, n.input("Filter"), group=int(n.attr("groups") or 1),
                 kernel_shape=list(kernel), **_window_attrs(n, shape[2:], kernel))
    if n.has("Bias"):
        value = g.op("Add", value, g.reshape(n.input("Bias"), [-1, 1, 1]))
    if channel_last:
        value = g.op("Transpose", value, perm=[0, 2, 3, 1])
    if n.has("ResidualData"):
        value = g.op("Add", value, n.input("ResidualData"))
    dtype, act = n.np_dtype("Input"), n.attr("fuse_activation") or ""
    if act == "relu":
        value = g.op("Relu", value)
    elif act == "relu6":
        value = g.op("Clip", value, g.scalar(0, dtype),
                     g.scalar(n.attr("fuse_beta") or 6.0, dtype))
    elif act == "leaky_relu":
        value = g.op("LeakyRelu", value, alpha=float(n.attr("fuse_alpha")))
    elif act == "hard_swish":
        gate = g.op("Clip", g.op("Add", value, g.scalar(3.0, dtype)), g.scalar(0, dtype),
                    g.scalar(6.0, dtype))
        value = g.op("Div", g.op("Mul", value, gate), g.scalar(6.0, dtype))
    elif act:
        n.fail(f"fuse_activation {act!r} is not supported")
    g.op("Identity", value, outputs=[n.output("Output")])


@converter("conv2d_transpose", "depthwise_conv2d_transpose", "conv3d_transpose")
def conv_transpose(g, n):
    """Filter [C_in, C_out / groups, k...]; ``output_size`` becomes output_padding."""
    x, shape, channel_last = _channels_first(g, n, "Input")
    kernel = n.shape("Filter")[2:]
    attrs = _window_attrs(n, shape[2:], kernel, transposed=True)
    extra = list(n.attr("output_padding") or [])
    if n.attr("output_size"):
        if min(shape[2:]) < 0:
            n.fail("output_size needs the input's spatial size, unknown here")
        pads, dil = attrs["pads"], attrs["dilations"]
        rank = len(kernel)
        natural = [(size - 1) * s - pads[i] - pads[i + rank] + d * (k - 1) + 1 for i, (
            size, s, d, k) in enumerate(zip(shape[2:], attrs["strides"], dil, kernel))]
        extra = [int(want) - have for want, have in zip(n.attr("output_size"), natural)]
    value = g.op("ConvTranspose", x, n.input("Filter"), group=int(n.attr("groups")),
                 kernel_shape=list(kernel), output_padding=extra or None, **attrs)
    _restore_layout(g, value, n.output("Output"), channel_last, len(shape))


@converter("max_pool2d_with_index")
def max_pool2d_with_index(g, n):
    """Mask holds each maximum's index within its channel's H x W plane (ONNX's indices
    count over the whole tensor, so they are taken modulo H * W)."""
    x, shape = n.input("X"), n.shape("X")
    ksize, strides = list(n.attr("ksize")), list(n.attr("strides"))
    pads = _onnx_pads(expand_paddings(n.type, n.attr("paddings")))
    if n.attr("global_pooling") or n.attr("adaptive"):
        if min(shape[2:]) < 0 or (n.attr("adaptive") and any(
                size % out for size, out in zip(shape[2:], ksize))):
            n.fail("global / adaptive max pooling with indices needs spatial sizes that the "
                   "output size divides, known at export time")
        ksize = list(shape[2:]) if n.attr("global_pooling") else \
            [size // out for size, out in zip(shape[2:], ksize)]
        strides, pads = ksize, [0, 0, 0, 0]
    out, indices = g.op("MaxPool", x, kernel_shape=ksize, strides=strides, pads=pads,
                        outputs=[n.output("Out"), g.fresh(f"{g.label}/indices")])
    plane = g.reduce("ReduceProd", g.shape(x, 2), None, True)
    within = g.op("Mod", indices, plane)
    g.cast(within, n.np_dtype("Mask", output=True), out=n.output("Mask"))


# -- pool2d ------------------------------------------------------------------------------------
def _counts(size: int, out: int, k: int, stride: int, pad: int, exclusive: bool) -> np.ndarray:
    """Paddle's divisor per output position along one axis (Pool2dFunctor)."""
    start = np.arange(out) * stride - pad
    end = np.minimum(start + k, size + pad)
    if exclusive:
        start, end = np.maximum(start, 0), np.minimum(end, size)
    return (end - start).astype(np.int64)


def _adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    return [((o * size) // out, -((-(o + 1) * size) // out)) for o in range(out)]


@converter("pool2d")
def pool2d(g, n):
    x, shape, channel_last = _channels_first(g, n, "X")
    kind = n.attr("pooling_type")
    if kind not in ("max", "avg"):
        n.fail(f"pooling_type must be 'max' or 'avg', received {kind!r}")
    ksize, in_hw = list(n.attr("ksize")), shape[2:]
    adaptive = bool(n.attr("adaptive"))
    if n.attr("global_pooling") or (adaptive and ksize == [1, 1]):
        value = g.op("GlobalMaxPool" if kind == "max" else "GlobalAveragePool", x)
    elif adaptive:
        value = _adaptive(g, n, x, kind, in_hw, ksize)
    elif min(in_hw) >= 0:
        value = _static_pool(g, n, x, kind, in_hw)
    else:
        value = _dynamic_pool(g, n, x, kind)
    _restore_layout(g, value, n.output("Out"), channel_last, 4)


def _adaptive(g, n, x: str, kind: str, in_hw: tuple, out_hw: list) -> str:
    if min(in_hw) < 0:
        n.fail(f"adaptive pooling to {out_hw} needs the input's spatial size, unknown until "
               "run time; give the model input a fixed height and width")
    if all(size % out == 0 for size, out in zip(in_hw, out_hw)):
        k = [size // out for size, out in zip(in_hw, out_hw)]
        op_type = "MaxPool" if kind == "max" else "AveragePool"
        return g.op(op_type, x, kernel_shape=k, strides=k)
    bounds = [_adaptive_bounds(size, out) for size, out in zip(in_hw, out_hw)]
    if kind == "max":                   # a max over a rectangle is a max of row maxima
        for axis, axis_bounds in zip((2, 3), bounds):
            parts = [g.reduce("ReduceMax", g.op("Slice", x, g.ints([a]), g.ints([b]),
                                                g.ints([axis])), [axis], True)
                     for a, b in axis_bounds]
            x = g.op("Concat", *parts, axis=axis)
        return x
    dtype = n.np_dtype("X")
    rows, cols = [np.zeros((out, size), dtype) for out, size in zip(out_hw, in_hw)]
    for matrix, axis_bounds in ((rows, bounds[0]), (cols, bounds[1])):
        for o, (a, b) in enumerate(axis_bounds):
            matrix[o, a:b] = 1
    summed = g.op("MatMul", g.const(rows), g.op("MatMul", x, g.const(cols.T.copy())))
    counts = np.outer(rows.sum(1), cols.sum(1)).astype(dtype)
    return g.op("Div", summed, g.const(counts))


def _static_pool(g, n, x: str, kind: str, in_hw: tuple) -> str:
    attrs = {k: n.attr(k) for k in ("ksize", "global_pooling", "strides", "paddings",
                                    "adaptive", "ceil_mode", "padding_algorithm")}
    attrs["padding_algorithm"] = attrs["padding_algorithm"] or "EXPLICIT"
    ksize, pads, out_hw = pool_geometry(tuple(in_hw), **attrs)
    strides = list(n.attr("strides"))
    if kind == "max":
        reach = [(o - 1) * s + k for o, s, k in zip(out_hw, strides, ksize)]
        end_pads = [max(r - size - p, 0) for r, size, p in zip(reach, in_hw, pads[::2])]
        return g.op("MaxPool", x, kernel_shape=ksize, strides=strides,
                    pads=[pads[0], pads[2], end_pads[0], end_pads[1]])
    exclusive = bool(n.attr("exclusive"))
    counts = [_counts(in_hw[i], out_hw[i], ksize[i], strides[i], pads[2 * i], exclusive)
              for i in range(2)]
    if not any(pads) and all((c == k).all() for c, k in zip(counts, ksize)):
        return g.op("AveragePool", x, kernel_shape=ksize, strides=strides)
    reach = [(o - 1) * s + k for o, s, k in zip(out_hw, strides, ksize)]
    end_pads = [max(r - size - p, 0) for r, size, p in zip(reach, in_hw, pads[::2])]
    padded = g.op("Pad", x, g.ints([0, 0, pads[0], pads[2], 0, 0, end_pads[0], end_pads[1]]))
    mean = g.op("AveragePool", padded, kernel_shape=ksize, strides=strides)
    dtype = n.np_dtype("X")
    rescale = (ksize[0] * ksize[1]) / np.outer(counts[0], counts[1])
    return g.op("Mul", mean, g.const(rescale.astype(dtype)))


def _dynamic_pool(g, n, x: str, kind: str) -> str:
    ksize, strides = list(n.attr("ksize")), list(n.attr("strides"))
    algorithm = n.attr("padding_algorithm") or "EXPLICIT"
    attrs = {"kernel_shape": ksize, "strides": strides, "ceil_mode": int(bool(n.attr("ceil_mode")))}
    if algorithm == "SAME":
        attrs["auto_pad"] = "SAME_UPPER"
    elif algorithm == "EXPLICIT":
        attrs["pads"] = _onnx_pads(expand_paddings("pool2d", n.attr("paddings")))
    if kind == "max":
        return g.op("MaxPool", x, **attrs)
    return g.op("AveragePool", x, count_include_pad=int(not n.attr("exclusive")), **attrs)
