"""Linear algebra ops: mul (Fluid's flatten-to-2-D matmul), matmul_v2, bmm and p_norm
(einsum has its own module)."""
from __future__ import annotations

import math

import numpy as np

from .common import normalize_axis
from .registry import register_op, unbroadcast
from .types import Meta

# -- mul: flatten to 2-D, then matmul ---------------------------------------------------------------
mul = register_op("mul", inputs=["X", "Y"], outputs=["Out"],
                  attrs={"x_num_col_dims": 1, "y_num_col_dims": 1}, fresh_outputs=True)


def _flat2(shape, k):
    rows = int(np.prod(shape[:k])) if -1 not in shape[:k] else -1
    cols = int(np.prod(shape[k:])) if -1 not in shape[k:] else -1
    return rows, cols


@mul.def_infer_shape
def mul_shape(x: Meta, y: Meta, *, x_num_col_dims, y_num_col_dims):
    xr, xc = _flat2(x.shape, x_num_col_dims)
    yr, yc = _flat2(y.shape, y_num_col_dims)
    if -1 not in (xc, yr) and xc != yr:
        raise ValueError(f"X flattens to [{xr}, {xc}] and Y to [{yr}, {yc}]: X's width {xc} "
                         f"must equal Y's height {yr}")
    return Meta(tuple(x.shape[:x_num_col_dims]) + tuple(y.shape[y_num_col_dims:]), x.dtype)


@mul.def_kernel
def mul_kernel(x, y, *, x_num_col_dims, y_num_col_dims):
    if x.ndim == 2 and y.ndim == 2:
        return x @ y
    x2 = x.reshape(math.prod(x.shape[:x_num_col_dims]), -1)
    y2 = y.reshape(math.prod(y.shape[:y_num_col_dims]), -1)
    return (x2 @ y2).reshape(x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:])


@mul.def_grad(exact=True, never_raises=True)
def mul_grad(x, y, dout, *, x_num_col_dims, y_num_col_dims, wanted=(True, True)):
    if x.ndim == 2 and y.ndim == 2:
        x2, y2, d2 = x, y, dout
    else:
        x2 = x.reshape(math.prod(x.shape[:x_num_col_dims]), -1)
        y2 = y.reshape(math.prod(y.shape[:y_num_col_dims]), -1)
        d2 = dout.reshape(x2.shape[0], y2.shape[1])
    dx = (d2 @ y2.T).reshape(x.shape) if wanted[0] else None
    dy = (x2.T @ d2).reshape(y.shape) if wanted[1] else None
    return dx, dy


# -- matmul_v2 --------------------------------------------------------------------------------------
matmul_v2 = register_op("matmul_v2", inputs=["X", "Y"], outputs=["Out"],
                        attrs={"trans_x": False, "trans_y": False}, fresh_outputs=True)


@matmul_v2.def_infer_shape
def matmul_v2_shape(x: Meta, y: Meta, *, trans_x, trans_y):
    from .common import broadcast_shape
    xs, ys = list(x.shape), list(y.shape)
    if not xs or not ys:
        raise ValueError("matmul_v2 needs X and Y of rank >= 1")
    x_vec, y_vec = len(xs) == 1, len(ys) == 1
    if x_vec:
        xs = [1] + xs
    elif trans_x:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if y_vec:
        ys = ys + [1]
    elif trans_y:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    if -1 not in (xs[-1], ys[-2]) and xs[-1] != ys[-2]:
        raise ValueError(f"X's last dim {xs[-1]} must equal Y's second-to-last dim {ys[-2]} "
                         f"(X {list(x.shape)}, Y {list(y.shape)}, trans_x={trans_x}, trans_y={trans_y})")
    batch = broadcast_shape(tuple(xs[:-2]), tuple(ys[:-2]))
    out = list(batch) + ([] if x_vec else [xs[-2]]) + ([] if y_vec else [ys[-1]])
    return Meta(tuple(out), x.dtype)


def _t(a):
    return a.swapaxes(-1, -2) if a.ndim >= 2 else a


@matmul_v2.def_kernel
def matmul_v2_kernel(x, y, *, trans_x, trans_y):
    return np.matmul(_t(x) if trans_x else x, _t(y) if trans_y else y)


@matmul_v2.def_specialize
def matmul_v2_fast(*, trans_x, trans_y):
    return np.matmul if not trans_x and not trans_y else None


