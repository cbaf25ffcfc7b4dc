"""Linear algebra (``paddle.tensor.linalg``): ``matmul``, ``bmm`` and ``norm``."""
from __future__ import annotations

from typing import Any

from .._dispatch import apply_op, layer_op
from .math import _axes, sqrt, square, sum as total


def matmul(x, y, transpose_x: bool = False, transpose_y: bool = False, name: str | None = None):
    return apply_op("matmul_v2", {"X": x, "Y": y},
                    {"trans_x": transpose_x, "trans_y": transpose_y}, name=name)


def norm(x, p: Any = "fro", axis: Any = None, keepdim: bool = False, name: str | None = None):
    """Vector p-norm along one axis (op ``p_norm``), or the Frobenius / 2-norm of all of x."""
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if axis is None or p == "fro":
        if p not in ("fro", 2, 2.0) or (axis is not None and len(_axes(axis)) != 2):
            raise NotImplementedError(f"paddle.linalg.norm: p={p!r} with axis={axis!r} is not "
                                      "supported by pyfluid; give one axis for a vector norm")
        return sqrt(total(square(x), axis, keepdim=keepdim))
    attrs = {"porder": float(p), "axis": int(axis), "epsilon": 1e-12, "keepdim": keepdim,
             "asvector": False}
    return layer_op("p_norm", "p_norm", {"X": x}, attrs, name=name)[0]


def bmm(x, y, name: str | None = None):
    """Batched matmul of [B, M, K] and [B, K, N] tensors (op ``bmm``)."""
    xs, ys = list(x.shape), list(y.shape)
    if not len(xs) == len(ys) == 3:
        raise ValueError(f"x and y should be 3-dimensional. But received x's dimention: {xs}, "
                         f"y's dimention: {ys}")
    if xs[2] != -1 and ys[1] != -1 and xs[2] != ys[1]:
        raise ValueError(f"x's width must be equal with y's height. But received x's shape: "
                         f"{xs}, y's shape: {ys}")
    if xs[0] != -1 and ys[0] != -1 and xs[0] != ys[0]:
        raise ValueError(f"x's batch (shape[0]) must be equal with y's batch (shape[0]). But "
                         f"received x's shape: {xs}, y's shape: {ys}")
    return layer_op("bmm", "bmm", {"X": x, "Y": y}, name=name)[0]
