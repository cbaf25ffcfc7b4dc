"""Helpers shared by op declarations: broadcasting with Paddle's ``axis`` and shape rules."""
from __future__ import annotations

import numpy as np

from .types import Meta


def align_shapes(x_shape: tuple, y_shape: tuple, axis: int) -> tuple[tuple, tuple]:
    """Paddle's elementwise ``axis`` rule as shapes NumPy broadcasting can use: the dims of the
    lower-rank operand line up with the other's starting at ``axis``; -1 (and any negative
    axis, counted from the end) aligns right, as NumPy does."""
    x_shape, y_shape = tuple(x_shape), tuple(y_shape)
    if axis == -1 or len(x_shape) == len(y_shape):
        return x_shape, y_shape
    big, small = (x_shape, y_shape) if len(x_shape) > len(y_shape) else (y_shape, x_shape)
    start = len(big) - len(small) + axis + 1 if axis < 0 else axis
    if not 0 <= start <= len(big) - len(small):
        raise ValueError(f"axis {axis} cannot align a {len(small)}-D operand {list(small)} with "
                         f"a {len(big)}-D one {list(big)}: axis must be in "
                         f"[-1, {len(big) - len(small)}]")
    aligned = small + (1,) * (len(big) - len(small) - start)
    return (x_shape, aligned) if len(x_shape) > len(y_shape) else (aligned, y_shape)


def broadcast_pair(x: np.ndarray, y: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` reshaped (views) so that NumPy broadcasting follows Paddle's ``axis``."""
    if axis == -1 or x.ndim == y.ndim:
        return x, y
    xs, ys = align_shapes(x.shape, y.shape, axis)
    return x.reshape(xs), y.reshape(ys)


def broadcast_shape(a: tuple, b: tuple) -> tuple:
    """NumPy broadcasting of two static shapes, where -1 means unknown."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (p, q) in enumerate(zip(a, b)):
        if p == q or q == 1:
            out.append(p)
        elif p == 1:
            out.append(q)
        elif p == -1 or q == -1:
            out.append(max(p, q) if min(p, q) == -1 and max(p, q) != 1 else -1)
        else:
            raise ValueError(f"shapes {list(a)} and {list(b)} cannot broadcast (dim {i}: {p} vs {q})")
    return tuple(out)


def elementwise_shape(x: Meta, y: Meta, *, axis: int = -1, dtype=None) -> Meta:
    shape = broadcast_shape(*align_shapes(x.shape, y.shape, axis))
    if x.dtype != y.dtype:
        raise TypeError(f"X is {x.dtype.name_str} but Y is {y.dtype.name_str}; cast one of them "
                        "so that both have the same dtype")
    return Meta(shape, dtype if dtype is not None else x.dtype)


def normalize_axis(axis: int, ndim: int) -> int:
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ValueError(f"axis {axis} is out of range for a {ndim}-D tensor")
    return axis + ndim if axis < 0 else axis


def runtime_ints(tensor, tensor_list, attr) -> list[int]:
    """An int-list attribute, or its value from the tensor / tensor-list input when given."""
    if tensor is not None:
        return [int(v) for v in np.ravel(tensor)]
    if tensor_list:
        return [int(np.ravel(t)[0]) for t in tensor_list]
    return list(attr)


def reduce_axes(ndim: int, dim, reduce_all: bool) -> tuple | None:
    """Paddle's reduce attrs -> NumPy axes (None = all)."""
    if reduce_all or dim is None or len(dim) == 0 or len(dim) >= ndim and ndim > 0 and \
            sorted(normalize_axis(d, ndim) for d in dim) == list(range(ndim)):
        return None
    return tuple(sorted(normalize_axis(d, ndim) for d in dim))


def reduced_shape(shape: tuple, axes: tuple | None, keep_dim: bool) -> tuple:
    if axes is None:
        return (1,) * len(shape) if keep_dim else ()
    if keep_dim:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def fits_into_x(x, y, axis: int) -> bool:
    """Whether a binary elementwise result of ``x`` and ``y`` (Paddle's ``axis``) has x's shape
    and dtype and NumPy's alignment, so ``ufunc(x, y, out=x)`` computes it in x's buffer."""
    if type(x) is not np.ndarray or not x.ndim or getattr(y, "dtype", None) != x.dtype:
        return False
    xs, ys = x.shape, y.shape
    if len(ys) > len(xs) or not (axis == -1 or axis + len(ys) == len(xs) or len(ys) == len(xs)):
        return False
    return ys == xs[len(xs) - len(ys):] or np.broadcast_shapes(xs, ys) == xs


_SHORT_AXIS = 64


def axis_reduce(x: np.ndarray, ufunc: np.ufunc, axis: int) -> np.ndarray:
    """``ufunc.reduce(x, axis, keepdims=True)``, fast for a short last axis of a 2-D array
    (softmax over 10 classes): NumPy reduces a short inner axis row by row (~13 us for
    256 x 10), but a contiguous transpose reduces whole rows at once (~3 us)."""
    if x.ndim == 2 and axis == 1 and x.shape[1] <= _SHORT_AXIS < x.shape[0]:
        return ufunc.reduce(np.ascontiguousarray(x.T), axis=0)[:, None]
    return ufunc.reduce(x, axis=axis, keepdims=True)
