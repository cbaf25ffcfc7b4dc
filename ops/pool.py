"""pool2d (max / avg; explicit, SAME, VALID, global, ceil-mode and adaptive windows).

Each output position pools a rectangle ``[h0, h1) x [w0, w1)`` computed per axis exactly as
Paddle's Pool2dFunctor does (only the leading paddings enter the window bounds; the trailing
ones only change the output size). Windows of one size and stride run as strided views
(ops/pool_kernels.py); global pooling is one reduction; adaptive windows that do not divide
the input are gathered: average pooling as ``Ah @ x @ Aw.T`` with 0/1 window matrices, max
pooling one axis at a time.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .pool_kernels import pool_kernel
from .registry import register_op
from .types import AttrType, Meta, VarType
from .windows import check_layout, from_nchw, resolve_padding, to_nchw

POOL_ATTRS = {
    "pooling_type": "max",
    "ksize": (AttrType.INTS, []),
    "global_pooling": False,
    "strides": (AttrType.INTS, [1, 1]),
    "paddings": (AttrType.INTS, [0, 0]),
    "exclusive": True,
    "adaptive": False,
    "ceil_mode": False,
    "data_format": "NCHW",
    "padding_algorithm": "EXPLICIT",
    "use_cudnn": False,
}


def _pool_out_size(size: int, k: int, pad0: int, pad1: int, stride: int, ceil_mode: bool) -> int:
    if size < 0:
        return -1
    out = (size - k + pad0 + pad1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if out <= 0:
        raise ValueError(f"op 'pool2d': the output size must be greater than 0. But received: "
                         f"output_size = {out} due to the settings of input_size({size}), "
                         f"padding({pad0},{pad1}), k_size({k}) and stride({stride}). Please "
                         f"check again!")
    return out


def pool_geometry(in_hw, *, ksize, global_pooling, strides, paddings, adaptive, ceil_mode,
                  padding_algorithm, **_) -> tuple[list, list, tuple]:
    """(kernel size, 4 paddings, output size) as Paddle's PoolInferMeta computes them."""
    if global_pooling:
        ksize = list(in_hw)
    if len(ksize) != 2:
        raise ValueError(f"op 'pool2d': Attr(ksize) must have 2 values for a 4-D input, "
                         f"received {list(ksize)}")
    if len(strides) != 2 or min(strides) <= 0:
        raise ValueError(f"op 'pool2d': Attr(strides) must be 2 positive values, received "
                         f"{list(strides)}")
    pads, _ = resolve_padding("pool2d", in_hw, ksize, strides, paddings, padding_algorithm)
    if global_pooling or adaptive:
        pads = [0, 0, 0, 0]
    ksize = [int(k) for k in ksize]
    if adaptive:
        return ksize, pads, tuple(ksize)
    out = tuple(_pool_out_size(in_hw[i], ksize[i], pads[2 * i], pads[2 * i + 1], strides[i],
                               ceil_mode) for i in range(2))
    return ksize, pads, out


def _pool_shape(x: Meta, *, data_format, **attrs):
    channel_last = check_layout("pool2d", data_format)
    if len(x.shape) != 4:
        raise ValueError(f"the input of Op(pool2d) should be a 4-D Tensor. But received: "
                         f"{len(x.shape)}-D Tensor and it's shape is {list(x.shape)}.")
    n, c, h, w = (x.shape[0], x.shape[3], *x.shape[1:3]) if channel_last else x.shape
    _, _, (oh, ow) = pool_geometry((h, w), **attrs)
    return Meta((n, oh, ow, c) if channel_last else (n, c, oh, ow), x.dtype)


class _AxisWindows(NamedTuple):
    index: np.ndarray     # (out, kmax) input positions of each window, clipped into range
    valid: np.ndarray     # (out, kmax) which of them lie inside [start, end)
    matrix: np.ndarray    # (out, size) 0/1 window membership
    count: np.ndarray     # (out,) window length used by the average


def _axis_windows(size: int, out: int, k: int, stride: int, pad: int, adaptive: bool,
                  exclusive: bool) -> _AxisWindows:
    o = np.arange(out)
    if adaptive:
        start, end = (o * size) // out, -((-(o + 1) * size) // out)
        count = end - start
    else:
        start = o * stride - pad
        end = np.minimum(start + k, size + pad)
        count = end - start
        start, end = np.maximum(start, 0), np.minimum(end, size)
        if exclusive:
            count = end - start
    kmax = max(int((end - start).max()), 1)
    index = start[:, None] + np.arange(kmax)
    valid = index < end[:, None]
    positions = np.arange(size)
    matrix = (positions >= start[:, None]) & (positions < end[:, None])
    return _AxisWindows(np.clip(index, 0, size - 1), valid, matrix, count)


class _Plan(NamedTuple):
    channel_last: bool
    h: _AxisWindows
    w: _AxisWindows


