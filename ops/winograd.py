"""Winograd F(2x2, 3x3) and F(4x4, 3x3) for 3x3 convolutions of stride 1 (Lavin & Gray,
2015): each m x m output tile costs (m + 2)^2 products per channel pair instead of 9 m^2, as
(m + 2)^2 matrix products ``U[k] (OC, C) @ V[k] (C, tiles)`` between transforms.

``U = G g G^T`` (the filter transform) depends on the filter alone: callers compute it once
(:func:`transform_filter`) and pass it to every run. The input transform ``V = B^T d B``
reads the (m + 2)^2 input tiles (stride m) from the input's stride-m phases laid out on a
flat grid (see ops/depthwise.py), so every gathered tile value is a long unit-stride run;
both transforms are then two small matrix products each (B^T, A^T along each tile axis),
and the output transform's m^2 phases are written into place. F(4x4) saves more products and
transform work per output, at the price of about 1e-5 relative rounding (F(2x2): 1e-6).
"""
from __future__ import annotations

import numpy as np

from .conv_geometry import ConvGeometry, flat_phases
from .depthwise import unbuffered

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
TILES_PER_PASS = 1024          # grid positions transformed at once (several small images)


def supports(geo: ConvGeometry) -> bool:
    return (geo.kernel == (3, 3) and geo.strides == (1, 1) and geo.dilations == (1, 1)
            and geo.groups == 1)


def work(geo: ConvGeometry, m: int) -> float:
    """F(m x m, 3 x 3)'s products per image over im2col's: fewer per tile, but tiles pad odd
    sizes and the grid carries one garbage column per tile row."""
    th, tw = -(-geo.out_hw[0] // m), -(-geo.out_hw[1] // m)
    return (m + 2) ** 2 * th * (tw + 1) / (9 * geo.positions)


def grid(geo: ConvGeometry, m: int) -> int:
    """Columns of F(m x m)'s products per image: tiles on a grid with one extra column."""
    return -(-geo.out_hw[0] // m) * (-(-geo.out_hw[1] // m) + 1)


def tile_of(transformed: np.ndarray) -> int:
    """The output tile size m of a transformed filter ((m + 2)^2, OC, C)."""
    return {(m + 2) ** 2: m for m in TILES}[transformed.shape[0]]


def transform_filter(w: np.ndarray, m: int = 2) -> np.ndarray:
    """((m + 2)^2, OC, C) ``G g G^T`` of an (OC, C, 3, 3) filter, tile position-major."""
    g = MATRICES[m][0].astype(w.dtype)
    t = m + 2
    u = np.tensordot(w, g, axes=([3], [1]))                    # OC C 3(i) t(b)
    u = np.tensordot(g, u, axes=([1], [2]))                    # t(a) OC C t(b)
    return np.ascontiguousarray(u.transpose(0, 3, 1, 2)).reshape(t * t, *w.shape[:2])


def _both_axes(mat: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``mat`` applied to the two tile axes of (t, t, ...) ``values``: (r, r, ...) for an
    (r, t) ``mat``. Two products with t-long sums do a third of the work of one product by
    ``kron(mat, mat)`` (measured: twice as fast)."""
    t = values.shape[0]
    rows = np.matmul(mat, values.reshape(t, -1)).reshape(mat.shape[0], t, -1)
    return np.matmul(mat, rows)


class Winograd:
    """F(m x m, 3 x 3) for one layer shape; ``forward(x, u)`` takes the transformed filter."""

    channel_last_native = False    # NCHW only: channel-last inputs are transposed

    def __init__(self, geo: ConvGeometry, m: int = 2):
        self.geo, self.m, self.t = geo, m, m + 2
        oh, ow = geo.out_hw
        self.tiles_hw = (-(-oh // m), -(-ow // m))
        th, tw = self.tiles_hw
        self.width = tw + 1                         # grid columns: one garbage column per row
        self.grid = th * self.width
        self.padded_hw = (m * th + m, m * tw + m)
        _, self.bt, self.at = MATRICES[m]     # (t, t) input and (m, t) output transforms

    def _planes(self, x):
        """(m, m, N, C, (th + 2) * width) flat stride-m phases of the padded input (the last
        phase row is all zero: tiles read one row past the plane)."""
        g = self.geo
        return flat_phases(x, g.pads[0], g.pads[2], self.padded_hw, (self.m, self.m),
                           self.width)

    def _transform_input(self, x):
        """V = B^T d B for every tile: (t^2, C, N * grid). The t^2 tile values are gathered
        from the phases (value (k, l) of tile (i, j) is phase (k % m, l % m) at grid position
        (i + k // m, j + l // m)), then transformed by B^T along both tile axes."""
        g, m, t = self.geo, self.m, self.t
        planes = self._planes(x)
        d = np.empty((t, t, g.c, len(x), self.grid), x.dtype)
        gathered = d.transpose(0, 1, 3, 2, 4)             # written through (N, C, grid) views
        with unbuffered():
            for k in range(t):
                for l in range(t):
                    off = (k // m) * self.width + l // m
                    gathered[k, l] = planes[k % m, l % m, :, :, off:off + self.grid]
        return _both_axes(self.bt.astype(x.dtype), d).reshape(t * t, g.c, -1)

    def forward(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The (N, OC, OH, OW) output, a few images at a time (the transformed tiles of a
        whole batch would not stay in cache)."""
        g, m = self.geo, self.m
        th, tw = self.tiles_hw
        out = np.empty((g.n, g.oc, m * th, m * tw), x.dtype)
        step = max(1, TILES_PER_PASS // self.grid)
        for start in range(0, g.n, step):
            self._tiles_into(x[start:start + step], u, out[start:start + step])
        oh, ow = g.out_hw
        if (m * th, m * tw) != (oh, ow):
            out = np.ascontiguousarray(out[:, :, :oh, :ow])
        return out

    def _tiles_into(self, x, u, out):
        g, m, t = self.geo, self.m, self.t
        th, tw = self.tiles_hw
        prods = np.matmul(u, self._transform_input(x))                      # t^2 OC N*grid
        y = _both_axes(self.at.astype(prods.dtype), prods.reshape(t, t, -1))
        y = y.reshape(m, m, g.oc, len(x), th, self.width)[..., :tw]
        phase = out.reshape(len(x), g.oc, th, m, tw, m)
        for r in range(m):
            for s in range(m):
                phase[:, :, :, r, :, s] = y[r, s].transpose(1, 0, 2, 3)
