"""The shape facts of one 2-D convolution, and the input layouts its kernels read: a zero
border added once (:func:`padded`), and the padded input split into its stride phases, each
plane flat (:func:`flat_phases`), so that every kernel tap reads unit-stride runs."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class ConvGeometry(NamedTuple):
    """An NCHW input (n, c, h, w) convolved with an (oc, c/groups, kh, kw) filter."""

    n: int
    c: int
    h: int
    w: int
    oc: int
    kh: int
    kw: int
    groups: int
    strides: tuple
    dilations: tuple
    pads: tuple          # top, bottom, left, right
    out_hw: tuple

    @property
    def positions(self) -> int:
        """Output positions per image (OH * OW)."""
        return self.out_hw[0] * self.out_hw[1]

    @property
    def extent(self) -> tuple:
        """Rows and columns of the padded input the windows reach."""
        return tuple((self.out_hw[i] - 1) * self.strides[i]
                     + (self.kernel[i] - 1) * self.dilations[i] + 1 for i in range(2))

    @property
    def kernel(self) -> tuple:
        return self.kh, self.kw

    @property
    def pointwise(self) -> bool:
        """A 1x1 filter without padding: a plain product of the (strided) input."""
        return self.kh == self.kw == 1 and not any(self.pads)


def padded(x: np.ndarray, top: int, left: int, rows: int, cols: int) -> np.ndarray:
    """NCHW ``x`` placed at (top, left) of a zero (N, C, rows, cols) array (rows/columns of
    ``x`` beyond it are left out); ``x`` itself when that is all of it."""
    n, c, h, w = x.shape
    h_in, w_in = max(min(h, rows - top), 0), max(min(w, cols - left), 0)
    if (top, left, h_in, w_in) == (0, 0, rows, cols) and h == rows and w == cols:
        return x
    out = np.empty((n, c, rows, cols), x.dtype)
    if top:
        out[:, :, :top] = 0
    if top + h_in < rows:
        out[:, :, top + h_in:] = 0
    if left:
        out[:, :, top:top + h_in, :left] = 0
    if left + w_in < cols:
        out[:, :, top:top + h_in, left + w_in:] = 0
    out[:, :, top:top + h_in, left:left + w_in] = x[:, :, :h_in, :w_in]
    return out


def column_phases(x: np.ndarray, top: int, left: int, rows: int, cols: int,
                  stride: int) -> list[np.ndarray]:
    """The NHWC ``x`` placed at (top, left) of a zero (N, rows, cols, C) array, split into its
    ``stride`` column phases, each contiguous (N, rows, cols / stride, C): phase s holds the
    padded columns s, s + stride, ... (``x`` itself when nothing is to be added or split)."""
    n, h, w, c = x.shape
    h_in = max(min(h, rows - top), 0)
    if (stride, top, left, h_in, rows, cols) == (1, 0, 0, h, h, w) and x.flags.c_contiguous:
        return [x]
    found = []
    for s in range(stride):
        b0, b1, z0 = _phase_span(w, left, s, stride, cols // stride)
        plane = np.zeros((n, rows, cols // stride, c), x.dtype)
        if b1 > b0 and h_in:
            copy_channel_last(x[:, :h_in, z0:z0 + (b1 - b0 - 1) * stride + 1:stride],
                              plane[:, top:top + h_in, b0:b1])
        found.append(plane)
    return found


def copy_channel_last(x: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = x`` for NHWC arrays; when ``x`` is a transposed view of NCHW memory (a
    channel-last region's entry), a block of channels at a time (:func:`to_channel_last`)."""
    if x.strides[3] > x.strides[2] and x.shape[3] > 1:
        to_channel_last(x.transpose(0, 3, 1, 2), out)
    else:
        out[...] = x


def _phase_span(size: int, before: int, phase: int, stride: int, length: int) -> tuple:
    """Of a phase's ``length`` positions (padded position ``phase + k * stride``), the range
    [k0, k1) holding input values, and the input position at k0."""
    k0 = max(0, -(-(before - phase) // stride))
    k1 = min(length, -(-(before + size - phase) // stride))
    return k0, max(k0, k1), phase + k0 * stride - before


def flat_phases(x: np.ndarray, top: int, left: int, padded_hw: tuple, strides: tuple,
                slack: int = 0, channel_last: bool = False, fill=0) -> np.ndarray:
    """The NCHW ``x`` padded with ``fill`` (``padded_hw``, ``x`` at (top, left)) split into
    its stride phases, each image plane flat with ``slack`` fills after it, in one pass:
    (sh, sw, N, C, plane + slack), or (sh, sw, N, plane + slack, C) ``channel_last``. Phase
    (r, s) holds padded positions (r + a * sh, s + b * sw), row-major over (a, b)."""
    (sh, sw), (n, c, h, w) = strides, x.shape
    hq, wq = padded_hw[0] // sh, padded_hw[1] // sw
    size = hq * wq
    shape = (sh, sw, n, size + slack, c) if channel_last else (sh, sw, n, c, size + slack)
    out = np.zeros(shape, x.dtype) if fill == 0 else np.full(shape, fill, x.dtype)
    for r in range(sh):
        a0, a1, y0 = _phase_span(h, top, r, sh, hq)
        for s in range(sw):
            b0, b1, z0 = _phase_span(w, left, s, sw, wq)
            if a1 == a0 or b1 == b0:
                continue
            part = x[:, :, y0:y0 + (a1 - a0 - 1) * sh + 1:sh, z0:z0 + (b1 - b0 - 1) * sw + 1:sw]
            if channel_last:
                plane = out[r, s, :, :size].reshape(n, hq, wq, c)
                to_channel_last(part, plane[:, a0:a1, b0:b1])
            else:
                plane = out[r, s, :, :, :size].reshape(n, c, hq, wq)
                plane[:, :, a0:a1, b0:b1] = part
    return out


def to_channel_last(x: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = x.transpose(0, 2, 3, 1)`` for NCHW ``x``, a few channels at a time.
    Read whole, the transpose reads one value per channel plane in turn: planes a multiple of
    4 KiB apart map to the same cache sets and evict each other (8 x 96 x 32 x 32: 2.2 ms;
    in blocks of 8 channels 0.47 ms)."""
    n, c, h, w = x.shape
    plane_bytes = x.strides[1]
    if h * w < 64 or c <= 8:
        out[...] = x.transpose(0, 2, 3, 1)
        return
    block = 8 if plane_bytes % 4096 == 0 else 16
    for start in range(0, c, block):
        out[..., start:start + block] = x[:, start:start + block].transpose(0, 2, 3, 1)


def tap_slices(geo: ConvGeometry) -> list[tuple]:
    """Per kernel tap (i, j): (i, j, phase row, phase column, first row, first column) of its
    window in :func:`phases` of the padded input."""
    (sh, sw), (dh, dw) = geo.strides, geo.dilations
    found = []
    for i in range(geo.kh):
        for j in range(geo.kw):
            r0, c0 = i * dh, j * dw
            found.append((i, j, r0 % sh, c0 % sw, r0 // sh, c0 // sw))
    return found