def _plan(x, *, data_format, ksize, global_pooling, strides, paddings, exclusive, adaptive,
          ceil_mode, padding_algorithm, **_) -> tuple[np.ndarray, _Plan]:
    channel_last = check_layout("pool2d", data_format)
    x = to_nchw(x, channel_last)
    in_hw = x.shape[2:]
    ksize, pads, out = pool_geometry(in_hw, ksize=ksize, global_pooling=global_pooling,
                                     strides=strides, paddings=paddings, adaptive=adaptive,
                                     ceil_mode=ceil_mode, padding_algorithm=padding_algorithm)
    axes = [_axis_windows(in_hw[i], out[i], ksize[i], strides[i], pads[2 * i], adaptive,
                          exclusive or adaptive) for i in range(2)]
    return x, _Plan(channel_last, *axes)


def _row_max(x, plan: _Plan):
    """Max over each row segment [w0, w1): (N, C, H, OW), and the gathered segments."""
    lowest = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    rows = np.where(plan.w.valid, x[..., plan.w.index], lowest)      # N C H OW KW
    return rows.max(axis=-1), rows, lowest


def _max_forward(x, plan: _Plan):
    row_max, _, lowest = _row_max(x, plan)
    cols = np.where(plan.h.valid[:, :, None], row_max[:, :, plan.h.index], lowest)  # N C OH KH OW
    return cols.max(axis=3)


def _max_backward(x, out, dout, plan: _Plan):
    """Each output's gradient goes to the first maximum of its window in row-major order."""
    n, c, h, w = x.shape
    row_max, rows, _ = _row_max(x, plan)
    hits = (row_max[:, :, plan.h.index] == out[:, :, :, None, :]) & plan.h.valid[:, :, None]
    h_sel = plan.h.index[np.arange(out.shape[2])[:, None], hits.argmax(axis=3)]   # N C OH OW
    first_in_row = (rows == row_max[..., None]).argmax(axis=-1)                    # N C H OW
    k_sel = np.take_along_axis(first_in_row, h_sel, axis=2)
    w_sel = plan.w.index[np.arange(out.shape[3]), k_sel]
    plane = np.arange(n * c).reshape(n, c, 1, 1) * (h * w)
    flat = (plane + h_sel * w + w_sel).ravel()
    dx = np.bincount(flat, weights=dout.ravel(), minlength=n * c * h * w)
    return dx.reshape(x.shape).astype(x.dtype)


def _avg_matrices(plan: _Plan, dtype):
    return plan.h.matrix.astype(dtype), plan.w.matrix.astype(dtype)


def _avg_forward(x, plan: _Plan):
    ah, aw = _avg_matrices(plan, x.dtype)
    divisor = (plan.h.count[:, None] * plan.w.count[None, :]).astype(x.dtype)
    return np.matmul(ah, x @ aw.T) / divisor


def _avg_backward(x, dout, plan: _Plan):
    ah, aw = _avg_matrices(plan, x.dtype)
    divisor = (plan.h.count[:, None] * plan.w.count[None, :]).astype(x.dtype)
    return np.matmul(ah.T, dout / divisor) @ aw


pool2d = register_op("pool2d", inputs=["X"], outputs=["Out"], attrs=POOL_ATTRS,
                     infer_shape=_pool_shape)


def _check_type(pooling_type: str) -> None:
    if pooling_type not in ("max", "avg"):
        raise ValueError(f"op 'pool2d': pooling_type must be 'max' or 'avg', received "
                         f"{pooling_type!r}")


def _regular(nchw, attrs):
    """The strided-view kernel for this shape (ops/pool_kernels.py), or None for irregular
    adaptive windows (gathered below instead)."""
    ksize, pads, out = pool_geometry(nchw.shape[2:], **attrs)
    return pool_kernel(nchw.shape, tuple(ksize), tuple(attrs["strides"]), tuple(pads), out,
                       attrs["pooling_type"] == "avg", attrs["exclusive"], attrs["adaptive"])


@pool2d.def_kernel
def pool2d_kernel(x, **attrs):
    _check_type(attrs["pooling_type"])
    channel_last = check_layout("pool2d", attrs["data_format"])
    nchw = to_nchw(x, channel_last)
    if attrs["global_pooling"] and attrs["pooling_type"] == "max":
        out = nchw.max(axis=(2, 3), keepdims=True)
    elif attrs["global_pooling"]:
        out = nchw.sum(axis=(2, 3), keepdims=True) / x.dtype.type(nchw.shape[2] * nchw.shape[3])
    else:
        kernel = _regular(nchw, attrs)
        if kernel is not None:
            out = kernel.forward(nchw)
        else:
            nchw, plan = _plan(x, **attrs)
            out = (_max_forward(nchw, plan) if attrs["pooling_type"] == "max"
                   else _avg_forward(nchw, plan))
    return np.ascontiguousarray(from_nchw(out, channel_last))


