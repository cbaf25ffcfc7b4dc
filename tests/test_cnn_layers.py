"""CNN layer functions: static.nn.conv2d / batch_norm / layer_norm and nn.functional conv2d,
pools, flatten and activations build Paddle 2.6's ops, attrs and names (checked against the
Paddle-written fixtures), and compute the right values in static and dynamic mode."""
import os

import numpy as np
import pytest

import pyfluid as paddle
import pyfluid.nn.functional as F
from pyfluid.ops import get_op
from pyfluid.ops.registry import COMMON_ATTRS
from shared_fixtures import PADDLE_FIXTURES, needs_shared

FIXTURES = str(PADDLE_FIXTURES)
needs_fixtures = needs_shared


def _ops(program, skip=("feed", "fetch")):
    return [op for op in program.global_block().ops if op.type not in skip]


def _fixture(name):
    with open(os.path.join(FIXTURES, name + ".pdmodel"), "rb") as f:
        return paddle.static.Program.parse_from_string(f.read())


def _own_attrs(op):
    return {k: v for k, v in op.attrs.items() if k not in COMMON_ATTRS}


def _run(main, startup, feed, fetch):
    exe = paddle.static.Executor()
    exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch)


@needs_fixtures
def test_conv_pool_flatten_program_matches_paddle_fixture():
    ref = _ops(_fixture("convnet_small"))[:5]
    image = paddle.static.data("image", [None, 1, 12, 12], "float32")
    conv = paddle.static.nn.conv2d(image, num_filters=4, filter_size=3, padding=1, act="relu")
    paddle.flatten(F.max_pool2d(conv, kernel_size=2, stride=2), start_axis=1)
    ours = _ops(paddle.static.default_main_program())
    assert [op.type for op in ours] == [op.type for op in ref]
    for mine, theirs in zip(ours, ref):
        assert mine.inputs == theirs.inputs
        assert {k: v for k, v in mine.outputs.items() if k != "XShape"} == theirs.outputs
        assert _own_attrs(mine) == _own_attrs(theirs), mine.type
        assert set(_own_attrs(theirs)) <= set(get_op(theirs.type).attrs)
    block, ref_block = paddle.static.default_main_program().global_block(), ref[0].block
    for name in ("conv2d_0.w_0", "conv2d_0.b_0", "pool2d_0.tmp_0", "flatten_0.tmp_0",
                 "flatten_0.tmp_1"):
        assert block.var(name).shape == ref_block.var(name).shape, name


@needs_fixtures
def test_batch_norm_layer_matches_paddle_fixture():
    (ref,) = [op for op in _ops(_fixture("norm_mix")) if op.type == "batch_norm"]
    x = paddle.static.data("x", [None, 12], "float32")
    paddle.static.nn.batch_norm(x, act="sigmoid")
    (ours,) = [op for op in _ops(paddle.static.default_main_program()) if op.type == "batch_norm"]
    assert {k: v for k, v in ours.inputs.items() if k != "X"} == {
        k: v for k, v in ref.inputs.items() if k != "X" and v}
    assert {k: v for k, v in ours.outputs.items() if k != "ReserveSpace"} == ref.outputs
    assert ours.attr("is_test") is False and ref.attr("is_test") is True
    assert {**_own_attrs(ours), "is_test": True} == _own_attrs(ref)
    assert set(_own_attrs(ref)) == set(get_op("batch_norm").attrs)


