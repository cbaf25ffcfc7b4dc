"""Direct (shift-and-multiply-add) convolution for depthwise and small-group filters, where
im2col would copy the input KH*KW times only to feed products too small for BLAS.

Every kernel tap is one multiply-add of a shifted input window into the output. Windows are
read on a flat grid: each image plane (padded, and for strided filters split into its stride
phases) is laid out as one run of ``rows * width`` positions, and the window of tap (i, j) is
the run starting at position ``i * width + j``; output positions sit on the same grid
(``width`` columns per row, the few columns past the output width are dropped at the end).
Planes are channel-major (N, C, positions) when an image row of the grid is long, so every
multiply-add runs over long unit-stride rows, and channel-last (N, positions, C) when planes
are small and channels many (late layers), so that the channels make the long rows.

NumPy buffers 2-D operands whose rows are shorter than its ufunc buffer (8192 values) to
merge them into longer loops; for rows of a few hundred values that copy costs more than it
saves, so the taps run with a small ufunc buffer (:func:`unbuffered`).

NHWC inputs with one filter per channel (:meth:`Direct.forward_channel_last`, the inference
pass framework/passes/channel_last.py) skip the taps: one ``einsum`` sums them all in one pass
with the channels (and output columns) as its inner loop.
"""
from __future__ import annotations

import functools
from contextlib import nullcontext

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .conv_geometry import ConvGeometry, column_phases, flat_phases, tap_slices

LONG_ROWS = 400     # grid positions per plane from which channel-major planes pay
ACCUMULATOR_VALUES = 1 << 19      # images accumulated at once: about 2 MiB of float32
RUN_VALUES = 1 << 14              # values per multiplied row, channel last (see Direct)
# channel last and strided: per column phase (each phase's taps over runs of OW * C values)
# where channel rows are short and the input stays in cache (a batch of up to 8 MiB, fresh
# from the layer before); else one einsum over the strided windows (its inner loop C values
# long). Measured: 8 x 96 x 32 x 32 0.78 -> 0.62 ms phased; 1 x 96 x 112 x 112 1.04 -> 0.86
# ms phased, but 8 x 96 x 112 x 112 9.4 -> 11.0; 8 x 144 x 56 x 56 3.9 -> 6.3 ms phased
PHASED_WIDTH, PHASED_CHANNELS, PHASED_VALUES = 8, 128, 1 << 21
CHANNEL_LAST_IMAGE = 1 << 18      # input values of an image from which images run one by one


