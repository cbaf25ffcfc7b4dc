"""Every convolution kernel (ops/conv_kernels.py, depthwise.py, winograd.py) against a float64
reference, forward and both gradients, across strides, paddings, dilations, groups, channel
multipliers, batch sizes and both of each kernel's layouts; the kernel chosen per layer
shape; and the ops in both data layouts."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from pyfluid.ops.conv_geometry import ConvGeometry
from pyfluid.ops.conv_grid import GridIm2col
from pyfluid.ops.conv_kernels import (Im2col, Pointwise, conv_kernel, forward, geometry,
                                      winograd_tile)
from pyfluid.ops.depthwise import Direct
from pyfluid.ops.winograd import Winograd, transform_filter
from test_cnn_ops import run_op

_rng = np.random.default_rng(5)


def _taps(geo: ConvGeometry):
    """Per tap (i, j): slices of the padded input its window reads."""
    (sh, sw), (dh, dw), (oh, ow) = geo.strides, geo.dilations, geo.out_hw
    for i, j in itertools.product(range(geo.kh), range(geo.kw)):
        yield i, j, (slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                     slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))


def _padded(x, geo):
    t, b, l, r = geo.pads
    return np.pad(x.astype(np.float64), ((0, 0), (0, 0), (t, b), (l, r)))


def reference(x, w, geo):
    """Forward by taps in float64: per group, out += window (N, C/g, ...) x W[:, :, i, j]."""
    xp, g = _padded(x, geo), geo.groups
    cg, og = geo.c // g, geo.oc // g
    out = np.zeros((geo.n, geo.oc, *geo.out_hw))
    for i, j, (rows, cols) in _taps(geo):
        for k in range(g):
            window = xp[:, k * cg:(k + 1) * cg, rows, cols]
            out[:, k * og:(k + 1) * og] += np.einsum("nchw,oc->nohw", window,
                                                     w[k * og:(k + 1) * og, :, i, j])
    return out


def reference_grads(x, w, dout, geo):
    """(d input, d filter) of :func:`reference` for the output gradient ``dout``."""
    xp, g = _padded(x, geo), geo.groups
    cg, og = geo.c // g, geo.oc // g
    dxp, dw = np.zeros_like(xp), np.zeros(w.shape)
    for i, j, (rows, cols) in _taps(geo):
        for k in range(g):
            d = dout[:, k * og:(k + 1) * og].astype(np.float64)
            window = xp[:, k * cg:(k + 1) * cg, rows, cols]
            dw[k * og:(k + 1) * og, :, i, j] += np.einsum("nohw,nchw->oc", d, window)
            dxp[:, k * cg:(k + 1) * cg, rows, cols] += np.einsum(
                "nohw,oc->nchw", d, w[k * og:(k + 1) * og, :, i, j])
    t, l = geo.pads[0], geo.pads[2]
    return dxp[:, :, t:t + geo.h, l:l + geo.w], dw


def _geo(n, c, hw, oc, k, strides, pads, dilations, groups):
    return geometry("conv2d", (n, c, *hw), (oc, c // groups, *k), strides, pads, "EXPLICIT",
                    dilations, groups)


# (N, C, H x W, OC, kernel, strides, paddings, dilations, groups)
GEOMETRIES = [
    (1, 3, (7, 7), 4, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    (3, 4, (8, 7), 6, (3, 3), (2, 2), (1, 1), (1, 1), 2),
    (2, 2, (9, 9), 3, (3, 3), (1, 1), (2, 2), (2, 2), 1),
    (1, 4, (11, 10), 4, (2, 3), (3, 2), (2, 0, 1, 1), (1, 2), 1),
    (2, 6, (6, 6), 6, (3, 3), (1, 1), (1, 1), (1, 1), 6),         # depthwise
    (1, 4, (9, 9), 8, (3, 3), (2, 2), (1, 1), (1, 1), 4),         # depthwise, multiplier 2
    (2, 3, (12, 11), 3, (5, 5), (2, 1), (2, 2), (1, 1), 3),       # depthwise 5x5
    (1, 4, (10, 10), 4, (3, 3), (1, 1), (2, 2), (2, 2), 4),       # dilated depthwise
    (1, 2, (23, 23), 2, (3, 3), (1, 1), (1, 1), (1, 1), 2),       # depthwise on long rows
    (2, 4, (5, 6), 4, (3, 3), (1, 1), (1, 1), (1, 1), 2),         # two channels per group
    (2, 5, (13, 12), 5, (3, 3), (2, 3), (1, 0, 2, 1), (1, 1), 5),   # depthwise, wide strides
    (1, 6, (16, 17), 6, (3, 3), (2, 2), (1, 1), (1, 2), 6),       # strided and dilated
    # channel-last planes copied a block of channels at a time (16; 8 for 4 KiB planes)
    (2, 24, (16, 16), 24, (3, 3), (1, 1), (1, 1), (1, 1), 24),
    (1, 12, (32, 32), 12, (3, 3), (2, 2), (1, 1), (1, 1), 12),
    (1, 3, (6, 5), 5, (1, 1), (1, 1), (0, 0), (1, 1), 1),         # pointwise
    (3, 4, (7, 7), 4, (1, 1), (2, 2), (0, 0), (1, 1), 2),         # pointwise, strided, grouped
    (1, 2, (17, 17), 3, (1, 1), (1, 1), (1, 1), (1, 1), 1),       # 1x1 with padding: im2col
    (2, 3, (18, 17), 4, (3, 3), (1, 1), (1, 1), (1, 1), 1),       # many positions per image
    (1, 5, (9, 7), 3, (3, 3), (1, 1), (0, 2, 1, 0), (1, 1), 1),
    # outputs 16 or more wide: windows copied by strided views (narrower: gathered by index)
    (1, 3, (33, 34), 4, (3, 3), (2, 2), (1, 1), (1, 1), 1),
    (2, 2, (20, 50), 3, (3, 2), (2, 3), (2, 1, 0, 2), (2, 1), 1),
    (3, 4, (18, 18), 4, (3, 3), (1, 1), (1, 1), (2, 2), 2),
    # LeNet's first layer on a batch: the filter gradient summed over blocks of the batch
    (16, 1, (28, 28), 6, (5, 5), (1, 1), (2, 2), (1, 1), 1),
]


def _kernels(geo):
    found = [Im2col(geo), GridIm2col(geo)]
    if geo.pointwise:
        found.append(Pointwise(geo))
    if geo.groups > 1 and not geo.pointwise:
        for channel_last in (False, True):
            direct = Direct(geo)
            direct.channel_last = channel_last
            found.append(direct)
    return found


@pytest.mark.parametrize("spec", GEOMETRIES, ids=lambda s: "x".join(map(str, s[:4])))
def test_every_kernel_matches_the_reference_forward_and_backward(spec):
    geo = _geo(*spec)
    x = _rng.standard_normal((geo.n, geo.c, geo.h, geo.w)).astype(np.float32)
    w = _rng.standard_normal((geo.oc, geo.c // geo.groups, geo.kh, geo.kw)).astype(np.float32)
    dout = _rng.standard_normal((geo.n, geo.oc, *geo.out_hw)).astype(np.float32)
    want, (want_dx, want_dw) = reference(x, w, geo), reference_grads(x, w, dout, geo)
    for kernel in _kernels(geo):
        name = f"{type(kernel).__name__}{'(channel last)' if getattr(kernel, 'channel_last', 0) else ''}"
        got = kernel.forward(x, w)
        assert got.shape == want.shape and got.flags.c_contiguous, name
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=name)
        dx, dw = kernel.backward(x, w, dout, (True, True))
        np.testing.assert_allclose(dx, want_dx, rtol=1e-4, atol=1e-4, err_msg=name)
        np.testing.assert_allclose(dw, want_dw, rtol=1e-4, atol=1e-4, err_msg=name)
        assert kernel.backward(x, w, dout, (False, True))[0] is None
        assert kernel.backward(x, w, dout, (True, False))[1] is None


def _channel_last_kernels(geo):
    """The kernels that read NHWC natively, a strided Direct both per column phase and not."""
    for kernel in _kernels(geo):
        if not kernel.channel_last_native:
            continue
        if isinstance(kernel, Direct) and kernel.channel_last:
            continue                    # the same kernel as channel_last=False for NHWC
        yield kernel
        if isinstance(kernel, Direct) and geo.strides[1] > 1:
            other = Direct(geo)
            other.phased = not kernel.phased
            yield other


@pytest.mark.parametrize("spec", GEOMETRIES, ids=lambda s: "x".join(map(str, s[:4])))
def test_channel_last_kernels_match_the_reference(spec):
    """NHWC in, NHWC out: contiguous inputs, and transposed views of NCHW memory (what a
    channel-last region's first op gets, copied a block of channels at a time)."""
    geo = _geo(*spec)
    x = _rng.standard_normal((geo.n, geo.c, geo.h, geo.w)).astype(np.float32)
    w = _rng.standard_normal((geo.oc, geo.c // geo.groups, geo.kh, geo.kw)).astype(np.float32)
    want = reference(x, w, geo).transpose(0, 2, 3, 1)
    for kernel in _channel_last_kernels(geo):
        for nhwc in (np.ascontiguousarray(x.transpose(0, 2, 3, 1)), x.transpose(0, 2, 3, 1)):
            got = kernel.forward_channel_last(nhwc, w)
            assert got.shape == want.shape and got.flags.c_contiguous
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4,
                                       err_msg=f"{type(kernel).__name__} "
                                               f"phased={getattr(kernel, 'phased', None)}")


def test_which_kernels_read_channel_last_natively():
    assert Pointwise(_geo(1, 4, (5, 5), 6, (1, 1), (2, 2), (0, 0), (1, 1), 1)).channel_last_native
    assert not Pointwise(_geo(1, 4, (5, 5), 6, (1, 1), (1, 1), (0, 0), (1, 1), 2)
                         ).channel_last_native                      # grouped
    assert Direct(_geo(1, 4, (5, 5), 4, (3, 3), (1, 1), (1, 1), (1, 1), 4)).channel_last_native
    assert not Direct(_geo(1, 4, (5, 5), 8, (3, 3), (1, 1), (1, 1), (1, 1), 4)
                      ).channel_last_native                         # two filters per channel
    assert not Im2col(_geo(1, 4, (5, 5), 4, (3, 3), (1, 1), (1, 1), (1, 1), 1)).channel_last_native


@pytest.mark.parametrize("spec", GEOMETRIES, ids=lambda s: "x".join(map(str, s[:4])))
def test_im2col_kernels_write_channel_last_outputs(monkeypatch, spec):
    """NCHW in (or NHWC memory seen as NCHW), NHWC out, in one group: the product taken
    transposed, never the NCHW forward and a transposing copy."""
    geo = _geo(*spec)
    x = _rng.standard_normal((geo.n, geo.c, geo.h, geo.w)).astype(np.float32)
    w = _rng.standard_normal((geo.oc, geo.c // geo.groups, geo.kh, geo.kw)).astype(np.float32)
    want = reference(x, w, geo).transpose(0, 2, 3, 1)
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    for kind in (Im2col, GridIm2col):
        assert kind(geo).writes_channel_last == (geo.groups == 1)
        if geo.groups > 1:
            continue
        for per_image in (False, True):
            kernel = kind(geo)
            if getattr(kernel, "gather", True):    # the index plan is made for one of them
                per_image = getattr(kernel, "per_image", None)
            else:
                kernel.per_image = per_image       # Im2col: per image or batch-wide
            monkeypatch.setattr(kernel, "forward", None)
            got = forward(kernel, nhwc, w, True)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4,
                                       err_msg=f"{kind.__name__} per_image={per_image}")
            np.testing.assert_allclose(kernel.forward_to_channel_last(x, w), want, rtol=1e-4,
                                       atol=1e-4)


def test_a_strided_depthwise_layer_runs_phased_on_one_large_image():
    """96 x 112 x 112, stride 2 (MobileNetV2 at 224): per column phase for one image, which
    stays in cache; one einsum over the strided windows for eight."""
    def phased(n):
        return Direct(_geo(n, 96, (112, 112), 96, (3, 3), (2, 2), (1, 1), (1, 1), 96)).phased
    assert phased(1) and not phased(8)


@pytest.mark.parametrize("oc,hw,unpacked,products", [
    (512, 2, True, [(576, 4)] * 2),      # 512 x 576 by 4: two blocks of 256 filter rows
    (256, 4, True, [(576, 16)] * 3),     # 16 columns: blocks of 86 rows, under 1M each
    (400, 2, True, [(576, 4)]),          # under a million multiply-adds: one product
    (512, 2, False, [(576, 4)]),         # no unpacked products: one product
    (64, 9, True, [(576, 81)]),          # more than 64 columns: one product (NHWC: rows
])                                       # times the filter's transpose)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_few_positions_of_a_large_filter_run_in_blocks(monkeypatch, oc, hw, unpacked,
                                                      products, layout):
    """A filter on a few output positions (ops/small_products.py, column_block): products
    in blocks of filter rows, equal to one product."""
    from pyfluid.ops import small_products
    if not unpacked:
        monkeypatch.setattr(small_products, "SMALL_PRODUCT", 0)
    geo = _geo(1, 64, (hw, hw), oc, (3, 3), (1, 1), (1, 1), (1, 1), 1)   # hw^2 x 576 by oc
    x = _rng.standard_normal((1, 64, hw, hw)).astype(np.float32)
    w = _rng.standard_normal((oc, 64, 3, 3)).astype(np.float32)
    kernel, seen = Im2col(geo), []
    matmul = np.matmul
    with monkeypatch.context() as patch:
        patch.setattr(np, "matmul", lambda *a, **k: seen.append(a[1].shape) or matmul(*a, **k))
        got = (kernel.forward(x, w) if layout == "NCHW" else
               forward(kernel, np.ascontiguousarray(x.transpose(0, 2, 3, 1)), w, True
                       ).transpose(0, 3, 1, 2))
    np.testing.assert_allclose(got, reference(x, w, geo), rtol=1e-4, atol=1e-4)
    assert seen == (products if layout == "NCHW" or hw * hw <= 64 else [(576, oc)])


@pytest.mark.parametrize("rows", [2, 64, 4096])
def test_pointwise_channel_last_few_and_many_positions(rows):
    """Few positions run in blocks of the filter, many as one product: equal results."""
    geo = _geo(rows, 512, (1, 1), 40, (1, 1), (1, 1), (0, 0), (1, 1), 1)
    x = _rng.standard_normal((rows, 512, 1, 1)).astype(np.float32)
    w = _rng.standard_normal((40, 512, 1, 1)).astype(np.float32)
    got = Pointwise(geo).forward_channel_last(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), w)
    np.testing.assert_allclose(got, reference(x, w, geo).transpose(0, 2, 3, 1), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("tile", [2, 4])
@pytest.mark.parametrize("n,c,hw,oc,pads", [(1, 3, (7, 7), 4, (1, 1)), (2, 4, (9, 12), 5, (0, 0)),
                                           (3, 2, (5, 4), 3, (2, 1, 0, 2)),
                                           (1, 16, (30, 30), 16, (1, 1)),
                                           (5, 5, (6, 6), 7, (1, 1))])
@pytest.mark.parametrize("rows_per_pass", [1, 128])       # images one by one, or together
def test_winograd_matches_the_reference(monkeypatch, tile, n, c, hw, oc, pads, rows_per_pass):
    from pyfluid.ops import winograd
    monkeypatch.setattr(winograd, "ROWS_PER_PASS", rows_per_pass)
    geo = _geo(n, c, hw, oc, (3, 3), (1, 1), pads, (1, 1), 1)
    x = _rng.standard_normal((n, c, *hw)).astype(np.float32)
    w = _rng.standard_normal((oc, c, 3, 3)).astype(np.float32)
    kernel, u = Winograd(geo, tile), transform_filter(w, tile)
    want = reference(x, w, geo)
    # rounding of the transforms: F(4x4)'s matrices hold 1/6, 1/24 and 8
    atol = (1e-5 if tile == 2 else 5e-5) * c
    np.testing.assert_allclose(kernel.forward(x, u), want, rtol=1e-4, atol=atol)
    got = kernel.forward_channel_last(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), u)
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), rtol=1e-4, atol=atol)


