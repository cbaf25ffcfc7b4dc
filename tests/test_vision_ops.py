"""conv3d, conv2d_transpose / depthwise_conv2d_transpose, max_pool2d_with_index, pad, pad3d,
group_norm and instance_norm against NumPy references written from Paddle's kernel
definitions (loops over pixels); shapes inferred with unknown (-1) dims; errors."""
import itertools

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.framework.errors import ShapeError
from pyfluid.ops import get_op
from test_cnn_ops import run_op

_rng = np.random.default_rng(9)


def u(*shape):
    return _rng.uniform(-1, 1, size=shape).astype("float32")


def infer(op_type, inputs: dict, attrs: dict, outputs=("Out",)):
    """Inferred output shapes of one op on static inputs of the given shapes."""
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        block = paddle.static.default_main_program().global_block()
        ins = {slot: [paddle.static.data(f"{slot}_{i}", shape, dtype)
                      for i, (shape, dtype) in enumerate(v if isinstance(v, list) else [v])]
               for slot, v in inputs.items()}
        outs = {s.name: [block.create_var(name=f"out_{s.name}")]
                for s in get_op(op_type).outputs if s.name in outputs or not s.dispensable}
        block.append_op(type=op_type, inputs=ins, outputs=outs, attrs=attrs)
    return tuple(outs[slot][0].shape for slot in outputs)


# -- conv3d ---------------------------------------------------------------------------------------
def ref_conv3d(x, w, strides, pads, dilations, groups):
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1]) for i in range(3)])
    oc, cg = w.shape[:2]
    ext = [d * (k - 1) + 1 for d, k in zip(dilations, w.shape[2:])]
    out_size = [(xp.shape[2 + i] - ext[i]) // strides[i] + 1 for i in range(3)]
    out = np.zeros((x.shape[0], oc, *out_size))
    for o in range(oc):
        g = o // (oc // groups)
        for pos in itertools.product(*map(range, out_size)):
            window = tuple(slice(p * s, p * s + e, d)
                           for p, s, e, d in zip(pos, strides, ext, dilations))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + window]
            out[(slice(None), o) + pos] = (patch * w[o]).sum(axis=(1, 2, 3, 4))
    return out


@pytest.mark.parametrize("w_shape,attrs,pads", [
    ((6, 4, 3, 3, 3), {}, [0] * 6),
    ((6, 2, 2, 3, 2), {"groups": 2, "strides": [1, 2, 2], "paddings": [1, 0, 1],
                       "dilations": [2, 1, 1]}, [1, 1, 0, 0, 1, 1]),
    ((4, 4, 1, 2, 1), {"paddings": [1, 0, 0, 1, 2, 0]}, [1, 0, 0, 1, 2, 0]),
])
def test_conv3d_matches_reference_in_both_layouts(w_shape, attrs, pads):
    x, w = u(2, 4, 5, 6, 7), u(*w_shape)
    expected = ref_conv3d(x.astype("f8"), w.astype("f8"), attrs.get("strides", [1, 1, 1]), pads,
                          attrs.get("dilations", [1, 1, 1]), attrs.get("groups", 1))
    out = run_op("conv3d", {"Input": x, "Filter": w}, attrs)["Output"]
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    ndhwc = run_op("conv3d", {"Input": np.ascontiguousarray(x.transpose(0, 2, 3, 4, 1)),
                              "Filter": w}, {**attrs, "data_format": "NDHWC"})["Output"]
    np.testing.assert_allclose(ndhwc.transpose(0, 4, 1, 2, 3), expected, rtol=1e-4, atol=1e-4)


def test_conv3d_shapes_and_errors():
    assert infer("conv3d", {"Input": ([-1, 2, -1, 8, 9], "float32"),
                            "Filter": ([4, 2, 3, 3, 3], "float32")},
                 {"strides": [1, 2, 2], "paddings": [1, 1, 1]}, ["Output"]) == \
        ((-1, 4, -1, 4, 5),)
    with pytest.raises(ShapeError, match="input's channels should be equal to filter's "
                                         "channels \\* groups"):
        infer("conv3d", {"Input": ([1, 3, 4, 4, 4], "float32"),
                         "Filter": ([4, 2, 3, 3, 3], "float32")}, {}, ["Output"])