def test_static_conv2d_parameters_attrs_and_op_choice():
    x = paddle.static.data("x", [None, 3, 8, 8], "float32")
    y = paddle.static.nn.conv2d(x, 6, [3, 2], stride=2, padding="same", groups=3, bias_attr=False)
    paddle.static.nn.conv2d(x, 6, 3, groups=3, use_cudnn=False, name="dw")
    nhwc = paddle.static.data("nhwc", [None, 8, 8, 3], "float32")
    z = paddle.static.nn.conv2d(nhwc, 5, 3, padding=[[0, 0], [1, 2], [0, 1], [0, 0]],
                                data_format="NHWC")
    main, startup = paddle.static.default_main_program(), paddle.static.default_startup_program()
    conv, dw, _, conv_nhwc, bias_add = _ops(main)
    assert conv.type == "conv2d" and dw.type == "depthwise_conv2d"
    assert conv.attr("padding_algorithm") == "SAME" and conv.attr("groups") == 3
    assert conv.attr("strides") == [2, 2] and tuple(y.shape) == (-1, 6, 4, 4)
    assert main.global_block().var("conv2d_0.w_0").shape == (6, 1, 3, 2)
    assert conv_nhwc.attr("paddings") == [1, 2, 0, 1] and bias_add.attr("axis") == 3
    assert tuple(z.shape) == (-1, 9, 7, 5)
    init = [op for op in _ops(startup) if op.output("Out") == ["conv2d_0.w_0"]][0]
    assert init.type == "gaussian_random"
    assert init.attr("std") == pytest.approx((2.0 / (3 * 2 * 3)) ** 0.5)
    with pytest.raises(ValueError, match="divisible by groups"):
        paddle.static.nn.conv2d(x, 4, 3, groups=2)


def test_batch_norm_layer_updates_running_stats_and_test_clone_uses_them():
    x = paddle.static.data("x", [None, 3, 2, 2], "float32")
    y = paddle.static.nn.batch_norm(x, momentum=0.5)
    main, startup = paddle.static.default_main_program(), paddle.static.default_startup_program()
    test_program = main.clone(for_test=True)
    assert [p.name for p in main.all_parameters()] == [
        "batch_norm_0.w_0", "batch_norm_0.b_0", "batch_norm_0.w_1", "batch_norm_0.w_2"]
    assert main.global_block().var("batch_norm_0.w_1").trainable is False
    batches = [np.random.rand(4, 3, 2, 2).astype("float32") * (i + 1) for i in range(2)]
    exe = paddle.static.Executor()
    exe.run(startup)
    mean, var = np.zeros(3), np.ones(3)
    for batch in batches:
        exe.run(main, feed={"x": batch}, fetch_list=[y])
        mean = 0.5 * mean + 0.5 * batch.mean(axis=(0, 2, 3))
        var = 0.5 * var + 0.5 * batch.var(axis=(0, 2, 3))
    scope = paddle.static.global_scope()
    np.testing.assert_allclose(np.array(scope.find_var("batch_norm_0.w_1").get_tensor()), mean,
                               rtol=1e-5)
    np.testing.assert_allclose(np.array(scope.find_var("batch_norm_0.w_2").get_tensor()), var,
                               rtol=1e-5)
    assert [op.attr("is_test") for op in _ops(test_program)] == [True]
    (out,) = exe.run(test_program, feed={"x": batches[0]}, fetch_list=[y.name])
    expected = (batches[0] - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_layer_norm_layer():
    x = paddle.static.data("x", [None, 3, 4], "float32")
    y = paddle.static.nn.layer_norm(x, begin_norm_axis=1, act="relu")
    main = paddle.static.default_main_program()
    assert [op.type for op in _ops(main)] == ["layer_norm", "relu"]
    assert main.global_block().var("layer_norm_0.w_0").shape == (12,)
    assert _ops(main)[0].output("Y") == ["layer_norm_0.tmp_2"]
    data = np.random.rand(2, 3, 4).astype("float32")
    (out,) = _run(main, paddle.static.default_startup_program(), {"x": data}, [y])
    flat = data.reshape(2, -1)
    ref = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, np.maximum(ref, 0).reshape(2, 3, 4), rtol=1e-4, atol=1e-5)