@pytest.mark.parametrize("shape,filt,attrs,kind", [
    ((1, 64, 56, 56), (64, 64, 1, 1), {}, Pointwise),
    ((1, 64, 56, 56), (64, 64, 3, 3), {"paddings": [1, 1]}, Im2col),
    ((1, 96, 56, 56), (96, 1, 3, 3), {"paddings": [1, 1], "groups": 96}, Direct),
    ((1, 128, 8, 8), (128, 4, 3, 3), {"paddings": [1, 1], "groups": 32}, Im2col),
    ((64, 6, 14, 14), (16, 6, 5, 5), {}, GridIm2col),                  # LeNet: narrow maps
    ((8, 3, 64, 64), (64, 3, 7, 7), {"strides": [2, 2], "paddings": [3, 3]}, GridIm2col),
    ((8, 512, 2, 2), (512, 512, 3, 3), {"paddings": [1, 1]}, Im2col),  # 2 garbage of 4
])
def test_the_kernel_is_chosen_per_layer_shape(shape, filt, attrs, kind):
    geo = geometry("conv2d", shape, filt, tuple(attrs.get("strides", (1, 1))),
                   tuple(attrs.get("paddings", (0, 0))), "EXPLICIT", (1, 1),
                   attrs.get("groups", 1))
    assert type(conv_kernel(geo)) is kind
    assert conv_kernel(geo) is conv_kernel(geo)            # decided once per shape


