"""Winograd F(2x2, 3x3) and F(4x4, 3x3) for 3x3 convolutions of stride 1 (Lavin & Gray,
2015): each m x m output tile costs (m + 2)^2 products per channel pair instead of 9 m^2, as
(m + 2)^2 matrix products ``V[k] (tiles, C) @ U[k] (C, OC)`` between transforms.

``U = G g G^T`` (the filter transform) depends on the filter alone: callers compute it once
(:func:`transform_filter`, laid out (t^2, C, OC)) and pass it to every run. The tiles are
read channel last: the input is copied once into a zero-padded NHWC array, where value (k, l)
of every tile is one strided view whose inner run is the C channels, so one copy gathers
them all, with no tile wasted (a flat grid of NCHW planes, the earlier layout, carried one
garbage tile per tile row: a third of the products on 4 x 4 maps). Both transforms are two
small matrix products each (B^T, A^T along each tile axis), and the output transform's m^2
phases are written into place, NCHW or NHWC. Measured against the flat grid, filters in
cache: 8 x 256 x 4 x 4 2.3 -> 1.4 ms; 8 x 64 x 16 x 16, F(4x4), 1.6 -> 1.0 ms; 8 x 64 x 56 x
56 22 -> 12 ms. F(4x4) saves more products and transform work per output, at the price of
about 1e-5 relative rounding (F(2x2): 1e-6).
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .conv_geometry import ConvGeometry, column_phases

# Lavin & Gray's matrices for output tiles of m = 2 and m = 4 (input tiles of m + 2).
MATRICES = {
    2: (np.array([[1, 0, 0], [1 / 2, 1 / 2, 1 / 2], [1 / 2, -1 / 2, 1 / 2], [0, 0, 1]]),
        np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]])),
    4: (np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
                  [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]]),
        np.array([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
                  [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]]),
        np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0],
                  [0, 1, -1, 8, -8, 1]])),
}
TILES = tuple(MATRICES)       # the output tile sizes m supported
ROWS_PER_PASS = 128            # tiles transformed at once (several small images; measured:
# 8 x 256 x 14 x 14 in one pass 10.9 ms, image by image 14.3; 8 x 64 x 56 x 56, 196 tiles
# an image, image by image 12.1 ms, in one pass 23.6)


def supports(geo: ConvGeometry) -> bool:
    return (geo.kernel == (3, 3) and geo.strides == (1, 1) and geo.dilations == (1, 1)
            and geo.groups == 1)


def tiles(geo: ConvGeometry, m: int) -> int:
    """Output tiles of F(m x m) per image (the product rows)."""
    return -(-geo.out_hw[0] // m) * -(-geo.out_hw[1] // m)


def work(geo: ConvGeometry, m: int) -> float:
    """F(m x m, 3 x 3)'s products per image over im2col's: fewer per tile, but tiles pad
    sizes that are not a multiple of m."""
    return (m + 2) ** 2 * tiles(geo, m) / (9 * geo.positions)


def tile_of(transformed: np.ndarray) -> int:
    """The output tile size m of a transformed filter ((m + 2)^2, C, OC)."""
    return {(m + 2) ** 2: m for m in TILES}[transformed.shape[0]]


def transform_filter(w: np.ndarray, m: int = 2) -> np.ndarray:
    """((m + 2)^2, C, OC) ``G g G^T`` of an (OC, C, 3, 3) filter, tile position-major."""
    g = MATRICES[m][0].astype(w.dtype)
    t = m + 2
    u = np.tensordot(w, g, axes=([3], [1]))                    # OC C 3(i) t(b)
    u = np.tensordot(g, u, axes=([1], [2]))                    # t(a) OC C t(b)
    return np.ascontiguousarray(u.transpose(0, 3, 2, 1)).reshape(t * t, w.shape[1], w.shape[0])


def _both_axes(mat: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``mat`` applied to the two tile axes of (t, t, ...) ``values``: (r, r, ...) for an
    (r, t) ``mat``. Two products with t-long sums do a third of the work of one product by
    ``kron(mat, mat)`` (measured: twice as fast)."""
    t = values.shape[0]
    rows = np.matmul(mat, values.reshape(t, -1)).reshape(mat.shape[0], t, -1)
    return np.matmul(mat, rows)


class Winograd:
    """F(m x m, 3 x 3) for one layer shape; ``forward(x, u)`` takes the transformed filter.
    Reads and writes NCHW (``forward``) or NHWC (``forward_channel_last``)."""

    channel_last_native = True

    def __init__(self, geo: ConvGeometry, m: int = 2):
        self.geo, self.m, self.t = geo, m, m + 2
        oh, ow = geo.out_hw
        self.tiles_hw = th, tw = -(-oh // m), -(-ow // m)
        self.padded_hw = (m * th + 2, m * tw + 2)
        _, self.bt, self.at = MATRICES[m]     # (t, t) input and (m, t) output transforms
        self.step = max(1, -(-ROWS_PER_PASS // (th * tw)))          # images per pass

    def _tiles(self, x, u, channel_last: bool) -> np.ndarray:
        """(m, m, N, TH, TW, OC) output tiles of the NCHW or NHWC images ``x``."""
        g, m, t = self.geo, self.m, self.t
        th, tw = self.tiles_hw
        nhwc = x if channel_last else x.transpose(0, 2, 3, 1)
        xp = column_phases(nhwc, g.pads[0], g.pads[2], *self.padded_hw, 1)[0]
        sn, sr, sc, sk = xp.strides
        d = np.empty((t, t, len(x), th, tw, g.c), x.dtype)
        np.copyto(d, as_strided(xp, d.shape, (sr, sc, sn, sr * m, sc * m, sk),
                                writeable=False))
        v = _both_axes(self.bt.astype(x.dtype), d.reshape(t, t, -1)).reshape(t * t, -1, g.c)
        prods = np.matmul(v, u)                                     # t^2, tiles, OC
        y = _both_axes(self.at.astype(prods.dtype), prods.reshape(t, t, -1))
        return y.reshape(m, m, len(x), th, tw, g.oc)

    def forward(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The (N, OC, OH, OW) output, a few images at a time."""
        g, m = self.geo, self.m
        th, tw = self.tiles_hw
        out = np.empty((g.n, g.oc, th, m, tw, m), x.dtype)
        for start in range(0, g.n, self.step):
            y = self._tiles(x[start:start + self.step], u, False)
            np.copyto(out[start:start + self.step], y.transpose(2, 5, 3, 0, 4, 1))
        oh, ow = g.out_hw
        out = out.reshape(g.n, g.oc, m * th, m * tw)
        return out if (m * th, m * tw) == (oh, ow) else np.ascontiguousarray(
            out[:, :, :oh, :ow])

    def forward_channel_last(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """NHWC ``x`` -> the (N, OH, OW, OC) output."""
        g, m = self.geo, self.m
        th, tw = self.tiles_hw
        out = np.empty((g.n, th, m, tw, m, g.oc), x.dtype)
        for start in range(0, g.n, self.step):
            y = self._tiles(x[start:start + self.step], u, True)
            np.copyto(out[start:start + self.step], y.transpose(2, 3, 0, 4, 1, 5))
        oh, ow = g.out_hw
        out = out.reshape(g.n, m * th, m * tw, g.oc)
        return out if (m * th, m * tw) == (oh, ow) else np.ascontiguousarray(
            out[:, :oh, :ow])
