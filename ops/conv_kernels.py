"""Convolution as matrix products, for NCHW arrays: 1x1 filters as plain products of the
input (:class:`Pointwise`, no copy at stride 1), every other filter through an im2col matrix
(:class:`Im2col`). Both serve the forward pass and the gradients. Kernels that read NHWC
inputs natively (``channel_last_native``: pointwise here, depthwise in ops/depthwise.py) have a
``forward_channel_last``; im2col kernels of one group (``writes_channel_last``) read NCHW and
write NHWC outputs directly, taking their product transposed (a channel-last network's
stem); :func:`forward` runs any kernel in either layout.

Each kernel is an object built once per layer shape (:func:`conv_kernel` memoizes them), that
holds the decisions for that shape: which layout the columns take (one matrix per image when
an image has many output positions, one matrix for the whole batch otherwise: small products
waste BLAS), how strided windows are read (split into stride phases, so every copy reads unit
strides), and the slices each kernel tap reads.
"""
from __future__ import annotations

import functools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import winograd
from .activation import activate_into
from .conv_geometry import ConvGeometry, copy_channel_last, flat_phases, padded, tap_slices
from .conv_grid import GridIm2col
from .conv_products import grouped, product, product_t, rows_times_filter, weight_grad
from .depthwise import Direct
from .windows import conv_out_size, resolve_padding

PER_IMAGE_POSITIONS = 256    # from here on, one product per image beats one for the batch
PER_IMAGE_VALUES = 1 << 16   # ... when an image's matrix is this large (else call overhead)
GATHER_BELOW = 16            # output widths below which windows are gathered by index
# the flat grid (ops/conv_grid.py) pays while its extra product work, OC * garbage columns
# per output row, costs less than NumPy's per-row copy it saves (measured: about 200), and
# while its columns stay in cache
GRID_EXTRA_WORK = 200
GRID_VALUES = 3 << 19


class Pointwise:
    """1x1 filters: ``W (OC, C) @ x (C, H*W)`` per image, the strided input sliced first."""

    def __init__(self, geo: ConvGeometry):
        self.geo = geo
        self.strided = geo.strides != (1, 1)
        self.per_image = geo.n == 1 or geo.positions >= PER_IMAGE_POSITIONS

    def _input(self, x):
        g = self.geo
        if self.strided:
            x = x[:, :, :g.extent[0]:g.strides[0], :g.extent[1]:g.strides[1]]
        return x.reshape(g.n, g.c, g.positions)   # copies a strided slice once

    def forward(self, x, w):
        g = self.geo
        xm, wm = self._input(x), grouped(w, g.groups)
        if self.per_image:
            out = product(wm, xm if g.n > 1 else xm[0], g.groups)
        else:
            flat = xm.transpose(1, 0, 2).reshape(g.c, -1)
            out = product(wm, flat, g.groups).reshape(g.oc, g.n, -1).transpose(1, 0, 2)
            out = np.ascontiguousarray(out)
        return out.reshape(g.n, g.oc, *g.out_hw)

    @property
    def channel_last_native(self) -> bool:
        return self.geo.groups == 1

    def forward_channel_last(self, x, w, transposed=None):
        """NHWC ``x`` -> NHWC output: the positions are the rows of one product with the
        filter (or its contiguous transpose (C, OC), if given), no layout copy
        (:func:`rows_times_filter`)."""
        g = self.geo
        if self.strided:
            x = x[:, :g.extent[0]:g.strides[0], :g.extent[1]:g.strides[1]]
        if not x.flags.c_contiguous:
            x, view = np.empty((g.n, *g.out_hw, g.c), x.dtype), x
            copy_channel_last(view, x)
        return rows_times_filter(x.reshape(-1, g.c), w.reshape(g.oc, g.c),
                                 transposed=transposed).reshape(g.n, *g.out_hw, g.oc)

    def backward(self, x, w, dout, wanted):
        g = self.geo
        wm = grouped(w, g.groups)
        d = dout.reshape(g.n, g.oc, g.positions)
        dw = dx = None
        if wanted[1]:
            xm = self._input(x)
            if g.n == 1:
                dw = weight_grad(d[0], xm[0], g.groups, w.shape)
            else:
                dw = weight_grad(d.transpose(1, 0, 2).reshape(g.oc, -1),
                                  xm.transpose(1, 0, 2).reshape(g.c, -1), g.groups, w.shape)
        if wanted[0]:
            dxm = product_t(wm, d, g.groups).reshape(g.n, g.c, *g.out_hw)
            if self.strided:
                dx = np.zeros((g.n, g.c, g.h, g.w), dout.dtype)
                dx[:, :, :g.extent[0]:g.strides[0], :g.extent[1]:g.strides[1]] = dxm
            else:
                dx = dxm
        return dx, dw