def test_winograd_is_chosen_where_it_pays():
    def tile(size, channels=64):
        return winograd_tile(_geo(1, channels, (size, size), channels, (3, 3), (1, 1), (1, 1),
                                  (1, 1), 1))
    assert tile(56) == 4 and tile(28) == 4 and tile(16) == 4     # F(4x4)
    assert tile(14) == 2                    # F(4x4) would pad 14 to 16 for 16 short rows
    assert tile(8) == 2 and tile(7) == 2 and tile(4) == 2        # F(2x2)
    assert tile(2) == 0                     # one tile: the larger filter costs more
    assert tile(56, channels=8) == 0                # transforms cost more than they save
    assert winograd_tile(_geo(1, 64, (28, 28), 64, (3, 3), (2, 2), (1, 1), (1, 1), 1)) == 0
    geo = _geo(1, 64, (28, 28), 64, (3, 3), (1, 1), (1, 1), (1, 1), 1)
    assert isinstance(conv_kernel(geo, 4), Winograd) and conv_kernel(geo, 4).m == 4
    assert isinstance(conv_kernel(_geo(1, 64, (5, 5), 64, (3, 3), (1, 1), (1, 1), (1, 1), 1),
                                  4), (Im2col, GridIm2col))    # the transform does not pay
    small = _geo(1, 64, (4, 4), 64, (3, 3), (1, 1), (1, 1), (1, 1), 1)
    assert not isinstance(conv_kernel(small, 2), Winograd)       # 4 tiles: too few rows
    assert isinstance(conv_kernel(small._replace(n=2), 2), Winograd)


