"""CNN / inference ops run through the Executor against straightforward NumPy references
(loops over pixels, written from Paddle's kernel definitions), one case per attribute variant;
inferred shapes must equal the computed ones."""
import math

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.ops import get_op
from pyfluid.ops.pool_kernels import pool_kernel

_rng = np.random.default_rng(7)


def u(*shape):
    return _rng.uniform(-1, 1, size=shape).astype("float32")


def run_op(op_type, inputs, attrs, n_outputs=None):
    """Run one op on fed inputs; return {output slot: array (list for duplicable)}. Inferred
    output shapes must agree with the computed ones (-1 where unknown before running)."""
    opdef = get_op(op_type)
    main = paddle.static.Program()
    feed, fetch, slots = {}, [], []
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        in_vars = {}
        for slot, value in inputs.items():
            values = value if isinstance(value, list) else [value]
            in_vars[slot] = []
            for i, array in enumerate(values):
                name = f"{slot.lower()}_{i}"
                in_vars[slot].append(paddle.static.data(name, list(array.shape), array.dtype.name))
                feed[name] = array
        out_vars = {}
        for s in opdef.outputs:
            count = n_outputs if s.duplicable else 1
            out_vars[s.name] = [block.create_var(name=f"out_{s.name.lower()}_{i}")
                                for i in range(count)]
        block.append_op(type=op_type, inputs=in_vars, outputs=out_vars, attrs=attrs)
    for slot, vs in out_vars.items():
        if slot != "ReserveSpace":
            fetch += vs
            slots += [slot] * len(vs)
    values = paddle.static.Executor().run(main, feed=feed, fetch_list=fetch)
    result = {}
    for slot, var, value in zip(slots, fetch, values):
        inferred = tuple(var.shape)
        assert len(inferred) == value.ndim and all(
            a in (-1, b) for a, b in zip(inferred, value.shape)), f"{op_type}.{slot}: {inferred}"
        if opdef.slot(slot, outputs=True).duplicable:
            result.setdefault(slot, []).append(value)
        else:
            result[slot] = value
    return result