# -- conv2d_transpose ------------------------------------------------------------------------------
def ref_conv_transpose(x, w, strides, pads, dilations, groups, out_hw):
    n, c, h, wd = x.shape
    ocg, kh, kw = w.shape[1:]
    big = np.zeros((n, ocg * groups, (h - 1) * strides[0] + dilations[0] * (kh - 1) + 1
                    + pads[0] + out_hw[0], (wd - 1) * strides[1] + dilations[1] * (kw - 1) + 1
                    + pads[2] + out_hw[1]))
    for ci, i, j, a, b in itertools.product(range(c), range(h), range(wd), range(kh), range(kw)):
        g = ci // (c // groups)
        big[:, g * ocg:(g + 1) * ocg, i * strides[0] + a * dilations[0],
            j * strides[1] + b * dilations[1]] += x[:, ci, i, j, None] * w[ci, :, a, b]
    return big[:, :, pads[0]:pads[0] + out_hw[0], pads[2]:pads[2] + out_hw[1]]


@pytest.mark.parametrize("op_type,w_shape,attrs,pads,out_hw", [
    ("conv2d_transpose", (4, 3, 3, 3), {}, [0, 0, 0, 0], (7, 8)),
    ("conv2d_transpose", (4, 3, 3, 3), {"strides": [2, 2], "paddings": [1, 1],
                                        "output_padding": [1, 1]}, [1, 1, 1, 1], (10, 12)),
    ("conv2d_transpose", (4, 2, 2, 3), {"groups": 2, "strides": [2, 1],
                                        "paddings": [1, 0, 0, 2], "dilations": [1, 2]},
     [1, 0, 0, 2], (9, 8)),
    ("conv2d_transpose", (4, 3, 3, 3), {"strides": [2, 2], "output_size": [12, 14]},
     [0, 0, 0, 0], (12, 14)),
    ("depthwise_conv2d_transpose", (4, 1, 3, 3), {"groups": 4, "strides": [2, 2],
                                                  "padding_algorithm": "SAME"},
     [1, 1, 0, 1], (9, 12)),
    ("conv2d_transpose", (4, 2, 3, 3), {"strides": [3, 2], "padding_algorithm": "VALID",
                                        "paddings": [5, 5]}, [0, 0, 0, 0], (15, 13)),
])
def test_conv2d_transpose_matches_reference(op_type, w_shape, attrs, pads, out_hw):
    x, w = u(2, 4, 5, 6), u(*w_shape)
    expected = ref_conv_transpose(x.astype("f8"), w.astype("f8"), attrs.get("strides", [1, 1]),
                                  pads, attrs.get("dilations", [1, 1]), attrs.get("groups", 1),
                                  out_hw)
    out = run_op(op_type, {"Input": x, "Filter": w}, attrs)["Output"]
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    nhwc = run_op(op_type, {"Input": np.ascontiguousarray(x.transpose(0, 2, 3, 1)), "Filter": w},
                  {**attrs, "data_format": "NHWC"})["Output"]
    np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), expected, rtol=1e-4, atol=1e-4)


def test_conv2d_transpose_shapes_and_errors():
    def shape(x_shape, attrs):
        return infer("conv2d_transpose", {"Input": (x_shape, "float32"),
                                          "Filter": ([4, 3, 3, 3], "float32")},
                     attrs, ["Output"])[0]
    assert shape([-1, 4, 8, -1], {"strides": [2, 2], "paddings": [1, 1],
                                  "output_padding": [1, 1]}) == (-1, 3, 16, -1)
    assert shape([-1, 4, -1, -1], {"output_size": [11, 12], "strides": [2, 2]}) == \
        (-1, 3, 11, 12)
    with pytest.raises(ShapeError, match="must lie in \\[17, 19\\)"):
        shape([1, 4, 8, 8], {"output_size": [20, 17], "strides": [2, 2]})
    with pytest.raises(ShapeError, match="output_padding .* less than either stride"):
        shape([1, 4, 8, 8], {"output_padding": [2, 0], "strides": [2, 2]})
    with pytest.raises(ShapeError, match="number of input channels should be equal to filter "
                                         "channels"):
        shape([1, 3, 8, 8], {})


