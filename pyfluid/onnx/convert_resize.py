"""Interpolation (linear / bilinear / trilinear / nearest / bicubic ``*_interp_v2``) as ONNX
Resize, with Paddle's output-size priority (SizeTensor, OutSize, Scale, scale, out_*) and its
sampling rules: align_corners, align_mode (0: half pixel, 1: asymmetric), nearest picks
``floor(ratio * k)`` (``round`` with align_corners), bicubic with a = -0.75."""
from __future__ import annotations

import numpy as np

from .convert_shape import int64_list, int64_vector
from .registry import converter

_METHODS = {"linear_interp_v2": "linear", "bilinear_interp_v2": "linear",
            "trilinear_interp_v2": "linear", "nearest_interp_v2": "nearest",
            "bicubic_interp_v2": "cubic"}


def _sampling(n, mode: str) -> dict:
    if n.attr("align_corners"):
        transform = "align_corners"
    elif mode == "nearest" or (mode == "linear" and n.attr("align_mode") == 1):
        transform = "asymmetric"
    else:
        transform = "half_pixel"
    attrs = {"mode": mode, "coordinate_transformation_mode": transform}
    if mode == "nearest":
        attrs["nearest_mode"] = "round_prefer_ceil" if n.attr("align_corners") else "floor"
    if mode == "cubic":
        attrs["cubic_coeff_a"] = -0.75
    return attrs


@converter(*_METHODS)
def interpolate(g, n):
    x, rank = n.input("X"), n.rank("X")
    spatial = rank - 2
    channel_last = n.attr("data_layout") in ("NHWC", "NDHWC", "NWC")
    lead = slice(0, 1) if channel_last else slice(0, 2)
    sizes = scales = ""
    scale_attr = [float(s) for s in (n.attr("scale") or [])]
    if n.has("SizeTensor"):
        sizes = int64_list(g, n.inputs("SizeTensor"))
    elif n.has("OutSize"):
        sizes = int64_vector(g, n.input("OutSize"))
    elif n.has("Scale"):
        scales = g.cast(g.reshape(n.input("Scale"), [-1]), np.float32)
        scales = g.op("Expand", scales, g.ints([spatial]))
    elif scale_attr and min(scale_attr) > 0:
        scales = g.const(np.array((scale_attr * spatial)[:spatial], np.float32))
    else:
        sizes = g.ints([int(n.attr(a)) for a in ("out_d", "out_h", "out_w")][-spatial:])
    if sizes:
        head = g.shape(x, lead.start, lead.stop)
        parts = [head, sizes] + ([g.shape(x, rank - 1)] if channel_last else [])
        sizes = g.op("Concat", *parts, axis=0)
    else:
        ones = g.const(np.ones(lead.stop, np.float32))
        parts = [ones, scales] + ([g.const(np.ones(1, np.float32))] if channel_last else [])
        scales = g.op("Concat", *parts, axis=0)
    g.op("Resize", x, "", scales, sizes, outputs=[n.output("Out")],
         **_sampling(n, _METHODS[n.type]))
