"""pool2d by strided views: every window tap is one shifted (strided) view of the padded
input, and a max or a sum over the KH * KW taps is KH * KW NumPy calls over the whole output,
whatever its size. Strided windows read the input's stride phases (ops/conv_geometry.py), so
every tap is a unit-stride slice. The per-layer facts (padded extent, taps, the average's
divisors) are computed once per shape (:func:`pool_kernel`, memoized)."""
from __future__ import annotations

import functools

import numpy as np

from .conv_geometry import flat_phases


def lowest(dtype) -> float:
    dtype = np.dtype(dtype)
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


class RegularPool:
    """Windows of a fixed size and stride (explicit, SAME, VALID, ceil-mode paddings and
    adaptive windows that divide the input evenly)."""

    def __init__(self, shape: tuple, ksize: tuple, strides: tuple, pads: tuple, out_hw: tuple,
                 divisor: np.ndarray | None):
        self.shape, self.ksize, self.strides = shape, ksize, strides
        self.top, self.left = pads
        self.out_hw = out_hw
        (kh, kw), (sh, sw), (oh, ow) = ksize, strides, out_hw
        rows, cols = (oh - 1) * sh + kh, (ow - 1) * sw + kw
        self.padded_hw = (-(-rows // sh) * sh, -(-cols // sw) * sw)
        self.plane_hw = (self.padded_hw[0] // sh, self.padded_hw[1] // sw)
        self.taps = [(i % sh, j % sw, i // sh, j // sw) for i in range(kh) for j in range(kw)]
        self.divisor = divisor       # (OH, OW) window counts of an average; None: max
        # the windows tile the input exactly: its stride phases are views, no padded copy
        self.exact = (self.top, self.left) == (0, 0) and self.padded_hw == tuple(shape[2:])
        # ... and each input value is in one window: a gradient is written, not added
        self.disjoint = self.exact and tuple(ksize) == tuple(strides)
        # a network's stem pool (3x3, stride 2, padding 1) over even sizes, as two separable
        # passes over long runs (:meth:`_stem_max`)
        h, w = shape[2:]
        self.stem = (divisor is None and tuple(ksize) == (3, 3) and tuple(strides) == (2, 2)
                     and pads == (1, 1) and (2 * oh, 2 * ow) == (h, w))

    def _planes(self, x, fill):
        n, c = x.shape[:2]
        if self.exact:
            (sh, sw), (hq, wq) = self.strides, self.plane_hw
            return x.reshape(n, c, hq, sh, wq, sw).transpose(3, 5, 0, 1, 2, 4)
        planes = flat_phases(x, self.top, self.left, self.padded_hw, self.strides, fill=fill)
        return planes.reshape(planes.shape[:4] + self.plane_hw)

    def forward(self, x):
        if self.stem:
            return self._stem_max(x)
        is_max = self.divisor is None
        planes = self._planes(x, lowest(x.dtype) if is_max else 0)
        (oh, ow), combine = self.out_hw, np.maximum if is_max else np.add
        out = None
        for r, s, r0, c0 in self.taps:
            window = planes[r, s, :, :, r0:r0 + oh, c0:c0 + ow]
            out = window.copy() if out is None else combine(out, window, out=out)
        if not is_max:
            out /= self.divisor
        return out

    def _stem_max(self, x):
        """3x3 windows of stride 2 with one padding value around an even-sized input, by rows
        then columns. The max of each row pair (2i, 2i + 1) and of the row before it covers
        every window row but the first of each plane, whose upper neighbour is padding:
        those take their pair's max alone. Columns likewise, along the flat array. Six NumPy
        calls over long runs, no padded copy (measured: 8 x 64 x 32 x 32 0.82 -> 0.4 ms)."""
        n, c, h, w = x.shape
        oh, ow = self.out_hw
        pairs = np.ascontiguousarray(x).reshape(n * c * oh, 2, w)
        rows = np.maximum(pairs[:, 0], pairs[:, 1])                 # (n * c * oh, w)
        np.maximum(rows[1:], pairs[:-1, 1], out=rows[1:])
        planes = pairs.reshape(n * c, oh, 2, w)
        rows.reshape(n * c, oh, w)[:, 0] = np.maximum(planes[:, 0, 0], planes[:, 0, 1])
        flat = rows.reshape(-1)
        out = np.maximum(flat[0::2], flat[1::2])                    # (n * c * oh * ow)
        np.maximum(out[1:], flat[1:-1:2], out=out[1:])
        out.reshape(-1, ow)[:, 0] = np.maximum(rows[:, 0], rows[:, 1])
        return out.reshape(n, c, oh, ow)

    def backward(self, x, out, dout):
        (sh, sw), (oh, ow) = self.strides, self.out_hw
        n, c = x.shape[:2]
        dxp = (np.empty if self.disjoint else np.zeros)((n, c, *self.padded_hw), dout.dtype)
        if self.divisor is None:
            planes = self._planes(x, lowest(x.dtype))
            taken = np.zeros(out.shape, bool)
            hit = np.empty(out.shape, bool)
            share = np.empty_like(dout)
        else:
            share = dout / self.divisor
        for r, s, r0, c0 in self.taps:
            i, j = r0 * sh + r, c0 * sw + s
            target = dxp[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]
            if self.divisor is not None:
                if self.disjoint:
                    target[...] = share
                else:
                    target += share
                continue
            # each output's gradient goes to the first maximum of its window (row-major)
            np.equal(planes[r, s, :, :, r0:r0 + oh, c0:c0 + ow], out, out=hit)
            hit &= ~taken
            taken |= hit
            if self.disjoint:
                np.multiply(dout, hit, out=target)
            else:
                np.multiply(dout, hit, out=share)
                target += share
        if self.exact:
            return dxp
        h, w = self.shape[2:]
        dx = np.zeros(self.shape, dout.dtype)
        h_in, w_in = min(h, self.padded_hw[0] - self.top), min(w, self.padded_hw[1] - self.left)
        dx[:, :, :h_in, :w_in] = dxp[:, :, self.top:self.top + h_in, self.left:self.left + w_in]
        return dx


@functools.lru_cache(maxsize=512)
def pool_kernel(shape: tuple, ksize: tuple, strides: tuple, pads: tuple, out_hw: tuple,
                average: bool, exclusive: bool, adaptive: bool):
    """The kernel for one NCHW input shape, or None where windows are irregular (adaptive
    windows that do not divide the input)."""
    h, w = shape[2:]
    if adaptive:
        if h % out_hw[0] or w % out_hw[1]:
            return None
        ksize = strides = (h // out_hw[0], w // out_hw[1])
        pads = (0, 0, 0, 0)
    divisor = None
    if average:
        counts = []
        for size, k, s, before, out in zip((h, w), ksize, strides, pads[0::2], out_hw):
            start = np.arange(out) * s - before
            end = np.minimum(start + k, size + before)
            if exclusive or adaptive:
                start, end = np.maximum(start, 0), np.minimum(end, size)
            counts.append(end - start)
        divisor = np.outer(*counts).astype(np.float32)
    return RegularPool(shape, tuple(ksize), tuple(strides), (pads[0], pads[2]), tuple(out_hw),
                       divisor)