# -- max_pool2d_with_index ---------------------------------------------------------------------
def ref_max_pool_with_index(x, k, s, p, adaptive):
    n, c, h, w = x.shape
    oh, ow = k if adaptive else ((h - k[0] + 2 * p[0]) // s[0] + 1, (w - k[1] + 2 * p[1]) // s[1] + 1)
    out, mask = np.zeros((n, c, oh, ow), x.dtype), np.zeros((n, c, oh, ow), "int32")
    for i, j in itertools.product(range(oh), range(ow)):
        if adaptive:
            h0, h1, w0, w1 = i * h // oh, -(-(i + 1) * h // oh), j * w // ow, -(-(j + 1) * w // ow)
        else:
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1, h0, w0 = min(h0 + k[0], h), min(w0 + k[1], w), max(h0, 0), max(w0, 0)
        window = x[:, :, h0:h1, w0:w1].reshape(n, c, -1)
        first = window.argmax(axis=-1)          # the first maximum in row-major order
        out[:, :, i, j] = window.max(axis=-1)
        mask[:, :, i, j] = (h0 + first // (w1 - w0)) * w + w0 + first % (w1 - w0)
    return out, mask


@pytest.mark.parametrize("k,s,p,adaptive", [
    ([2, 2], [2, 2], [0, 0], False), ([3, 3], [2, 2], [1, 1], False),
    ([3, 2], [1, 2], [1, 0], False), ([3, 4], [1, 1], [0, 0], True), ([5, 5], [1, 1], [0, 0], True),
])
def test_max_pool2d_with_index_matches_reference(k, s, p, adaptive):
    x = np.round(u(2, 3, 7, 9), 1)                 # ties: the first maximum wins
    got = run_op("max_pool2d_with_index", {"X": x}, {"ksize": k, "strides": s, "paddings": p,
                                                     "adaptive": adaptive})
    out, mask = ref_max_pool_with_index(x, k, s, p, adaptive)
    np.testing.assert_array_equal(got["Out"], out)
    np.testing.assert_array_equal(got["Mask"], mask)
    assert got["Mask"].dtype == np.int32


def test_max_pool2d_with_index_shapes():
    assert infer("max_pool2d_with_index", {"X": ([-1, 3, 8, -1], "float32")},
                 {"ksize": [2, 2], "strides": [2, 2]}, ["Out", "Mask"]) == \
        ((-1, 3, 4, -1), (-1, 3, 4, -1))
    assert infer("max_pool2d_with_index", {"X": ([-1, 3, -1, -1], "float32")},
                 {"ksize": [3, 3], "adaptive": True}, ["Out"]) == ((-1, 3, 3, 3),)
    assert infer("max_pool2d_with_index", {"X": ([2, 3, 8, 6], "float32")},
                 {"ksize": [1, 1], "global_pooling": True}, ["Out"]) == ((2, 3, 1, 1),)


# -- pad / pad3d ----------------------------------------------------------------------------------
def test_pad_matches_numpy_and_infers_shapes():
    x = u(2, 3, 4)
    out = run_op("pad", {"X": x}, {"paddings": [0, 1, 2, 0, 1, 3], "pad_value": 0.5})["Out"]
    np.testing.assert_array_equal(out, np.pad(x, [(0, 1), (2, 0), (1, 3)], constant_values=0.5))
    assert infer("pad", {"X": ([-1, 3], "float32")}, {"paddings": [1, 2, 0, 1]}) == ((-1, 4),)
    with pytest.raises(ShapeError, match="should >= 0, but received -1 for index 3"):
        infer("pad", {"X": ([2, 3], "float32")}, {"paddings": [1, 2, 0, -1]})


NUMPY_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
               "circular": "wrap"}


@pytest.mark.parametrize("mode", NUMPY_MODES)
@pytest.mark.parametrize("data_format", ["NCDHW", "NDHWC"])
def test_pad3d_matches_numpy(mode, data_format):
    x, p = u(2, 2, 3, 4, 5), [1, 2, 0, 1, 2, 1]            # W, H, D pairs
    widths = [(0, 0), (0, 0), (p[4], p[5]), (p[2], p[3]), (p[0], p[1])]
    expected = np.pad(x, widths, mode=NUMPY_MODES[mode],
                      **({"constant_values": 0.25} if mode == "constant" else {}))
    if data_format == "NDHWC":
        x, expected = x.transpose(0, 2, 3, 4, 1), expected.transpose(0, 2, 3, 4, 1)
    out = run_op("pad3d", {"X": np.ascontiguousarray(x)}, {"paddings": p, "mode": mode,
                                                           "value": 0.25,
                                                           "data_format": data_format})["Out"]
    np.testing.assert_allclose(out, expected)


def test_pad3d_paddings_tensor_and_negative_constant_padding_crop():
    x = u(1, 1, 2, 3, 4)
    out = run_op("pad3d", {"X": x, "Paddings": np.array([1, -1, 0, 1, 1, 0], "int32")},
                 {"paddings": [0] * 6, "value": 9.0})["Out"]
    expected = np.pad(x[..., :3], [(0, 0), (0, 0), (1, 0), (0, 1), (1, 0)], constant_values=9.0)
    np.testing.assert_array_equal(out, expected)


def test_pad3d_circular_wraps_beyond_the_input_size():
    x = np.arange(4, dtype="float32").reshape(1, 1, 1, 1, 4)
    out = run_op("pad3d", {"X": x}, {"paddings": [5, 2, 0, 0, 0, 0], "mode": "circular"})["Out"]
    np.testing.assert_array_equal(out.ravel(), [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1])


def test_pad3d_shapes_and_errors():
    assert infer("pad3d", {"X": ([1, -1, 2, -1, 4], "float32")},
                 {"paddings": [1, 2, 0, 1, 1, 0]}) == ((1, -1, 3, -1, 7),)
    assert infer("pad3d", {"X": ([1, 2, 2, 3, 4], "float32"), "Paddings": ([6], "int32")},
                 {"paddings": []}) == ((1, 2, -1, -1, -1),)
    with pytest.raises(ShapeError, match="size of paddings should be equal to 6"):
        infer("pad3d", {"X": ([1, 1, 2, 3, 4], "float32")}, {"paddings": [1, 2, 0, 1, 1]})
    with pytest.raises(ShapeError, match="mode must be one of"):
        infer("pad3d", {"X": ([1, 1, 2, 3, 4], "float32")}, {"paddings": [0] * 6,
                                                            "mode": "bad"})
    with pytest.raises(Exception, match="width of Input\\(X\\)'s dimension should be greater "
                                        "than its paddings in reflect mode"):
        run_op("pad3d", {"X": u(1, 1, 2, 3, 4)}, {"paddings": [4, 0, 0, 0, 0, 0],
                                                  "mode": "reflect"})


# -- group_norm / instance_norm ----------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 6, 3, 4), (2, 6, 5), (2, 6)])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_group_norm_matches_reference(shape, layout):
    x, scale, bias = u(*shape), u(6) + 1.5, u(6)
    grouped = x.astype("f8").reshape(2, 3, -1)
    mean, var = grouped.mean(axis=2), grouped.var(axis=2)
    y = ((grouped - mean[..., None]) / np.sqrt(var[..., None] + 1e-5)).reshape(shape)
    y = y * scale.reshape((1, 6) + (1,) * (len(shape) - 2)) + \
        bias.reshape((1, 6) + (1,) * (len(shape) - 2))
    if layout == "NHWC":
        x, y = np.moveaxis(x, 1, -1), np.moveaxis(y, 1, -1)
    out = run_op("group_norm", {"X": np.ascontiguousarray(x), "Scale": scale, "Bias": bias},
                 {"groups": 3, "data_layout": layout})
    np.testing.assert_allclose(out["Y"], y, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["Mean"], mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["Variance"], var, rtol=1e-4, atol=1e-6)


def test_group_norm_shapes_and_errors():
    assert infer("group_norm", {"X": ([-1, 8, -1, -1], "float32")}, {"groups": 4},
                 ["Y", "Mean", "Variance"]) == ((-1, 8, -1, -1), (-1, 4), (-1, 4))
    with pytest.raises(ShapeError, match="must be less than or equal to the number of channels"):
        infer("group_norm", {"X": ([2, 4, 3], "float32")}, {"groups": 8}, ["Y"])
    with pytest.raises(ShapeError, match="divisible by num_groups"):
        infer("group_norm", {"X": ([2, 6, 3], "float32")}, {"groups": 4}, ["Y"])


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 4), (2, 3, 2, 2, 2)])
def test_instance_norm_matches_reference(shape):
    x, scale, bias = u(*shape), u(3) + 1.5, u(3)
    axes = tuple(range(2, len(shape)))
    mean, var = x.astype("f8").mean(axis=axes, keepdims=True), x.astype("f8").var(axis=axes,
                                                                                 keepdims=True)
    view = (1, 3) + (1,) * (len(shape) - 2)
    out = run_op("instance_norm", {"X": x, "Scale": scale, "Bias": bias}, {})
    np.testing.assert_allclose(out["Y"], (x - mean) / np.sqrt(var + 1e-5) * scale.reshape(view)
                               + bias.reshape(view), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["SavedMean"], mean.ravel(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["SavedVariance"], 1 / np.sqrt(var.ravel() + 1e-5), rtol=1e-4)


def test_instance_norm_shapes():
    assert infer("instance_norm", {"X": ([-1, 4, 8, 8], "float32")}, {},
                 ["Y", "SavedMean"]) == ((-1, 4, 8, 8), (-1,))
    assert infer("instance_norm", {"X": ([2, 4, 8], "float32")}, {}, ["SavedVariance"]) == \
        ((8,),)