@pool2d.def_grad
def pool2d_grad(x, out, dout, *, pooling_type, ksize, global_pooling, strides, paddings,
                exclusive, adaptive, ceil_mode, data_format, padding_algorithm):
    attrs = dict(pooling_type=pooling_type, data_format=data_format, ksize=ksize,
                 global_pooling=global_pooling, strides=strides, paddings=paddings,
                 exclusive=exclusive, adaptive=adaptive, ceil_mode=ceil_mode,
                 padding_algorithm=padding_algorithm)
    channel_last = check_layout("pool2d", data_format)
    nchw, dout = to_nchw(x, channel_last), to_nchw(dout, channel_last)
    kernel = _regular(nchw, attrs)
    if kernel is not None:
        dx = kernel.backward(nchw, to_nchw(out, channel_last), dout)
    else:
        nchw, plan = _plan(x, **attrs)
        dx = (_max_backward(nchw, to_nchw(out, channel_last), dout, plan)
              if pooling_type == "max" else _avg_backward(nchw, dout, plan))
    return np.ascontiguousarray(from_nchw(dx, channel_last))


# -- max_pool2d_with_index: max pooling that also returns where each maximum came from -----------
max_pool2d_with_index = register_op(
    "max_pool2d_with_index", inputs=["X"], outputs=["Out", "Mask"],
    attrs={"ksize": (AttrType.INTS, []), "strides": (AttrType.INTS, [1, 1]),
           "paddings": (AttrType.INTS, [0, 0]), "global_pooling": False, "adaptive": False})


def _index_pool_geometry(in_hw, ksize, strides, paddings, global_pooling, adaptive):
    """(kernel, paddings, output size) as Paddle's MaxPoolWithIndexInferMeta computes them:
    one padding per side pair, output (in - k + 2 * pad) // stride + 1."""
    ksize, paddings = [int(k) for k in ksize], [int(p) for p in paddings]
    if global_pooling:
        ksize, paddings = list(in_hw), [0, 0]
    if len(ksize) != 2 or len(strides) != 2 or len(paddings) != 2:
        raise ValueError(f"op 'max_pool2d_with_index': ksize, strides and paddings must have 2 "
                         f"values each for a 4-D input, received ksize={ksize}, "
                         f"strides={list(strides)}, paddings={paddings}")
    if adaptive:
        return ksize, paddings, tuple(ksize)
    if min(strides) <= 0:
        raise ValueError(f"op 'max_pool2d_with_index': strides must be positive, received "
                         f"{list(strides)}")
    out = tuple(-1 if in_hw[i] < 0 else (in_hw[i] - ksize[i] + 2 * paddings[i]) // strides[i] + 1
                for i in range(2))
    if any(o == 0 or o < -1 for o in out):
        raise ValueError(f"op 'max_pool2d_with_index': the output size {list(out)} must be "
                         f"greater than 0 (input {list(in_hw)}, ksize {ksize}, paddings "
                         f"{paddings}, strides {list(strides)})")
    return ksize, paddings, out


@max_pool2d_with_index.def_infer_shape
def max_pool2d_with_index_shape(x: Meta, *, ksize, strides, paddings, global_pooling, adaptive):
    if len(x.shape) != 4:
        raise ValueError(f"op 'max_pool2d_with_index': the input should be a 4-D tensor, but "
                         f"received {list(x.shape)}")
    _, _, out = _index_pool_geometry(x.shape[2:], ksize, strides, paddings, global_pooling,
                                     adaptive)
    shape = tuple(x.shape[:2]) + out
    return Meta(shape, x.dtype), Meta(shape, VarType.INT32)


@max_pool2d_with_index.def_kernel
def max_pool2d_with_index_kernel(x, *, ksize, strides, paddings, global_pooling, adaptive):
    """Out and Mask (the flat h * W + w input position of each first maximum, int32)."""
    n, c, h, w = x.shape
    ksize, paddings, out = _index_pool_geometry((h, w), ksize, strides, paddings,
                                                global_pooling, adaptive)
    rows, cols = (_axis_windows(size, out[i], ksize[i], strides[i], paddings[i], adaptive, True)
                  for i, size in enumerate((h, w)))
    windows = x[:, :, rows.index[:, :, None, None], cols.index[None, None, :, :]]
    valid = rows.valid[:, :, None, None] & cols.valid[None, None, :, :]   # OH KH OW KW
    lowest = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    windows = np.where(valid, windows, lowest).transpose(0, 1, 2, 4, 3, 5)
    windows = windows.reshape(n, c, out[0], out[1], -1)
    first = windows.argmax(axis=-1)
    kw = cols.index.shape[1]
    h_at = rows.index[np.arange(out[0])[:, None], first // kw]
    w_at = cols.index[np.arange(out[1]), first % kw]
    pooled = np.take_along_axis(windows, first[..., None], axis=-1)[..., 0]
    return pooled, (h_at * w + w_at).astype(np.int32)


@max_pool2d_with_index.def_grad
def max_pool2d_with_index_grad(x, mask, dout):
    n, c, h, w = x.shape
    plane = np.arange(n * c).reshape(n, c, 1, 1) * (h * w)
    dx = np.bincount((plane + mask).ravel(), weights=dout.ravel(), minlength=x.size)
    return dx.reshape(x.shape).astype(x.dtype, copy=False)