def test_functional_conv2d_padding_forms_bias_and_depthwise():
    x = paddle.static.data("x", [None, 2, 6, 6], "float32")
    w = paddle.static.data("w", [4, 2, 3, 3], "float32")
    b = paddle.static.data("b", [4], "float32")
    out = F.conv2d(x, w, b, stride=2, padding=[[0, 0], [0, 0], [1, 2], [0, 1]])
    F.conv2d(x, w, padding="valid")
    dw = F.conv2d(x, paddle.static.data("dw", [4, 1, 3, 3], "float32"), groups=2, padding=1)
    conv, reshape, add, valid, depthwise = _ops(paddle.static.default_main_program())
    assert conv.attr("paddings") == [1, 2, 0, 1] and conv.attr("padding_algorithm") == "EXPLICIT"
    # as Paddle 2.6: the bias reshaped to [1, C, 1, 1], then added with axis -1
    assert reshape.type == "reshape2" and reshape.attr("shape") == [1, 4, 1, 1]
    assert add.type == "elementwise_add" and add.attr("axis") == -1
    assert add.input("Y") == ["reshape2_0.tmp_0"]
    assert out.name == "conv2d_0.tmp_1" and tuple(out.shape) == (-1, 4, 4, 3)
    assert valid.attr("padding_algorithm") == "VALID" and depthwise.type == "depthwise_conv2d"
    assert tuple(dw.shape) == (-1, 4, 6, 6)
    with pytest.raises(ValueError, match="Non-zero padding"):
        F.conv2d(x, w, padding=[[0, 1], [0, 0], [1, 1], [1, 1]])


def test_functional_pools():
    x = paddle.static.data("x", [None, 3, 7, 5], "float32")
    F.max_pool2d(x, 3, ceil_mode=True)
    avg = F.avg_pool2d(x, [2, 2], stride=1, padding=1, exclusive=False, divisor_override=2)
    ada = F.adaptive_avg_pool2d(x, [None, 2])
    mx, av, scale, ad = _ops(paddle.static.default_main_program())
    assert mx.attr("strides") == [3, 3] and mx.attr("ceil_mode") is True
    assert mx.attr("pooling_type") == "max" and mx.attr("use_cudnn") is True
    assert av.attr("exclusive") is False and scale.type == "scale" and scale.attr("scale") == 2.0
    assert ad.attr("adaptive") is True and ad.attr("ksize") == [7, 2]
    assert tuple(ada.shape) == (-1, 3, 7, 2) and tuple(avg.shape) == (-1, 3, 8, 6)
    with pytest.raises(ValueError, match="ceil_mode"):
        F.max_pool2d(x, 2, padding="VALID", ceil_mode=True)


def test_functional_flatten_and_activations_names_and_attrs():
    x = paddle.static.data("x", [None, 2, 3], "float32")
    flat = paddle.flatten(x, start_axis=1)
    F.gelu(flat, approximate=True)
    hs = F.hardswish(flat)
    F.leaky_relu(flat, 0.2)
    flatten, gelu, hard_swish, leaky = _ops(paddle.static.default_main_program())
    assert flatten.output("XShape") == ["flatten_0.tmp_1"] and flat.name == "flatten_0.tmp_0"
    assert flatten.attr("stop_axis") == 2 and tuple(flat.shape) == (-1, 6)
    assert gelu.attr("approximate") is True and hs.name == "hardswish_0.tmp_0"
    assert hard_swish.type == "hard_swish" and hard_swish.attr("offset") == 3.0
    assert leaky.attr("alpha") == pytest.approx(0.2)
    with pytest.raises(ValueError, match="stop_axis"):
        paddle.flatten(x, start_axis=2, stop_axis=1)


def test_functional_cnn_in_dynamic_mode_matches_static_and_backpropagates():
    x = np.random.rand(2, 3, 6, 6).astype("float32")
    w = np.random.rand(4, 3, 3, 3).astype("float32")

    def net(xv, wv):
        return F.gelu(paddle.flatten(F.max_pool2d(F.conv2d(xv, wv, padding=1), 2), 1))

    xs, ws = paddle.static.data("x", [2, 3, 6, 6], "float32"), paddle.static.data("w", [4, 3, 3, 3])
    (static_out,) = _run(paddle.static.default_main_program(), paddle.static.Program(),
                         {"x": x, "w": w}, [net(xs, ws)])
    paddle.disable_static()
    xt, wt = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
    out = net(xt, wt)
    paddle.sum(out).backward()
    np.testing.assert_allclose(out.numpy(), static_out, rtol=1e-6)
    assert xt.grad.shape == [2, 3, 6, 6] and wt.grad.shape == [4, 3, 3, 3]
