"""im2col on the flat grid, for narrow outputs: the windows are copied as long unit-stride
runs instead of one short run per output row.

As in ops/depthwise.py, every image plane of the padded input (split into its stride phases
when strided) is one flat run of ``rows * width`` positions, and the window of tap (i, j)
is the run starting at ``i * width + j``; an output row then spans ``width`` grid columns,
of which the last ``width - OW`` are garbage, dropped from the output. The copy of a window
is one run of ``OH * width`` values per channel and image (NumPy's per-row cost paid once
per plane, not once per output row); the matrix product does ``width / OW`` times the work
of :class:`~ops.conv_kernels.Im2col`'s, so this pays for narrow outputs with few garbage
columns (LeNet's 10-wide maps under a 5x5 filter: 14 / 10).

The gradients use the same grid: the output gradient is laid on it with zeros in the
garbage columns, so their columns add nothing to the filter gradient and nothing to the
input gradient, which is accumulated tap by tap over long runs of the phase planes.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .activation import activate_into
from .conv_geometry import ConvGeometry, flat_phases, tap_slices
from .conv_products import grouped, product, product_t, rows_times_filter, weight_grad


class GridIm2col:
    """Any filter, batch-wide columns on the flat grid: (C*KH*KW, N * OH * width)."""

    channel_last_native = False    # NCHW only: channel-last inputs are transposed

    def __init__(self, geo: ConvGeometry):
        self.geo = g = geo
        self.rows = g.c * g.kh * g.kw
        rows, cols = g.extent
        rows = -(-rows // g.strides[0]) * g.strides[0]
        cols = -(-cols // g.strides[1]) * g.strides[1]
        self.padded_hw = rows, cols
        self.plane_hw = rows // g.strides[0], cols // g.strides[1]
        self.width = self.plane_hw[1]
        self.size = self.plane_hw[0] * self.width
        taps = tap_slices(g)
        self.slack = max(c0 for *_, c0 in taps)
        self.grid = g.out_hw[0] * self.width
        self.taps = [(i, j, r, s, r0 * self.width + c0) for i, j, r, s, r0, c0 in taps]
        self.one_phase = g.strides == (1, 1)
        self.writes_channel_last = g.groups == 1

    def _columns(self, x, ones: bool = False) -> np.ndarray:
        """The (C*KH*KW, N * grid) window copies, and a row of ones under them if asked."""
        g = self.geo
        planes = flat_phases(x, g.pads[0], g.pads[2], self.padded_hw, g.strides, self.slack)
        flat = np.empty((self.rows + ones, g.n * self.grid), x.dtype)
        if ones:
            flat[-1] = 1
        cols = flat[:self.rows].reshape(g.c, g.kh, g.kw, g.n, self.grid)
        if self.one_phase:        # every tap reads the one plane: a single strided copy
            plane = planes[0, 0]
            sn, sc, sp = plane.strides
            view = as_strided(plane, cols.shape, (sc, sp * self.width * g.dilations[0],
                                                  sp * g.dilations[1], sn, sp),
                              writeable=False)
            np.copyto(cols, view)
            return flat
        for i, j, r, s, off in self.taps:
            cols[:, i, j] = planes[r, s, :, :, off:off + self.grid].transpose(1, 0, 2)
        return flat

    def forward(self, x, w):
        g = self.geo
        out = product(grouped(w, g.groups), self._columns(x), g.groups)
        out = out.reshape(g.oc, g.n, g.out_hw[0], self.width)[..., :g.out_hw[1]]
        return np.ascontiguousarray(out.transpose(1, 0, 2, 3))

    def forward_to_channel_last(self, x, w, bias=None, act=None):
        """The NHWC output of an NCHW(-strided) ``x``, one group: the columns' transpose
        times the filter's, a view that drops the garbage grid columns (the next layer copies
        its input anyway: MobileNetV2's stem and first depthwise layer, 1 x 224, 1.33 -> 1.19
        ms). A ``bias`` is added by the product (a row of ones under the columns) and ``act``
        applied in place, before the garbage columns are dropped."""
        g = self.geo
        cols, wm = self._columns(x, ones=bias is not None), w.reshape(g.oc, -1)
        if bias is None:
            out = rows_times_filter(cols.T, wm)
        else:
            out = cols.T @ np.concatenate([wm.T, bias.reshape(1, -1).astype(wm.dtype)])
        if act is not None:
            activate_into(act, out)
        return out.reshape(g.n, g.out_hw[0], self.width, g.oc)[:, :, :g.out_hw[1]]

    def backward(self, x, w, dout, wanted):
        g = self.geo
        oh, ow = g.out_hw
        d = np.zeros((g.oc, g.n, oh, self.width), dout.dtype)
        d[..., :ow] = dout.transpose(1, 0, 2, 3)
        d = d.reshape(g.oc, -1)
        dw = dx = None
        if wanted[1]:
            dw = weight_grad(d, self._columns(x), g.groups, w.shape)
        if wanted[0]:
            dcols = product_t(grouped(w, g.groups), d, g.groups)
            dx = self._input_grad(dcols.reshape(g.c, g.kh, g.kw, g.n, self.grid), dout.dtype)
        return dx, dw

    def _input_grad(self, dcols, dtype):
        """Each tap's (C, N, grid) values added into channel-major phase planes, then the
        planes put back into the (N, C, H, W) input."""
        g = self.geo
        sh, sw = g.strides
        planes = np.zeros((sh, sw, g.c, g.n, self.size + self.slack), dtype)
        for i, j, r, s, off in self.taps:
            planes[r, s, :, :, off:off + self.grid] += dcols[:, i, j]
        planes = planes[..., :self.size].reshape(sh, sw, g.c, g.n, *self.plane_hw)
        top, left = g.pads[0], g.pads[2]
        h_in = min(g.h, self.padded_hw[0] - top)
        w_in = min(g.w, self.padded_hw[1] - left)
        dx = np.zeros((g.n, g.c, g.h, g.w), dtype)
        if self.one_phase:
            dx[:, :, :h_in, :w_in] = planes[0, 0, :, :, top:top + h_in,
                                            left:left + w_in].transpose(1, 0, 2, 3)
            return dx
        dxp = np.empty((g.n, g.c, *self.padded_hw), dtype)
        for r in range(sh):
            for s in range(sw):
                dxp[:, :, r::sh, s::sw] = planes[r, s].transpose(1, 0, 2, 3)
        dx[:, :, :h_in, :w_in] = dxp[:, :, top:top + h_in, left:left + w_in]
        return dx
