"""Products with a few rows or columns, in blocks OpenBLAS multiplies unpacked.

OpenBLAS copies a weight into its packed layout before a product, except where its
small-matrix kernels take over, which read the weight in place: products of at most about a
million multiply-adds with at most about a thousand output values (measured on the
development machine: 983,040 multiply-adds run 4x faster than 1,024,000; blocks of 128 rows
by 8 run twice as fast as blocks of 192). For a few rows the copy costs more than the
product, so a large weight runs as equal blocks of its rows that stay under both bounds: fc
on a small batch (ops/fused.py, ``fc_transposed``). Measured, weights out of cache: 8 x 1280
by 1280 x 1000, 0.69 -> 0.47 ms.

A filter matrix times a few columns (:func:`column_block`, the positions of a small map in
ops/conv_products.py) runs as blocks of the filter's rows, each under the first bound only
(the second does not hold back products of untransposed operands).
"""
from __future__ import annotations

import numpy as np

SMALL_PRODUCT = 1_000_000    # multiply-adds of one product OpenBLAS runs unpacked ...
SMALL_OUTPUT = 1024          # ... while it writes at most this many values
# where blocks pay (measured): 2 to 16 rows (32 rows by a 512 x 2048 weight: 1.15 ms packed,
# 1.29 in blocks, in a network), blocks of 16 weight rows or more, and weight rows of 512
# values or more (256: no gain; 128, by blocks of 16 rows for 64 rows: half the speed)
MAX_ROWS, MIN_BLOCK, MIN_DEPTH = 16, 16, 512
MAX_COLUMNS = 64             # a filter times at most this many columns runs in row blocks


def small_block(rows: int, k: int, m: int, dtype) -> int:
    """Weight rows per block for (rows, k) @ (k, m) in float32 (0: one product). A single
    row is a matrix-vector product, which reads the weight in place already."""
    block = min(SMALL_PRODUCT // max(1, rows * k), SMALL_OUTPUT // max(1, rows))
    if (not 2 <= rows <= MAX_ROWS or k < MIN_DEPTH or block < MIN_BLOCK or block >= m
            or dtype != np.float32):
        return 0
    return -(-m // -(-m // block))            # equal blocks


def rows_times_transposed(x2: np.ndarray, wt: np.ndarray) -> np.ndarray:
    """``x2 @ wt.T`` for x2 (B, K) and a contiguous wt (M, K)."""
    m = wt.shape[0]
    block = small_block(*x2.shape, m, np.result_type(x2, wt))
    if not block:
        return x2 @ wt.T
    out = np.empty((len(x2), m), np.float32)
    for start in range(0, m, block):
        np.matmul(x2, wt[start:start + block].T, out=out[:, start:start + block])
    return out


def column_block(m: int, k: int, columns: int, dtype) -> int:
    """Weight rows per block for float32 (m, k) @ (k, columns), few columns (0: one
    product). Measured with the weights out of cache: 1024 x 256 by 16, 0.24 -> 0.17 ms;
    256 x 2304 by 16, 0.36 -> 0.24 ms; 1280 x 320 by 49, 0.62 -> 0.55 ms; no gain from 256
    columns on."""
    if columns > MAX_COLUMNS or m * k * columns <= SMALL_PRODUCT or dtype != np.float32:
        return 0
    block = SMALL_PRODUCT // (k * columns)
    return -(-m // -(-m // block)) if block >= MIN_BLOCK else 0