# -- conv2d ------------------------------------------------------------------------------------
def ref_conv2d(x, w, strides, pads, dilations, groups):
    """NCHW convolution by loops; ``pads`` = [top, bottom, left, right]."""
    n, c, h, wd = x.shape
    oc, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    ext_h, ext_w = dilations[0] * (kh - 1) + 1, dilations[1] * (kw - 1) + 1
    oh = (h + pads[0] + pads[1] - ext_h) // strides[0] + 1
    ow = (wd + pads[2] + pads[3] - ext_w) // strides[1] + 1
    out = np.zeros((n, oc, oh, ow), dtype=np.float64)
    for o in range(oc):
        g = o // (oc // groups)
        for i in range(oh):
            for j in range(ow):
                top, left = i * strides[0], j * strides[1]
                patch = xp[:, g * cg:(g + 1) * cg, top:top + ext_h:dilations[0],
                           left:left + ext_w:dilations[1]]
                out[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    return out


def same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return [total // 2, total - total // 2]


CONV_CASES = [  # (x shape, w shape, attrs, effective pads, effective dilations)
    ((2, 3, 7, 7), (4, 3, 3, 3), {}, [0, 0, 0, 0], [1, 1]),
    ((2, 3, 7, 6), (4, 3, 3, 3), {"paddings": [1, 2], "strides": [2, 1]}, [1, 1, 2, 2], [1, 1]),
    ((1, 2, 6, 7), (3, 2, 2, 3), {"paddings": [0, 1, 2, 1]}, [0, 1, 2, 1], [1, 1]),
    ((1, 2, 9, 9), (2, 2, 3, 3), {"dilations": [2, 3], "paddings": [1, 1]}, [1, 1, 1, 1], [2, 3]),
    ((1, 2, 7, 8), (3, 2, 3, 2), {"padding_algorithm": "SAME", "strides": [2, 3],
                                  "dilations": [2, 2], "paddings": [5, 5]},
     same_pads(7, 3, 2) + same_pads(8, 2, 3), [1, 1]),
    ((1, 2, 7, 7), (3, 2, 3, 3), {"padding_algorithm": "VALID", "paddings": [2, 2],
                                  "strides": [2, 2]}, [0, 0, 0, 0], [1, 1]),
    ((2, 4, 5, 5), (6, 2, 3, 3), {"groups": 2, "paddings": [1, 1]}, [1, 1, 1, 1], [1, 1]),
]


@pytest.mark.parametrize("x_shape,w_shape,attrs,pads,dilations", CONV_CASES)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_conv2d_matches_reference(x_shape, w_shape, attrs, pads, dilations, layout):
    x, w = u(*x_shape), u(*w_shape)
    expected = ref_conv2d(x, w, attrs.get("strides", [1, 1]), pads, dilations,
                          attrs.get("groups", 1))
    feed_x = x.transpose(0, 2, 3, 1) if layout == "NHWC" else x
    out = run_op("conv2d", {"Input": feed_x, "Filter": w}, {**attrs, "data_format": layout})
    got = out["Output"].transpose(0, 3, 1, 2) if layout == "NHWC" else out["Output"]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_depthwise_conv2d_matches_reference():
    x, w = u(2, 3, 6, 6), u(6, 1, 3, 3)
    out = run_op("depthwise_conv2d", {"Input": x, "Filter": w},
                 {"groups": 3, "paddings": [1, 1], "strides": [2, 2]})
    np.testing.assert_allclose(out["Output"], ref_conv2d(x, w, [2, 2], [1, 1, 1, 1], [1, 1], 3),
                               rtol=1e-5, atol=1e-5)


def test_conv2d_shape_errors_name_the_problem():
    with pytest.raises(Exception, match="input's channels is 3.*groups is 2"):
        run_op("conv2d", {"Input": u(1, 3, 5, 5), "Filter": u(2, 2, 3, 3)}, {"groups": 2})
    with pytest.raises(Exception, match="output size must be greater than 0"):
        run_op("conv2d", {"Input": u(1, 1, 2, 2), "Filter": u(1, 1, 3, 3)}, {})
    with pytest.raises(Exception, match="padding_algorithm must be one of"):
        run_op("conv2d", {"Input": u(1, 1, 4, 4), "Filter": u(1, 1, 3, 3)},
               {"padding_algorithm": "FULL"})


# -- pool2d ------------------------------------------------------------------------------------
def ref_pool2d(x, ksize, strides, pad_top, pad_left, out_hw, pooling_type, exclusive, adaptive):
    """Paddle's Pool2dFunctor, pixel by pixel."""
    n, c, h, w = x.shape
    out = np.zeros((n, c) + tuple(out_hw))
    for i in range(out_hw[0]):
        for j in range(out_hw[1]):
            if adaptive:
                h0, h1 = i * h // out_hw[0], math.ceil((i + 1) * h / out_hw[0])
                w0, w1 = j * w // out_hw[1], math.ceil((j + 1) * w / out_hw[1])
                size = (h1 - h0) * (w1 - w0)
            else:
                h0, w0 = i * strides[0] - pad_top, j * strides[1] - pad_left
                h1, w1 = min(h0 + ksize[0], h + pad_top), min(w0 + ksize[1], w + pad_left)
                size = (h1 - h0) * (w1 - w0)
                h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
                if exclusive:
                    size = (h1 - h0) * (w1 - w0)
            window = x[:, :, h0:h1, w0:w1]
            out[:, :, i, j] = (window.max(axis=(2, 3)) if pooling_type == "max"
                               else window.sum(axis=(2, 3)) / size)
    return out


POOL_CASES = [  # (x shape, attrs, (ksize, strides, pad_top, pad_left) used, output hw)
    ((2, 3, 7, 7), {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
     ([3, 3], [2, 2], 1, 1), (4, 4)),
    ((1, 2, 6, 6), {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1], "ceil_mode": True},
     ([3, 3], [2, 2], 1, 1), (4, 4)),
    ((1, 2, 6, 6), {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
     ([3, 3], [2, 2], 1, 1), (3, 3)),
    ((1, 2, 5, 5), {"ksize": [2, 2], "strides": [2, 2], "paddings": [0, 1, 1, 0]},
     ([2, 2], [2, 2], 0, 1), (3, 3)),
    ((1, 2, 5, 6), {"ksize": [3, 2], "strides": [2, 2], "padding_algorithm": "SAME"},
     ([3, 2], [2, 2], 1, 0), (3, 3)),
    ((1, 2, 5, 5), {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1],
                    "padding_algorithm": "VALID"}, ([3, 3], [2, 2], 0, 0), (2, 2)),
    ((2, 3, 4, 5), {"ksize": [2, 2], "global_pooling": True, "paddings": [1, 1]},
     ([4, 5], [1, 1], 0, 0), (1, 1)),
    # windows tiling the input exactly: stride phases as views (disjoint, then overlapping)
    ((2, 3, 6, 4), {"ksize": [2, 2], "strides": [2, 2]}, ([2, 2], [2, 2], 0, 0), (3, 2)),
    ((1, 2, 5, 6), {"ksize": [3, 2], "strides": [1, 2]}, ([3, 2], [1, 2], 0, 0), (3, 3)),
]


@pytest.mark.parametrize("x_shape,attrs,geometry,out_hw", POOL_CASES)
@pytest.mark.parametrize("pooling_type,exclusive", [("max", True), ("avg", True), ("avg", False)])
def test_pool2d_matches_reference(x_shape, attrs, geometry, out_hw, pooling_type, exclusive):
    x = u(*x_shape)
    out = run_op("pool2d", {"X": x}, {**attrs, "pooling_type": pooling_type,
                                      "exclusive": exclusive})["Out"]
    assert out.shape[2:] == out_hw
    expected = ref_pool2d(x, *geometry, out_hw, pooling_type, exclusive, False)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("x_shape", [(1, 1, 2, 2), (2, 3, 4, 6), (3, 2, 8, 4), (1, 4, 10, 12)])
def test_stem_max_pool_matches_padded_windows(x_shape):
    """3x3/2 windows padded by one (ResNet's stem), by separable passes: negative inputs, so
    a window that took a padding value or a neighbouring plane's value would show."""
    x = np.random.RandomState(7).randn(*x_shape).astype("float32") - 3
    attrs = {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1], "pooling_type": "max"}
    out_hw = (x_shape[2] // 2, x_shape[3] // 2)
    assert pool_kernel(x_shape, (3, 3), (2, 2), (1, 1, 1, 1), out_hw, False, True, False).stem
    out = run_op("pool2d", {"X": x}, attrs)["Out"]
    np.testing.assert_array_equal(out, ref_pool2d(x, [3, 3], [2, 2], 1, 1, out_hw, "max",
                                                  True, False))


@pytest.mark.parametrize("pooling_type", ["max", "avg"])
@pytest.mark.parametrize("out_hw", [(3, 2), (1, 1), (5, 7), (2, 4)])
def test_adaptive_pool2d_matches_reference(pooling_type, out_hw):
    x = u(2, 3, 5, 7)
    out = run_op("pool2d", {"X": x}, {"ksize": list(out_hw), "adaptive": True,
                                      "pooling_type": pooling_type, "strides": [3, 3]})["Out"]
    expected = ref_pool2d(x, None, None, 0, 0, out_hw, pooling_type, True, True)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_pool2d_nhwc_equals_nchw():
    x = u(2, 3, 6, 5)
    attrs = {"ksize": [3, 2], "strides": [2, 1], "paddings": [1, 0], "pooling_type": "avg"}
    nchw = run_op("pool2d", {"X": x}, attrs)["Out"]
    nhwc = run_op("pool2d", {"X": x.transpose(0, 2, 3, 1)}, {**attrs, "data_format": "NHWC"})
    np.testing.assert_allclose(nhwc["Out"].transpose(0, 3, 1, 2), nchw, rtol=1e-6)


def test_max_pool2d_grad_goes_to_first_maximum_only():
    x = np.zeros((1, 1, 2, 2), dtype="float64")            # every element ties
    (dx,) = _grads_of_sum("pool2d", {"X": x}, {"ksize": [2, 2], "strides": [2, 2],
                                               "pooling_type": "max"}, ["X"])
    np.testing.assert_array_equal(dx, [[[[1.0, 0.0], [0.0, 0.0]]]])


def _grads_of_sum(op_type, inputs, attrs, wrt, n_outputs=1):
    """d sum(outputs) / d inputs through append_backward-style gradients."""
    main = paddle.static.Program()
    feed = {}
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        vars_ = {}
        for slot, value in inputs.items():
            values = value if isinstance(value, list) else [value]
            vars_[slot] = []
            for i, a in enumerate(values):
                var = paddle.static.data(f"{slot.lower()}_{i}", list(a.shape), a.dtype.name)
                var.stop_gradient = slot not in wrt
                vars_[slot].append(var)
                feed[var.name] = a
        opdef = get_op(op_type)
        outs = [block.create_var(name=f"out_{i}") for i in range(n_outputs)]
        block.append_op(type=op_type, inputs=vars_, outputs={opdef.outputs[0].name: outs},
                        attrs=attrs)
        total = paddle.add_n([paddle.sum(o) for o in outs]) if n_outputs > 1 else paddle.sum(outs[0])
        grads = paddle.static.gradients([total], [v for s in wrt for v in vars_[s]])
    return paddle.static.Executor().run(main, feed=feed, fetch_list=grads)


# -- batch_norm / layer_norm -------------------------------------------------------------------
def _bn_inputs(x_shape, c):
    return {"X": u(*x_shape), "Scale": u(c), "Bias": u(c), "Mean": u(c),
            "Variance": _rng.uniform(0.5, 1.5, c).astype("float32")}


@pytest.mark.parametrize("layout,x_shape", [("NCHW", (4, 3, 2, 5)), ("NHWC", (4, 2, 5, 3)),
                                            ("NCHW", (6, 3))])
def test_batch_norm_training_normalizes_with_batch_stats_and_updates_running_stats(layout,
                                                                                     x_shape):
    ins = _bn_inputs(x_shape, 3)
    out = run_op("batch_norm", ins, {"data_layout": layout, "momentum": 0.8, "epsilon": 1e-3})
    axis = 1 if layout == "NCHW" else len(x_shape) - 1
    axes = tuple(i for i in range(len(x_shape)) if i != axis)
    shape = [1] * len(x_shape)
    shape[axis] = 3
    mu, var = ins["X"].mean(axis=axes), ins["X"].var(axis=axes)
    y = (ins["X"] - mu.reshape(shape)) / np.sqrt(var.reshape(shape) + 1e-3)
    np.testing.assert_allclose(out["Y"], y * ins["Scale"].reshape(shape)
                               + ins["Bias"].reshape(shape), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["SavedMean"], mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["SavedVariance"], 1 / np.sqrt(var + 1e-3), rtol=1e-5)
    np.testing.assert_allclose(out["MeanOut"], 0.8 * ins["Mean"] + 0.2 * mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["VarianceOut"], 0.8 * ins["Variance"] + 0.2 * var, rtol=1e-5)


@pytest.mark.parametrize("attrs", [{"is_test": True}, {"use_global_stats": True},
                                   {"is_test": True, "trainable_statistics": False}])
def test_batch_norm_global_stats_use_running_mean_and_variance(attrs):
    ins = _bn_inputs((3, 4, 2, 2), 4)
    out = run_op("batch_norm", ins, attrs)
    shape = (1, 4, 1, 1)
    expected = ((ins["X"] - ins["Mean"].reshape(shape)) / np.sqrt(ins["Variance"].reshape(shape)
                + 1e-5) * ins["Scale"].reshape(shape) + ins["Bias"].reshape(shape))
    np.testing.assert_allclose(out["Y"], expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out["MeanOut"], ins["Mean"])
    np.testing.assert_array_equal(out["VarianceOut"], ins["Variance"])


def test_batch_norm_is_test_with_trainable_statistics_uses_batch_stats():
    ins = _bn_inputs((5, 2), 2)
    out = run_op("batch_norm", ins, {"is_test": True, "trainable_statistics": True})
    np.testing.assert_allclose(out["SavedMean"], ins["X"].mean(axis=0), rtol=1e-5)


def test_batch_norm_momentum_tensor_overrides_attr():
    ins = {**_bn_inputs((4, 2), 2), "MomentumTensor": np.array([0.5], dtype="float32")}
    out = run_op("batch_norm", ins, {"momentum": 0.9})
    np.testing.assert_allclose(out["MeanOut"], 0.5 * ins["Mean"] + 0.5 * ins["X"].mean(axis=0),
                               rtol=1e-5)


@pytest.mark.parametrize("begin,with_affine", [(1, True), (2, True), (1, False)])
def test_layer_norm_matches_reference(begin, with_affine):
    x = u(3, 4, 5)
    right = int(np.prod(x.shape[begin:]))
    ins = {"X": x, **({"Scale": u(right), "Bias": u(right)} if with_affine else {})}
    out = run_op("layer_norm", ins, {"begin_norm_axis": begin, "epsilon": 1e-5})
    x2 = x.reshape(-1, right)
    mean, var = x2.mean(axis=1), x2.var(axis=1)
    y = (x2 - mean[:, None]) / np.sqrt(var[:, None] + 1e-5)
    if with_affine:
        y = y * ins["Scale"] + ins["Bias"]
    np.testing.assert_allclose(out["Y"], y.reshape(x.shape), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["Mean"], mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["Variance"], var, rtol=1e-5, atol=1e-6)