@matmul_v2.def_grad(never_raises=True)
def matmul_v2_grad(x, y, dout, *, trans_x, trans_y, wanted=(True, True)):
    # 1-D operands ignore trans_* (as in the forward) and act as a row / a column.
    a = _t(x) if trans_x and x.ndim >= 2 else x
    b = _t(y) if trans_y and y.ndim >= 2 else y
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    d = dout.reshape(batch + (a2.shape[-2], b2.shape[-1]))
    dx = dy = None
    if wanted[0]:
        da = unbroadcast(np.matmul(d, _t(b2)), a2.shape).reshape(a.shape)
        dx = _t(da) if trans_x and x.ndim >= 2 else da
    if wanted[1]:
        db = unbroadcast(np.matmul(_t(a2), d), b2.shape).reshape(b.shape)
        dy = _t(db) if trans_y and y.ndim >= 2 else db
    return dx, dy


# -- p_norm (paddle.nn.functional.normalize, paddle.linalg.norm) -----------------------------------
p_norm = register_op("p_norm", inputs=["X"], outputs=["Out"],
                     attrs={"porder": 2.0, "axis": -1, "epsilon": 1e-12, "keepdim": False,
                            "asvector": False})


def _norm_axes(ndim: int, axis: int, asvector: bool) -> tuple | None:
    return None if asvector or ndim == 0 else (normalize_axis(axis, ndim),)


@p_norm.def_infer_shape
def p_norm_shape(x: Meta, *, axis, keepdim, asvector, **_):
    axes = _norm_axes(len(x.shape), axis, asvector)
    if axes is None:
        return Meta((1,) * len(x.shape) if keepdim else (), x.dtype)
    return Meta(tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keepdim else
                tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)


@p_norm.def_kernel
def p_norm_kernel(x, *, porder, axis, keepdim, asvector):
    axes, magnitude = _norm_axes(x.ndim, axis, asvector), np.abs(x)
    if porder == 0:
        out = np.count_nonzero(x, axis=axes, keepdims=keepdim)
    elif np.isinf(porder):
        out = (np.max if porder > 0 else np.min)(magnitude, axis=axes, keepdims=keepdim)
    else:
        p = x.dtype.type(porder)
        out = np.power(np.sum(np.power(magnitude, p), axis=axes, keepdims=keepdim), 1 / p)
    return np.asarray(out, dtype=x.dtype)


@p_norm.def_grad
def p_norm_grad(x, out, dout, *, porder, axis, epsilon, keepdim, asvector):
    axes = _norm_axes(x.ndim, axis, asvector)
    if not keepdim:
        kept = tuple(1 if axes is None or i in axes else d for i, d in enumerate(x.shape))
        out, dout = out.reshape(kept), dout.reshape(kept)
    if porder == 0:
        return np.zeros_like(x)
    if np.isinf(porder):
        return np.sign(x) * (np.abs(x) == out) * dout
    p = x.dtype.type(porder)
    scale = dout / np.maximum(np.power(out, p - 1), x.dtype.type(epsilon))
    return np.sign(x) * np.power(np.abs(x), p - 1) * scale


# -- bmm: batched matmul of two 3-D tensors with the same batch ------------------------------------
bmm = register_op("bmm", inputs=["X", "Y"], outputs=["Out"], fresh_outputs=True)


@bmm.def_infer_shape
def bmm_shape(x: Meta, y: Meta):
    for slot, m in (("X", x), ("Y", y)):
        if len(m.shape) != 3:
            raise ValueError(f"bmm: Input({slot}) must be 3-dimensional, but received {slot}'s "
                             f"shape: {list(m.shape)}")
    if -1 not in (x.shape[0], y.shape[0]) and x.shape[0] != y.shape[0]:
        raise ValueError(f"bmm: the batch size of Input(X) {x.shape[0]} must equal that of "
                         f"Input(Y) {y.shape[0]} (X {list(x.shape)}, Y {list(y.shape)})")
    if -1 not in (x.shape[2], y.shape[1]) and x.shape[2] != y.shape[1]:
        raise ValueError(f"bmm: Input(X)'s width {x.shape[2]} must equal Input(Y)'s height "
                         f"{y.shape[1]} (X {list(x.shape)}, Y {list(y.shape)})")
    return Meta((x.shape[0], x.shape[1], y.shape[2]), x.dtype)


@bmm.def_kernel
def bmm_kernel(x, y):
    return np.matmul(x, y)


@bmm.def_grad(exact=True, never_raises=True)
def bmm_grad(x, y, dout, *, wanted=(True, True)):
    dx = np.matmul(dout, y.swapaxes(1, 2)) if wanted[0] else None
    dy = np.matmul(x.swapaxes(1, 2), dout) if wanted[1] else None
    return dx, dy
