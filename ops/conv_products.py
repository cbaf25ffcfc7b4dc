"""The matrix products of the im2col-style convolution kernels (ops/conv_kernels.py,
ops/conv_grid.py), per group of channels: filter matrices times window columns, their
transposes for the input gradient, and the filter gradient."""
from __future__ import annotations

import numpy as np

from .small_products import column_block

_K_BLOCK = 4096              # block of the summed axis of a small weight gradient
_LONG = 2048
FEW_ROWS = 64                # channel last: products of at most this many positions


def grouped(w: np.ndarray, groups: int) -> np.ndarray:
    """The (groups, OC/groups, C/groups*KH*KW) filter matrices (2-D for one group)."""
    oc = w.shape[0]
    return w.reshape(oc, -1) if groups == 1 else w.reshape(groups, oc // groups, -1)


def product(wm: np.ndarray, cols: np.ndarray, groups: int, out=None) -> np.ndarray:
    """``wm @ cols`` per group: cols (..., C/g*KK*g, M) -> (..., OC, M). A small filter
    matrix over a long M (LeNet's first layer) runs in blocks of M: twice as fast. A filter
    times a few columns (small maps) runs in blocks of its rows OpenBLAS multiplies without
    first copying them into its packed layout (ops/small_products.py)."""
    if groups == 1 and _small_over_long(wm, cols):
        if out is None:
            out = np.empty((wm.shape[0], cols.shape[1]), np.result_type(wm, cols))
        for start in range(0, cols.shape[1], _K_BLOCK):
            np.matmul(wm, cols[:, start:start + _K_BLOCK], out=out[:, start:start + _K_BLOCK])
        return out
    block = column_block(*wm.shape, cols.shape[1], np.result_type(wm, cols)) if (
        groups == 1 and cols.ndim == 2) else 0
    if block:
        if out is None:
            out = np.empty((wm.shape[0], cols.shape[1]), np.float32)
        for start in range(0, wm.shape[0], block):
            np.matmul(wm[start:start + block], cols, out=out[start:start + block])
        return out
    if groups == 1:
        return np.matmul(wm, cols, out=out)
    lead = cols.shape[:-2]
    m = cols.shape[-1]
    result = np.matmul(wm, cols.reshape(*lead, groups, -1, m),
                       out=None if out is None else out.reshape(*lead, groups, -1, m))
    return result.reshape(*lead, -1, m)


def rows_times_filter(rows: np.ndarray, wm: np.ndarray, out=None,
                      transposed: np.ndarray | None = None) -> np.ndarray:
    """``rows @ wm.T`` for channel-last positions (rows) and a filter matrix (OC, K), or
    ``rows @ transposed`` given the filter's contiguous transpose (K, OC), which OpenBLAS
    runs 5-20% faster than by the transposed view (framework/passes/pointwise_transposed.py).
    A few rows (at most ``FEW_ROWS``): the filter times their transpose, in blocks of its
    rows where that pays (:func:`product`)."""
    few = len(rows) <= FEW_ROWS
    if few and (transposed is None or column_block(*wm.shape, len(rows),
                                                   np.result_type(rows, wm))):
        found = product(wm, np.ascontiguousarray(rows.T), 1).T
    else:
        return np.matmul(rows, wm.T if transposed is None else transposed, out=out)
    if out is None:
        return np.ascontiguousarray(found)
    out[...] = found
    return out


def _small_over_long(wm: np.ndarray, cols: np.ndarray) -> bool:
    return cols.ndim == 2 and wm.size <= 4096 and cols.shape[1] > 2 * _K_BLOCK


def product_t(wm: np.ndarray, d: np.ndarray, groups: int) -> np.ndarray:
    """``wm.T @ d`` per group: d (..., OC, M) -> (..., C/g*KK*g, M)."""
    if groups == 1:
        return np.matmul(wm.T, d)
    lead = d.shape[:-2]
    result = np.matmul(wm.transpose(0, 2, 1), d.reshape(*lead, groups, -1, d.shape[-1]))
    return result.reshape(*lead, -1, d.shape[-1])


def weight_grad(d: np.ndarray, cols: np.ndarray, groups: int, shape) -> np.ndarray:
    """Per group ``d @ cols.T`` for d (OC, M), cols (CKK, M): the filter gradient. A small
    result over a long M (a few filters over few window rows, over a batch of images) is
    summed over blocks of M: OpenBLAS runs such products at a quarter of the speed in one
    call."""
    if (groups == 1 and cols.shape[0] <= 64 and d.shape[0] * cols.shape[0] <= 4096
            and d.shape[1] > 2 * _K_BLOCK):
        total = d[:, :_K_BLOCK] @ cols[:, :_K_BLOCK].T
        for start in range(_K_BLOCK, d.shape[1], _K_BLOCK):
            total += d[:, start:start + _K_BLOCK] @ cols[:, start:start + _K_BLOCK].T
        return total.reshape(shape)
    if groups == 1 and d.shape[1] >= _LONG and cols.shape[0] > d.shape[0]:
        # fewer filters than window rows over a long M: OpenBLAS runs the transposed
        # product up to twice as fast (measured from M = 2048 on)
        return np.ascontiguousarray((cols @ d.T).T).reshape(shape)
    if groups == 1:
        return (d @ cols.T).reshape(shape)
    m = d.shape[-1]
    return np.matmul(d.reshape(groups, -1, m),
                     cols.reshape(groups, -1, m).transpose(0, 2, 1)).reshape(shape)