class Im2col:
    """Any filter: the windows copied into a (C*KH*KW, positions) matrix, times the filter
    matrix. One matrix per image (the copy stays in cache, the product writes the NCHW
    output directly), or one for the whole batch when images are small."""

    channel_last_native = False    # NCHW only: channel-last inputs are transposed

    def __init__(self, geo: ConvGeometry):
        self.geo = geo
        self.rows = geo.c * geo.kh * geo.kw
        # one matrix per image keeps it in cache, but costs a few NumPy calls per image
        self.per_image = geo.n == 1 or (geo.positions >= PER_IMAGE_POSITIONS
                                        and self.rows * geo.positions >= PER_IMAGE_VALUES)
        # narrow outputs: copying windows row by row costs ~70 ns a row in NumPy's loops;
        # one gather through an index plan made here costs ~2 ns a value
        values = self.rows * geo.positions * (1 if self.per_image else geo.n)
        self.gather = geo.out_hw[1] < GATHER_BELOW and values * 2 < (values // geo.out_hw[1]) * 70
        self.strided = geo.strides != (1, 1) and not self.gather
        rows, cols = geo.extent
        if self.strided:     # round the padded extent up to whole stride phases
            rows = -(-rows // geo.strides[0]) * geo.strides[0]
            cols = -(-cols // geo.strides[1]) * geo.strides[1]
        self.padded_hw = rows, cols
        self.taps = tap_slices(geo)
        self.index = self._index_plan() if self.gather else None
        self.writes_channel_last = geo.groups == 1

    def _index_plan(self) -> np.ndarray:
        """Flat positions in the padded input (one image, or the batch for one matrix) of
        every (C, KH, KW, [N,] OH, OW) column entry."""
        g, (rows, cols) = self.geo, self.padded_hw
        (sh, sw), (dh, dw), (oh, ow) = g.strides, g.dilations, g.out_hw
        c = np.arange(g.c).reshape(-1, 1, 1, 1, 1) * (rows * cols)
        r = (np.arange(g.kh) * dh).reshape(1, -1, 1, 1, 1) + (np.arange(oh) * sh).reshape(
            1, 1, 1, -1, 1)
        s = (np.arange(g.kw) * dw).reshape(1, 1, -1, 1, 1) + (np.arange(ow) * sw).reshape(
            1, 1, 1, 1, -1)
        index = c + r * cols + s
        if not self.per_image:
            images = np.arange(g.n).reshape(1, 1, 1, -1, 1, 1) * (g.c * rows * cols)
            index = index[:, :, :, None] + images
        return index.astype(np.intp)

    def _source(self, x):
        """The padded input, split into stride phases (sh, sw, N, C, H/sh, W/sw) if strided."""
        g = self.geo
        if not self.strided:
            return padded(x, g.pads[0], g.pads[2], *self.padded_hw)
        planes = flat_phases(x, g.pads[0], g.pads[2], self.padded_hw, g.strides)
        return planes.reshape(planes.shape[:4] + (self.padded_hw[0] // g.strides[0], -1))

    def _fill(self, src, cols6, image):
        """Copy the windows of ``image`` (None: all, batch axis after the taps) into the
        (C, KH, KW, [N,] OH, OW) view ``cols6``."""
        g = self.geo
        oh, ow = g.out_hw
        if self.gather:
            flat = (src if image is None else src[image]).reshape(-1)
            np.take(flat, self.index, out=cols6, mode="clip")
            return
        if not self.strided:
            x = src if image is None else src[image]
            if image is None:
                sn, sc, sh, sw = x.strides
                shape, strides = (g.c, g.kh, g.kw, g.n, oh, ow), (sc, sh * g.dilations[0],
                                                                  sw * g.dilations[1], sn, sh, sw)
            else:
                sc, sh, sw = x.strides
                shape, strides = (g.c, g.kh, g.kw, oh, ow), (sc, sh * g.dilations[0],
                                                             sw * g.dilations[1], sh, sw)
            cols6[...] = as_strided(x, shape, strides, writeable=False)
            return
        for i, j, r, s, r0, c0 in self.taps:
            part = src[r, s] if image is None else src[r, s, image]
            if image is None:
                cols6[:, i, j] = part[:, :, r0:r0 + oh, c0:c0 + ow].transpose(1, 0, 2, 3)
            else:
                cols6[:, i, j] = part[:, r0:r0 + oh, c0:c0 + ow]

    def forward_to_channel_last(self, x, w, bias=None, act=None):
        """The NHWC output of an NCHW(-strided) ``x``, one group: the columns' transpose times
        the filter's, whose rows are the channel-last output positions (MobileNetV2's stem and
        first depthwise layer, 8 x 224: 16.0 -> 14.7 ms). A ``bias`` is added by the product
        (a row of ones under the columns, the bias under the filter's transpose) and ``act``
        applied in place, per image while its output is in cache, each image padded afresh
        (the stem, 8 x 224: 5.9 -> 4.9 ms with both)."""
        g = self.geo
        oh, ow = g.out_hw
        wm = w.reshape(g.oc, -1)
        images = range(g.n) if self.per_image else [None]
        width = g.positions if self.per_image else g.n * g.positions
        cols = np.empty((self.rows + (bias is not None), width), x.dtype)
        cols6 = cols[:self.rows].reshape(g.c, g.kh, g.kw, *((oh, ow) if self.per_image
                                                              else (g.n, oh, ow)))
        if bias is not None:
            cols[-1] = 1
            wt = np.concatenate([wm.T, bias.reshape(1, -1).astype(wm.dtype)])
        out = np.empty((g.n, g.positions, g.oc), x.dtype)
        for image in images:
            part = out[image] if self.per_image else out.reshape(-1, g.oc)
            self._fill(self._source(x if image is None else x[image:image + 1]), cols6,
                       None if image is None else 0)
            if bias is None:
                rows_times_filter(cols.T, wm, out=part)
            else:
                np.matmul(cols.T, wt, out=part)
            if act is not None:
                activate_into(act, part)
        return out.reshape(g.n, oh, ow, g.oc)

    def forward(self, x, w):
        g = self.geo
        src, wm = self._source(x), grouped(w, g.groups)
        oh, ow = g.out_hw
        if self.per_image:
            out = np.empty((g.n, g.oc, g.positions), x.dtype)
            cols = np.empty((self.rows, g.positions), x.dtype)
            cols6 = cols.reshape(g.c, g.kh, g.kw, oh, ow)
            for image in range(g.n):
                self._fill(src, cols6, image)
                product(wm, cols, g.groups, out=out[image])
            return out.reshape(g.n, g.oc, oh, ow)
        cols = np.empty((self.rows, g.n * g.positions), x.dtype)
        self._fill(src, cols.reshape(g.c, g.kh, g.kw, g.n, oh, ow), None)
        out = product(wm, cols, g.groups).reshape(g.oc, g.n, oh, ow)
        return np.ascontiguousarray(out.transpose(1, 0, 2, 3))

    def backward(self, x, w, dout, wanted):
        g = self.geo
        wm = grouped(w, g.groups)
        oh, ow = g.out_hw
        src = self._source(x) if wanted[1] else None
        dw = np.zeros(w.shape, w.dtype) if wanted[1] else None
        dxp = np.zeros((g.n, g.c, *self.padded_hw), dout.dtype) if wanted[0] else None
        if self.per_image:
            cols = np.empty((self.rows, g.positions), x.dtype) if wanted[1] else None
            for image in range(g.n):
                d = dout[image].reshape(g.oc, g.positions)
                if wanted[1]:
                    self._fill(src, cols.reshape(g.c, g.kh, g.kw, oh, ow), image)
                    dw += weight_grad(d, cols, g.groups, w.shape)
                if wanted[0]:
                    dcols = product_t(wm, d, g.groups)
                    self._scatter(dcols.reshape(g.c, g.kh, g.kw, oh, ow), dxp[image])
        else:
            d = np.ascontiguousarray(dout.transpose(1, 0, 2, 3)).reshape(g.oc, -1)
            if wanted[1]:
                cols = np.empty((self.rows, g.n * g.positions), x.dtype)
                self._fill(src, cols.reshape(g.c, g.kh, g.kw, g.n, oh, ow), None)
                dw = weight_grad(d, cols, g.groups, w.shape)
            if wanted[0]:
                dcols = product_t(wm, d, g.groups).reshape(g.c, g.kh, g.kw, g.n, oh, ow)
                self._scatter(dcols.transpose(3, 0, 1, 2, 4, 5), dxp)
        dx = None
        if wanted[0]:
            top, left = g.pads[0], g.pads[2]
            dx = np.zeros((g.n, g.c, g.h, g.w), dout.dtype)
            h_in = min(g.h, self.padded_hw[0] - top)
            w_in = min(g.w, self.padded_hw[1] - left)
            dx[:, :, :h_in, :w_in] = dxp[:, :, top:top + h_in, left:left + w_in]
        return dx, dw

    def _scatter(self, dcols, dxp):
        """Adjoint of the window copy: add each tap's (…, OH, OW) values into the padded
        input gradient ``dxp`` (col2im)."""
        g = self.geo
        (sh, sw), (dh, dw) = g.strides, g.dilations
        oh, ow = g.out_hw
        for i in range(g.kh):
            for j in range(g.kw):
                r0, c0 = i * dh, j * dw
                dxp[..., r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw] += \
                    dcols[..., i, j, :, :]


# -- choosing a kernel per layer shape ---------------------------------------------------------
# Winograd F(m x m) pays while its products are below this share of im2col's (measured:
# F(2x2) wins from about 0.65 down, F(4x4)'s heavier transforms need larger maps) ...
_WINOGRAD_WORK = {2: 0.7, 4: 0.35}
# ... and while its products have this many rows (tiles) at least: below, they are bound by
# reading the transformed filter, (m + 2)^2 / 9 times the size of the filter im2col reads
# (measured with the filters out of cache: 1 x 256 x 4 x 4, 4 tiles, ties; 1 x 128 x 8 x 8,
# 16 tiles, 0.41 -> 0.27 ms)
WINOGRAD_ROWS = 8
# a layer gets a transformed filter where a batch-1 image has this many tiles of 2 x 2 (a 2 x 2
# map, one tile: 8 x 512 x 2 x 2 by Winograd 4.1 ms, im2col 2.7), and F(4x4) over F(2x2)
# where it has this many of 4 x 4 (fewer leave the products short: 1 x 256 x 14 x 14, 16
# tiles, F(4x4) 2.9 ms, F(2x2) 2.0) and its products are at most this share of F(2x2)'s
# (tiles padding the map cost products)
F2_TILES, F4_TILES, F4_WORK = 4, 16, 0.6


def winograd_tile(geo: ConvGeometry) -> int:
    """The Winograd output tile m best for this shape at batch 1 (0: none). Both save
    product work but add transform passes proportional to the channels: 16 channels or
    more."""
    if not winograd.supports(geo) or min(geo.c, geo.oc) < 16:
        return 0
    if (winograd.tiles(geo, 4) >= F4_TILES
            and winograd.work(geo, 4) <= F4_WORK * winograd.work(geo, 2)):
        return 4
    return 2 if (winograd.tiles(geo, 2) >= F2_TILES
                 and winograd.work(geo, 2) < _WINOGRAD_WORK[2]) else 0


def _direct_pays(geo: ConvGeometry) -> bool:
    """Depthwise filters (one input channel per group): im2col would feed BLAS one tiny
    product per channel."""
    return geo.groups > 1 and geo.c == geo.groups and not geo.pointwise


@functools.lru_cache(maxsize=1024)
def conv_kernel(geo: ConvGeometry, transformed: int = 0):
    """The kernel object for one layer shape (``transformed``: the caller holds the filter
    transformed for Winograd F(m x m) with this m, used if it pays for the shape)."""
    if geo.pointwise:
        return Pointwise(geo)
    if _direct_pays(geo):
        return Direct(geo)
    if (transformed and winograd.supports(geo)
            and winograd.work(geo, transformed) < _WINOGRAD_WORK[transformed]
            and geo.n * winograd.tiles(geo, transformed) >= WINOGRAD_ROWS):
        return winograd.Winograd(geo, transformed)
    if _grid_pays(geo):
        return GridIm2col(geo)
    return Im2col(geo)


def _grid_pays(geo: ConvGeometry) -> bool:
    """Narrow outputs under wide filters on few output channels (LeNet's, a network's
    first layer): copying each window as one run beats the product work its garbage
    columns add."""
    grid = GridIm2col(geo)
    garbage = grid.width - geo.out_hw[1]
    return (geo.oc * garbage <= GRID_EXTRA_WORK
            and grid.rows * geo.n * grid.grid <= GRID_VALUES)


@functools.lru_cache(maxsize=1024)
def geometry(op_type: str, x_shape: tuple, w_shape: tuple, strides: tuple, paddings: tuple,
             padding_algorithm: str, dilations: tuple, groups: int) -> ConvGeometry:
    """The geometry of an NCHW input of ``x_shape`` and an OIHW filter, with Paddle's padding
    rules (shape errors name the op)."""
    pads, dil = resolve_padding(op_type, x_shape[2:], w_shape[2:], strides, paddings,
                                padding_algorithm, dilations)
    out = tuple(conv_out_size(op_type, x_shape[2 + i], w_shape[2 + i], dil[i], pads[2 * i],
                              pads[2 * i + 1], strides[i]) for i in range(2))
    return ConvGeometry(*x_shape, w_shape[0], w_shape[2], w_shape[3], groups, tuple(strides),
                        tuple(dil), tuple(pads), out)


def forward(kernel, x: np.ndarray, w: np.ndarray, channel_last: bool) -> np.ndarray:
    """``kernel``'s forward pass on an NCHW or NHWC ``x``, in the same layout: natively where
    the kernel reads channel-last inputs, else through transposed copies."""
    if not channel_last:
        return kernel.forward(x, w)
    if kernel.channel_last_native:
        return kernel.forward_channel_last(x, w)
    if getattr(kernel, "writes_channel_last", False):
        return kernel.forward_to_channel_last(x.transpose(0, 3, 1, 2), w)
    return np.ascontiguousarray(kernel.forward(x.transpose(0, 3, 1, 2), w).transpose(0, 2, 3, 1))


def kernel_lookup(op_type: str, strides, paddings, padding_algorithm: str, groups: int,
                  dilations, channel_last: bool, transformed: int = 0):
    """For one op's attributes: ``lookup(x, filter_shape)`` -> the kernel object for an
    (NCHW or NHWC) input ``x``, memoized per shape (a dict hit per run)."""
    strides, paddings, dilations = tuple(strides), tuple(paddings), tuple(dilations)
    kernels = {}

    def lookup(x, filter_shape):
        key = (x.shape, filter_shape)
        kernel = kernels.get(key)
        if kernel is None:
            s = x.shape
            shape = (s[0], s[3], s[1], s[2]) if channel_last else s
            kernel = kernels[key] = conv_kernel(geometry(
                op_type, tuple(shape), tuple(filter_shape), strides, paddings,
                padding_algorithm, dilations, groups), transformed)
        return kernel

    return lookup