@functools.lru_cache(maxsize=512)
def run_rows(rows: int, width: int) -> int:
    """The most rows of ``width`` values, a divisor of ``rows``, that make one run of at most
    ``RUN_VALUES`` values (1 if a row alone is longer)."""
    return max((k for k in range(1, min(rows, RUN_VALUES // max(1, width)) + 1)
                if rows % k == 0), default=1)


class unbuffered:
    """Within the block, ufuncs loop over each row of their operands without first copying
    rows into a buffer (``np.setbufsize``, restored on exit; NumPy keeps it per context)."""

    __slots__ = ("old",)

    def __enter__(self):
        self.old = np.setbufsize(16)

    def __exit__(self, *exc):
        np.setbufsize(self.old)


class Direct:
    """Grouped convolution by taps: the filter is (OC, C/g, KH, KW) with OC = g * m."""

    def __init__(self, geo: ConvGeometry):
        self.geo = g = geo
        self.cg, self.m = g.c // g.groups, g.oc // g.groups
        self.strided = g.strides != (1, 1)
        rows, cols = g.extent
        if self.strided:
            rows = -(-rows // g.strides[0]) * g.strides[0]
            cols = -(-cols // g.strides[1]) * g.strides[1]
        self.padded_hw = rows, cols
        taps = tap_slices(g)
        self.plane_hw = (rows // g.strides[0], cols // g.strides[1])
        self.width = self.plane_hw[1]
        self.size = self.plane_hw[0] * self.width
        self.slack = max(c0 for *_, c0 in taps)
        self.grid = g.out_hw[0] * self.width            # output positions on the grid
        self.offsets = [(r, s, r0 * self.width + c0) for _, _, r, s, r0, c0 in taps]
        self.channel_last = self.grid < LONG_ROWS and g.c > 1
        # channel last with one channel per group and filter: a window is (grid, C), its
        # weights a (C,) row; multiplied as rows of run_rows * C values against the weights
        # tiled run_rows times, NumPy's inner loops get long (measured: taps 25% faster)
        self.run_rows = run_rows(self.grid, g.c) if self.cg == 1 and self.m == 1 else 0
        self.phased = (g.strides[1] > 1 and g.out_hw[1] >= PHASED_WIDTH
                       and g.c < PHASED_CHANNELS and g.n * g.h * g.w * g.c <= PHASED_VALUES)

    @property
    def channel_last_native(self) -> bool:
        """One filter per channel: NHWC inputs run without a layout copy."""
        return self.cg == 1 and self.m == 1

    # -- layouts ------------------------------------------------------------------------
    def _planes(self, x):
        """Flat phase planes of the padded input: (sh, sw, N, g, C/g, positions) or, channel
        last, (sh, sw, N, positions, g, C/g); ``slack`` zero positions after each plane."""
        g = self.geo
        flat = flat_phases(x, g.pads[0], g.pads[2], self.padded_hw, g.strides, self.slack,
                           self.channel_last)
        if self.channel_last:
            return flat.reshape(flat.shape[:4] + (g.groups, self.cg))
        return flat.reshape(flat.shape[:3] + (g.groups, self.cg, -1))

    def _window(self, planes, r, s, off, c):
        """Tap window of in-group channel ``c``: (N, g, 1, grid) or (N, grid, g, 1)."""
        if self.channel_last:
            return planes[r, s, :, off:off + self.grid, :, c, None]
        return planes[r, s, :, :, c, None, off:off + self.grid]

    def _weights(self, w):
        """Per tap and in-group channel: (g, m, 1) or, channel last, (g, m) filter values."""
        g = self.geo
        wt = np.ascontiguousarray(w.reshape(g.groups, self.m, self.cg, g.kh * g.kw)
                                  .transpose(3, 2, 0, 1))
        return wt if self.channel_last else wt[..., None]

    def _acc_shape(self):
        g = self.geo
        return ((g.n, self.grid, g.groups, self.m) if self.channel_last
                else (g.n, g.groups, self.m, self.grid))

    def _crop(self, acc):
        """The (N, OC, OH, OW) output from the accumulated grid."""
        g = self.geo
        oh, ow = g.out_hw
        if self.channel_last:
            out = acc.reshape(g.n, oh, self.width, g.oc)[:, :, :ow].transpose(0, 3, 1, 2)
        else:
            out = acc.reshape(g.n, g.oc, oh, self.width)[..., :ow]
        return np.ascontiguousarray(out)

    def _grid(self, dout):
        """``dout`` on the output grid, zero in the dropped columns."""
        g = self.geo
        oh, ow = g.out_hw
        if self.channel_last:
            grid = np.zeros((g.n, oh, self.width, g.oc), dout.dtype)
            grid[:, :, :ow] = dout.transpose(0, 2, 3, 1)
        else:
            grid = np.zeros((g.n, g.oc, oh, self.width), dout.dtype)
            grid[..., :ow] = dout
        return grid.reshape(self._acc_shape())

    # -- passes -------------------------------------------------------------------------
    def forward(self, x, w):
        """Tap by tap, a few images at a time, each few padded afresh: a batch's accumulator
        or padded planes would leave the cache, and every tap would stream them from memory
        again (measured: 8 x 96 x 112 x 112, stride 2: 25.5 -> about 14 ms)."""
        g = self.geo
        acc = np.empty(self._acc_shape(), x.dtype)
        step = max(1, ACCUMULATOR_VALUES // (g.oc * self.grid))
        tmp = np.empty((min(step, g.n),) + acc.shape[1:], x.dtype)
        if self.channel_last and self.run_rows:
            runs = (self.grid // self.run_rows, self.run_rows * g.c)
            wt = np.tile(w.reshape(g.c, -1).T, (1, self.run_rows))[:, None]
            lanes = acc.reshape(g.n, *runs), tmp.reshape(len(tmp), *runs)

            def window(planes, r, s, off, c):
                return planes[r, s, :, off:off + self.grid].reshape(-1, *runs)
        else:
            wt, lanes, window = self._weights(w), (acc, tmp), self._window
        # channel last, a window is one long run per image: NumPy's buffering merges them
        with nullcontext() if self.channel_last else unbuffered():
            for start in range(0, g.n, step):
                planes = self._planes(x[start:start + step])
                part = lanes[0][start:start + step]
                spare = lanes[1][:len(part)]
                first = True
                for t, (r, s, off) in enumerate(self.offsets):
                    for c in range(self.cg):
                        if first:
                            np.multiply(window(planes, r, s, off, c), wt[t, c], out=part)
                            first = False
                        else:
                            np.multiply(window(planes, r, s, off, c), wt[t, c], out=spare)
                            part += spare
        return self._crop(acc)

    def forward_channel_last(self, x, w):
        """NHWC ``x`` -> NHWC output, one filter per channel: per column phase of the padded
        input (one at stride 1), its taps in one ``einsum`` over a strided (N, OH, KH, KW,
        OW * C) view, each image row's (OW, C) values one run against the tap weights tiled
        OW times. One pass with long inner loops, where the taps make two passes each
        (measured: 8 x 144 x 16 x 16 from 1.10 to 0.37 ms, 8 x 576 x 4 x 4 0.45 to 0.09 ms).
        Large images run one at a time, so that the padded copy stays in cache (8 x 144 x 56
        x 56: 8.1 -> 6.2 ms)."""
        g = self.geo
        if g.n == 1 or g.h * g.w * g.c < CHANNEL_LAST_IMAGE:
            return self._taps_channel_last(x, w)
        out = np.empty((g.n, *g.out_hw, g.c), x.dtype)
        for image in range(g.n):
            out[image] = self._taps_channel_last(x[image:image + 1], w)[0]
        return out

    def _taps_channel_last(self, x, w):
        g, n = self.geo, len(x)
        (ph, pw), (dh, dw), (oh, ow) = g.strides, g.dilations, g.out_hw
        rows, cols = g.extent
        taps = w.reshape(g.c, g.kh, g.kw).transpose(1, 2, 0)
        if pw > 1 and not self.phased:
            xp = column_phases(x, g.pads[0], g.pads[2], rows, cols, 1)[0]
            sn, sr, sc, sk = xp.strides
            windows = as_strided(xp, (n, oh, ow, g.kh, g.kw, g.c),
                                 (sn, sr * ph, sc * pw, sr * dh, sc * dw, sk), writeable=False)
            return np.einsum("nhwijc,ijc->nhwc", windows, np.ascontiguousarray(taps))
        planes = column_phases(x, g.pads[0], g.pads[2], rows, -(-cols // pw) * pw, pw)
        out = spare = None
        for s, plane in enumerate(planes):
            columns = [j for j in range(g.kw) if j * dw % pw == s]
            if not columns:
                continue
            first = columns[0] * dw // pw
            step = (columns[1] - columns[0]) * dw // pw if len(columns) > 1 else 0
            sn, sr, sc, _ = plane.strides
            windows = as_strided(plane[:, :, first:], (n, oh, g.kh, len(columns), ow * g.c),
                                 (sn, sr * ph, sr * dh, sc * step, plane.itemsize),
                                 writeable=False)
            weights = np.tile(taps[:, columns], (1, 1, ow))
            if out is None:
                out = np.einsum("nhijk,ijk->nhk", windows, weights)
            else:
                spare = np.einsum("nhijk,ijk->nhk", windows, weights, out=spare)
                out += spare
        return out.reshape(n, oh, ow, g.c)

    def backward(self, x, w, dout, wanted):
        grid = self._grid(dout)
        dw = dx = None
        with unbuffered():
            if wanted[1]:
                dw = self._filter_grad(self._planes(x), grid, w)
            if wanted[0]:
                dx = self._input_grad(grid, self._weights(w))
        return dx, dw

    def _filter_grad(self, planes, grid, w):
        g = self.geo
        summed = (0, 1) if self.channel_last else (0, 3)
        dwt = np.empty((len(self.offsets), self.cg, g.groups, self.m), w.dtype)
        prod = np.empty_like(grid)
        for t, (r, s, off) in enumerate(self.offsets):
            for c in range(self.cg):
                np.multiply(self._window(planes, r, s, off, c), grid, out=prod)
                dwt[t, c] = prod.sum(axis=summed)
        return dwt.transpose(2, 3, 1, 0).reshape(w.shape)

    def _input_grad(self, grid, wt):
        """Scatter ``grid`` through every tap into the input's phase planes."""
        g = self.geo
        sh, sw = g.strides
        span = self.size + self.slack
        cl = self.channel_last
        planes = np.zeros((sh, sw, g.n) + ((span, g.groups, self.cg) if cl
                                           else (g.groups, self.cg, span)), grid.dtype)
        tmp = np.empty(grid.shape[:-1] if cl else grid.shape[:2] + grid.shape[3:], grid.dtype)
        for t, (r, s, off) in enumerate(self.offsets):
            for c in range(self.cg):
                if self.m == 1:        # (g,) channel last, else (g, 1)
                    np.multiply(grid[..., 0] if cl else grid[:, :, 0], wt[t, c, :, 0], out=tmp)
                elif cl:
                    np.einsum("nlgm,gm->nlg", grid, wt[t, c], out=tmp)
                else:
                    np.einsum("ngml,gm->ngl", grid, wt[t, c, :, :, 0], out=tmp)
                if cl:
                    planes[r, s, :, off:off + self.grid, :, c] += tmp
                else:
                    planes[r, s, :, :, c, off:off + self.grid] += tmp
        if cl:
            planes = planes[:, :, :, :self.size].reshape(sh, sw, g.n, *self.plane_hw, g.c)
            planes = planes.transpose(0, 1, 2, 5, 3, 4)
        else:
            planes = planes[..., :self.size].reshape(sh, sw, g.n, g.c, *self.plane_hw)
        dxp = np.empty((g.n, g.c, *self.padded_hw), grid.dtype)
        for r in range(sh):
            for s in range(sw):
                dxp[:, :, r::sh, s::sw] = planes[r, s]
        top, left = g.pads[0], g.pads[2]
        dx = np.zeros((g.n, g.c, g.h, g.w), grid.dtype)
        h_in = min(g.h, self.padded_hw[0] - top)
        w_in = min(g.w, self.padded_hw[1] - left)
        dx[:, :, :h_in, :w_in] = dxp[:, :, top:top + h_in, left:left + w_in]
        return dx
