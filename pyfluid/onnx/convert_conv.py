"""conv2d / depthwise_conv2d and pool2d, with Paddle's padding rules (EXPLICIT, SAME,
VALID), NHWC layouts, ceil mode, exclusive averages and adaptive windows.

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
from .registry import converter


def _onnx_pads(pads: list[int]) -> list[int]:
    """Paddle's [top, bottom, left, right] -> ONNX's [top, left, bottom, right]."""
    return [pads[0], pads[2], pads[1], pads[3]]


def _to_nchw(g, n, slot: str) -> tuple[str, tuple, bool]:
    """The input as NCHW, its static shape in NCHW order, and whether it was NHWC."""
    x, shape = n.input(slot), n.shape(slot)
    layout = n.attr("data_format") or n.attr("data_layout") or "NCHW"
    if layout != "NHWC":
        return x, shape, False
    return g.op("Transpose", x, perm=[0, 3, 1, 2]), (shape[0], shape[3], *shape[1:3]), True


def _from_nchw(g, value: str, out: str, channel_last: bool) -> None:
    if channel_last:
        g.op("Transpose", value, perm=[0, 2, 3, 1], outputs=[out])
    else:
        g.op("Identity", value, outputs=[out])


@converter("conv2d", "depthwise_conv2d")
def conv2d(g, n):
    x, shape, channel_last = _to_nchw(g, n, "Input")
    filt_hw = n.shape("Filter")[2:]
    strides, algorithm = list(n.attr("strides")), n.attr("padding_algorithm") or "EXPLICIT"
    attrs = {"strides": strides, "group": int(n.attr("groups")),
             "kernel_shape": list(filt_hw) if min(filt_hw) > 0 else None}
    in_hw = shape[2:]
    if algorithm == "SAME" and min(in_hw) < 0:
        attrs.update(auto_pad="SAME_UPPER", dilations=[1, 1])    # Paddle: extra pad at the end
    else:
        pads, dilations = resolve_padding(n.type, in_hw, filt_hw, strides, n.attr("paddings"),
                                          algorithm, n.attr("dilations"))
        attrs.update(pads=_onnx_pads(pads), dilations=dilations)
    out = n.output("Output")
    conv = g.op("Conv", x, n.input("Filter"), **attrs,
                **({} if channel_last else {"outputs": [out]}))
    if channel_last:
        _from_nchw(g, conv, out, True)


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
    x, shape, channel_last = _to_nchw(g, n, "X")
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
    _from_nchw(g, value, n.output("Out"), channel_last)


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
