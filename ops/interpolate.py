"""Resizing: linear/bilinear/trilinear/nearest/bicubic_interp_v2, as Paddle 2.6's CPU kernels
compute them.

The output size comes, highest priority first, from SizeTensor, else OutSize, else in * scale
(the Scale input, else the scale attribute), else the out_d/out_h/out_w attributes. Each axis
is resampled independently: every output position reads a few input positions (1 for nearest,
2 for linear, 4 for cubic) with weights, computed exactly as Paddle does, including its float32
source coordinates, its ratio 1/scale when a scale is known, align_corners and align_mode.
The forward is a weighted sum of gathers per axis; the gradient sums the runs of outputs
that read each input position (np.add.reduceat)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .registry import OpDef, default_grad_op_spec, register, register_op
from .types import AttrType, Meta

INTERP_ATTRS = {
    "data_layout": "NCHW",
    "out_d": 0,
    "out_h": 0,
    "out_w": 0,
    "scale": (AttrType.FLOATS, []),
    "interp_method": "bilinear",
    "align_corners": True,
    "align_mode": 1,
}
_METHODS_BY_RANK = {1: ("linear",), 2: ("bilinear", "nearest", "bicubic"),
                    3: ("trilinear", "nearest")}
_CUBIC_A = -0.75


def _spatial(op, shape, data_layout) -> tuple[int, list[int]]:
    """(number of spatial dims, their axes) of an NC* (NCHW) or N*C (NHWC) tensor."""
    if len(shape) not in (3, 4, 5):
        raise ValueError(f"op '{op}': the input X must be 3-D, 4-D or 5-D (N, C and 1-3 spatial "
                         f"dims), received shape {list(shape)}")
    if data_layout not in ("NCHW", "NHWC", "AnyLayout"):
        raise ValueError(f"op '{op}': data_layout must be 'NCHW' or 'NHWC', received "
                         f"{data_layout!r}")
    nd = len(shape) - 2
    return nd, list(range(1, nd + 1)) if data_layout == "NHWC" else list(range(2, nd + 2))


def _positive(op, values, source):
    for name, v in zip("dhw"[-len(values):], values):
        if not v > 0:
            raise ValueError(f"op '{op}': the scale_{name} in {source} of Operator(interpolate) "
                             f"should be greater than 0, but received value is {v}.")


def _scales(op, nd, size_tensor, scale_tensor, scale) -> list[float]:
    """Per axis the scale the kernel uses for sizes and ratios; -1 when there is none."""
    if size_tensor:
        return [-1.0] * nd
    if scale_tensor is not None:
        values = [float(v) for v in np.ravel(scale_tensor).astype(np.float32)]
        values = values[:nd] if len(values) > 1 else values[:1] * nd
        _positive(op, values, "input 'Scale' Tensor")
        return values
    if len(scale) > (0 if nd == 1 else 1):
        values = [float(v) for v in scale[:nd]]
        _positive(op, values, "Attr(scale)")
        return values
    return [-1.0] * nd


def output_size(op, in_size, out_size, size_tensor, scale_tensor, *, out_d, out_h, out_w,
                scale, **_) -> tuple[list[int], list[float]]:
    """The runtime output size and per-axis scales (Paddle's priority rules)."""
    nd = len(in_size)
    scales = _scales(op, nd, size_tensor, scale_tensor, scale)
    if size_tensor:
        out = [int(np.ravel(t)[0]) for t in size_tensor]
    else:
        out = [out_d, out_h, out_w][-nd:]
        if all(s > 0 for s in scales):
            out = [int(np.float32(n) * np.float32(s)) for n, s in zip(in_size, scales)]
        if out_size is not None:
            out = [int(v) for v in np.ravel(out_size)]
    if len(out) != nd:
        raise ValueError(f"op '{op}': the output size {out} must have {nd} values (one per "
                         f"spatial dim of the input)")
    for name, v in zip("dhw"[-nd:], out):
        if v <= 0:
            raise ValueError(f"op '{op}': out_{name} in Attr(out_shape) of Op(interpolate) "
                             f"should be greater than 0 (received {v}; set the size or a "
                             f"positive scale_factor)")
    return out, scales


class _Taps(NamedTuple):
    index: np.ndarray     # (taps, out) input positions
    weight: np.ndarray | None  # (taps, out) weights; None for nearest (one tap, weight 1)


def _ratio(in_size: int, out: int, scale: float, align_corners: bool) -> np.float32:
    if out <= 1:
        return np.float32(0)
    if align_corners:
        return np.float32(in_size - 1) / np.float32(out - 1)
    return np.float32(1.0 / scale) if scale > 0 else np.float32(in_size) / np.float32(out)


def _axis_taps(method, in_size, out, scale, align_corners, align_mode, dtype) -> _Taps:
    ratio = _ratio(in_size, out, scale, align_corners)
    pos = np.arange(out)
    scaled = (ratio * pos.astype(np.float32)).astype(np.float32)     # float * int: float
    centre = ratio.astype(np.float64) * (pos + 0.5) - 0.5           # float * double: double
    if method == "nearest":
        src = (scaled + 0.5) if align_corners else scaled
        return _Taps(np.minimum(src.astype(np.int64), in_size - 1)[None], None)
    if method == "bicubic":
        coord = (scaled if align_corners else centre).astype(dtype)
        first = np.floor(coord).astype(np.int64)
        t = coord - first
        one = dtype.type(1)
        weight = np.stack([_cubic2(t + one), _cubic1(t), _cubic1(one - t), _cubic2(2 - t)])
        index = np.clip(first[None] - 1 + np.arange(4)[:, None], 0, in_size - 1)
        return _Taps(index, weight.astype(dtype))
    centred = align_mode == 0 and not align_corners
    # C++ truncation toward zero; clipped also above (Paddle reads out of bounds there)
    low = np.clip((centre if centred else scaled).astype(np.int64), 0, in_size - 1)
    high = np.minimum(low + 1, in_size - 1)
    if centred:
        frac = np.maximum(centre.astype(np.float32), 0) - low.astype(np.float32)
    else:
        frac = scaled - low.astype(np.float32)
    return _Taps(np.stack([low, high]), np.stack([1 - frac, frac]).astype(dtype))


def _cubic1(x):
    a = x.dtype.type(_CUBIC_A)
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cubic2(x):
    a = x.dtype.type(_CUBIC_A)
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def _along(v, axis, ndim):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def _resample(x, taps: _Taps, axis):
    if taps.weight is None:
        return x.take(taps.index[0], axis=axis)
    out = x.take(taps.index[0], axis=axis) * _along(taps.weight[0], axis, x.ndim)
    for index, weight in zip(taps.index[1:], taps.weight[1:]):
        out += x.take(index, axis=axis) * _along(weight, axis, x.ndim)
    return out


def _resample_adjoint(g, taps: _Taps, axis, size):
    """Transpose of :func:`_resample`: each output position's gradient goes back to the
    input positions it read, with their weights. Every tap's positions grow with the output
    position, so the outputs reading one input position are a contiguous run: one reduceat
    per tap sums the runs (memory of one gradient-sized array)."""
    shape = list(g.shape)
    shape[axis] = size
    out = np.zeros(shape, dtype=g.dtype)
    for j, index in enumerate(taps.index):
        values = g if taps.weight is None else g * _along(taps.weight[j], axis, g.ndim)
        targets, starts = np.unique(index, return_index=True)
        runs = np.add.reduceat(values, starts, axis=axis)
        if targets[-1] - targets[0] + 1 == len(targets):      # consecutive: a slice
            targets = slice(int(targets[0]), int(targets[-1]) + 1)
        out[(slice(None),) * axis + (targets,)] += runs
    return out


def _check_method(op, interp_method, nd):
    if interp_method not in _METHODS_BY_RANK[nd]:
        raise ValueError(f"op '{op}': interp_method {interp_method!r} is not supported for a "
                         f"{nd + 2}-D input; choose one of {list(_METHODS_BY_RANK[nd])}")


def _plan(op, x_shape, out, scales, axes, *, interp_method, align_corners, align_mode,
          dtype) -> list[_Taps]:
    _check_method(op, interp_method, len(axes))
    return [_axis_taps(interp_method, x_shape[a], o, s, align_corners, align_mode, dtype)
            for a, o, s in zip(axes, out, scales)]


def _register(op_type: str):
    op = register_op(op_type, inputs=["X", "OutSize?", "SizeTensor*?", "Scale?"],
                     outputs=["Out"], attrs=INTERP_ATTRS, no_grad=["OutSize", "SizeTensor",
                                                                   "Scale"],
                     extra_attrs={"use_mkldnn": False}, fresh_outputs=True)

    @op.def_infer_shape
    def infer(x: Meta, out_size=None, size_tensor=None, scale_tensor=None, *, data_layout,
              out_d, out_h, out_w, scale, interp_method, **_):
        """As Paddle's InterpolateInferMeta, except that OutSize (known only when the program
        runs) leaves the sizes unknown where Paddle keeps the attributes'."""
        nd, axes = _spatial(op_type, x.shape, data_layout)
        _check_method(op_type, interp_method, nd)
        shape = list(x.shape)
        if out_size is not None and not size_tensor:
            out = [-1] * nd
        elif size_tensor:
            if len(size_tensor) != nd:
                raise ValueError(f"op '{op_type}': Input(SizeTensor)'s size should be {nd} for "
                                 f"a {nd + 2}-D input, but received {len(size_tensor)}.")
            out = [out_d, out_h, out_w][-nd:]
        elif scale_tensor is not None:
            if len(scale_tensor.shape) != 1 or scale_tensor.shape[0] not in (-1, 1, nd):
                raise ValueError(f"op '{op_type}': Input(Scale) must be a 1-D tensor of 1 or "
                                 f"{nd} values, received shape {list(scale_tensor.shape)}")
            out = [-1] * nd
        elif scale:
            if len(scale) != nd and nd > 1:
                raise ValueError(f"op '{op_type}': Attr(scale) must hold {nd} values for a "
                                 f"{nd + 2}-D input, received {list(scale)}")
            _positive(op_type, scale[:nd], "Attr(scale)")
            out = [-1 if shape[a] < 0 else int(np.float32(shape[a]) * np.float32(s))
                   for a, s in zip(axes, scale[:nd])]
        else:
            out = [out_d, out_h, out_w][-nd:]
        for a, o in zip(axes, out):
            shape[a] = o if o > 0 else -1
        return Meta(tuple(shape), x.dtype)

    @op.def_kernel
    def kernel(x, out_size=None, size_tensor=None, scale_tensor=None, *, data_layout, out_d,
               out_h, out_w, scale, interp_method, align_corners, align_mode):
        _, axes = _spatial(op_type, x.shape, data_layout)
        out, scales = output_size(op_type, [x.shape[a] for a in axes], out_size, size_tensor,
                                  scale_tensor, out_d=out_d, out_h=out_h, out_w=out_w,
                                  scale=scale)
        if all(x.shape[a] == o for a, o in zip(axes, out)):
            return x.copy()
        plan = _plan(op_type, x.shape, out, scales, axes, interp_method=interp_method,
                     align_corners=align_corners, align_mode=align_mode, dtype=x.dtype)
        for axis, taps in zip(axes, plan):
            x = _resample(x, taps, axis)
        return x

    # The grad op is declared by hand: the Scale input and the scale attribute share a name,
    # which a grad rule's parameter names cannot tell apart. X is read for its shape only.
    grad_op = register(OpDef(op_type + "_grad",
                             inputs=["X", "OutSize?", "SizeTensor*?", "Scale?", "Out@GRAD"],
                             outputs=["X@GRAD?"], attrs=INTERP_ATTRS, differentiable=False))
    grad_op.forward, grad_op.shape_only = op, frozenset({"X"})

    @grad_op.def_kernel
    def grad(x, out_size, size_tensor, scale_tensor, dout, *, data_layout, scale,
             interp_method, align_corners, align_mode):
        _, axes = _spatial(op_type, x.shape, data_layout)
        out = [dout.shape[a] for a in axes]
        if all(x.shape[a] == o for a, o in zip(axes, out)):
            return dout.copy()
        scales = _scales(op_type, len(axes), size_tensor, scale_tensor, scale)
        plan = _plan(op_type, x.shape, out, scales, axes, interp_method=interp_method,
                     align_corners=align_corners, align_mode=align_mode, dtype=dout.dtype)
        g = dout
        for axis, taps in reversed(list(zip(axes, plan))):
            g = _resample_adjoint(g, taps, axis, x.shape[axis])
        return g

    op.def_grad_maker(lambda fwd_op, no_grad_names: [
        default_grad_op_spec(op, fwd_op, no_grad_names)])
    kernel.__name__, grad.__name__ = f"{op_type}_kernel", f"{op_type}_grad"
    return op


linear_interp_v2 = _register("linear_interp_v2")
bilinear_interp_v2 = _register("bilinear_interp_v2")
trilinear_interp_v2 = _register("trilinear_interp_v2")
nearest_interp_v2 = _register("nearest_interp_v2")
bicubic_interp_v2 = _register("bicubic_interp_v2")