@pytest.mark.parametrize("op_type,x_shape,w_shape,attrs", [
    ("conv2d", (2, 3, 9, 8), (4, 3, 3, 3), {"strides": [2, 1], "paddings": [1, 2]}),
    ("conv2d", (1, 4, 6, 6), (6, 2, 1, 1), {"groups": 2, "strides": [2, 2]}),
    ("depthwise_conv2d", (2, 3, 8, 8), (6, 1, 3, 3), {"groups": 3, "paddings": [1, 1],
                                                      "dilations": [2, 1]}),
    ("depthwise_conv2d", (1, 2, 22, 22), (2, 1, 3, 3), {"groups": 2, "paddings": [1, 1]}),
])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_the_ops_match_the_reference_in_both_layouts(op_type, x_shape, w_shape, attrs, layout):
    x = _rng.standard_normal(x_shape).astype(np.float32)
    w = _rng.standard_normal(w_shape).astype(np.float32)
    geo = geometry(op_type, x_shape, w_shape, tuple(attrs.get("strides", (1, 1))),
                   tuple(attrs.get("paddings", (0, 0))), "EXPLICIT",
                   tuple(attrs.get("dilations", (1, 1))), attrs.get("groups", 1))
    feed = x.transpose(0, 2, 3, 1) if layout == "NHWC" else x
    out = run_op(op_type, {"Input": feed, "Filter": w}, {**attrs, "data_format": layout})
    got = out["Output"].transpose(0, 3, 1, 2) if layout == "NHWC" else out["Output"]
    np.testing.assert_allclose(got, reference(x, w, geo), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("channel_last", [False, True])
def test_direct_accumulates_a_few_images_at_a_time(monkeypatch, channel_last):
    from pyfluid.ops import depthwise
    monkeypatch.setattr(depthwise, "ACCUMULATOR_VALUES", 1)     # one image per pass
    geo = _geo(3, 4, (9, 9), 8, (3, 3), (2, 2), (1, 1), (1, 1), 4)
    x = _rng.standard_normal((3, 4, 9, 9)).astype(np.float32)
    w = _rng.standard_normal((8, 1, 3, 3)).astype(np.float32)
    kernel = Direct(geo)
    kernel.channel_last = channel_last
    np.testing.assert_allclose(kernel.forward(x, w), reference(x, w, geo), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("image_values", [1, 1 << 30])
@pytest.mark.parametrize("stride", [1, 2])
def test_depthwise_channel_last_runs_large_images_one_at_a_time(monkeypatch, image_values,
                                                               stride):
    from pyfluid.ops import depthwise
    monkeypatch.setattr(depthwise, "CHANNEL_LAST_IMAGE", image_values)
    geo = _geo(3, 6, (10, 10), 6, (3, 3), (stride, stride), (1, 1), (1, 1), 6)
    x = _rng.standard_normal((3, 6, 10, 10)).astype(np.float32)
    w = _rng.standard_normal((6, 1, 3, 3)).astype(np.float32)
    got = Direct(geo).forward_channel_last(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), w)
    np.testing.assert_allclose(got, reference(x, w, geo).transpose(0, 2, 3, 1), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("run_values", [1, 12, 1 << 14])
def test_direct_channel_last_multiplies_rows_of_several_positions(monkeypatch, run_values):
    """One filter per channel, channel last: windows multiplied as rows of run_rows
    positions (1, a divisor of the grid, the whole grid), a few images at a time."""
    from pyfluid.ops import depthwise
    monkeypatch.setattr(depthwise, "RUN_VALUES", run_values)
    monkeypatch.setattr(depthwise, "ACCUMULATOR_VALUES", 1)
    for spec in [(3, 4, (6, 6), 4, (3, 3), (1, 1), (1, 1), (1, 1), 4),
                 (2, 3, (9, 8), 3, (3, 3), (2, 2), (1, 1), (1, 1), 3)]:
        geo = _geo(*spec)
        x = _rng.standard_normal((geo.n, geo.c, geo.h, geo.w)).astype(np.float32)
        w = _rng.standard_normal((geo.oc, 1, 3, 3)).astype(np.float32)
        kernel = Direct(geo)
        kernel.channel_last = True
        assert 1 <= kernel.run_rows <= kernel.grid and kernel.grid % kernel.run_rows == 0
        np.testing.assert_allclose(kernel.forward(x, w), reference(x, w, geo), rtol=1e-4,
                                   atol=1e-4)
