"""conv1d, conv1d_transpose and conv3d_transpose (functional and layers) build the program
Paddle 2.6.2 builds (unsqueeze2 + conv2d / conv2d_transpose + squeeze2 for 1-D; the same ops,
variable names, attributes and inferred shapes, recorded by
tools/paddle_references/record_vision_api_26.py from tests/conv_api_script.py) and compute
Paddle's outputs (static and eager), a direct NumPy reference's, and matching gradients;
conv2d_transpose takes eager Tensors as output_size."""
import itertools

import numpy as np
import pytest

import conv_api_script
import pyfluid as paddle
from test_vision_api import GOLDEN, assert_paddles_program

RECORD = GOLDEN.with_name("conv_api_paddle26")
RECORDED = __import__("json").loads(RECORD.with_suffix(".json").read_text())
with np.load(RECORD.with_suffix(".npz")) as _npz:
    OUTPUTS = [_npz[f"out_{i}"] for i in range(len(_npz.files))]
FEEDS = conv_api_script.feeds()
F = paddle.nn.functional


def _build():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        fetches = conv_api_script.build(paddle)
    return main, startup, fetches


@pytest.fixture
def eager():
    paddle.disable_static()
    yield
    paddle.enable_static()


def test_the_program_has_paddles_ops_names_and_attributes():
    main, _, fetches = _build()
    assert_paddles_program(main, fetches, RECORDED)


def test_inferred_shapes_are_paddles():
    block = _build()[0].global_block()
    assert {name: (list(block.var(name).shape), shape)
            for name, shape in RECORDED["shapes"].items()
            if list(block.var(name).shape) != shape} == {}


def test_static_outputs_equal_paddles():
    main, startup, fetches = _build()
    exe = paddle.static.Executor()
    exe.run(startup)
    got = exe.run(main, feed=FEEDS, fetch_list=fetches)
    assert len(got) == len(OUTPUTS)
    for i, (value, expected) in enumerate(zip(got, OUTPUTS)):
        assert value.shape == expected.shape, i
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-5, err_msg=str(i))


def test_eager_outputs_equal_paddles(eager):
    data = {k: paddle.to_tensor(v) for k, v in FEEDS.items()}
    got = conv_api_script.functional_outputs(paddle, data)
    for i, (value, expected) in enumerate(zip(got, OUTPUTS)):
        np.testing.assert_allclose(value.numpy(), expected, rtol=1e-5, atol=1e-5,
                                   err_msg=str(i))


# -- a direct NumPy reference (channel-first, explicit paddings) -------------------------------
def _conv_ref(x, w, stride, pads, dilation, groups):
    """Cross-correlation of (N, C, *S) with (M, C/g, *K); pads [before, after] per dim."""
    x = np.pad(x, [(0, 0), (0, 0)] + [tuple(pads[2 * i:2 * i + 2]) for i in range(x.ndim - 2)])
    k, cg, mg = w.shape[2:], w.shape[1], w.shape[0] // groups
    out_size = [(x.shape[2 + i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1
                for i in range(len(k))]
    out = np.zeros((x.shape[0], w.shape[0], *out_size))
    for g in range(groups):
        xs, ws = x[:, g * cg:(g + 1) * cg], w[g * mg:(g + 1) * mg]
        for tap in itertools.product(*(range(n) for n in k)):
            window = xs[(slice(None), slice(None)) + tuple(
                slice(t * d, t * d + (o - 1) * s + 1, s)
                for t, d, o, s in zip(tap, dilation, out_size, stride))]
            out[:, g * mg:(g + 1) * mg] += np.einsum("nc...,mc->nm...", window,
                                                      ws[(slice(None), slice(None)) + tap])
    return out


def _conv_transpose_ref(x, w, stride, pads, dilation, groups, out_size):
    """Every input value scattered through the (C, M/g, *K) filter, then cropped."""
    k, cg, mg = w.shape[2:], x.shape[1] // groups, w.shape[1]
    spatial = x.shape[2:]
    full = [max((s - 1) * t + d * (kk - 1) + 1, pads[2 * i] + o) for i, (s, t, d, kk, o) in
            enumerate(zip(spatial, stride, dilation, k, out_size))]
    out = np.zeros((x.shape[0], mg * groups, *full))
    for g in range(groups):
        xs, ws = x[:, g * cg:(g + 1) * cg], w[g * cg:(g + 1) * cg]
        for tap in itertools.product(*(range(n) for n in k)):
            part = np.einsum("nc...,cm->nm...", xs, ws[(slice(None), slice(None)) + tap])
            out[(slice(None), slice(g * mg, (g + 1) * mg)) + tuple(
                slice(t * d, t * d + (s - 1) * st + 1, st)
                for t, d, s, st in zip(tap, dilation, spatial, stride))] += part
    return out[(slice(None), slice(None)) + tuple(
        slice(pads[2 * i], pads[2 * i] + o) for i, o in enumerate(out_size))]


def _channel_last(a):
    return np.moveaxis(a, 1, -1)


CONV1D = [  # (C, L, M, K, groups, stride, padding [before, after], dilation, layout)
    (4, 9, 6, 3, 2, 2, [1, 1], 1, "NCL"), (4, 10, 4, 3, 4, 1, [2, 0], 2, "NLC"),
    (3, 7, 3, 2, 1, 3, [0, 1], 1, "NLC"), (2, 8, 4, 4, 2, 1, [0, 0], 2, "NCL")]


@pytest.mark.parametrize("mode", ["static", "eager"])
@pytest.mark.parametrize("case", CONV1D)
def test_conv1d_equals_numpy_reference(case, mode):
    c, length, m, k, groups, stride, pads, dilation, layout = case
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, c, length)), rng.standard_normal((m, c // groups, k))
    b = rng.standard_normal(m)
    expected = _conv_ref(x, w, [stride], pads, [dilation], groups) + b[:, None]
    feed_x = _channel_last(x) if layout == "NLC" else x
    got = _run(mode, lambda xv, wv, bv: F.conv1d(xv, wv, bv, stride=stride, padding=pads,
                                                dilation=dilation, groups=groups,
                                                data_format=layout), feed_x, w, b)
    np.testing.assert_allclose(got, _channel_last(expected) if layout == "NLC" else expected,
                               rtol=1e-5, atol=1e-5)


TRANSPOSED = [  # (fn, spatial, C, M, K, groups, stride, padding pairs, dilation, extra, layout)
    ("conv1d_transpose", [9], 4, 6, [3], 2, [2], [1, 1], [1], {"output_padding": 1}, "NCL"),
    ("conv1d_transpose", [5], 4, 4, [2], 4, [3], [1, 0], [2], {}, "NLC"),
    ("conv1d_transpose", [6], 2, 3, [3], 1, [2], [0, 0], [1], {"output_size": [14]}, "NLC"),
    ("conv3d_transpose", [3, 4, 2], 4, 6, [3, 2, 2], 2, [2, 1, 2], [1, 1, 0, 0, 1, 1],
     [1, 1, 1], {"output_padding": [1, 0, 1]}, "NCDHW"),
    ("conv3d_transpose", [2, 3, 3], 2, 4, [2, 2, 1], 1, [1, 2, 2], [0, 1, 1, 0, 0, 0],
     [2, 1, 1], {"output_size": [3, 6, 6]}, "NDHWC"),
    ("conv3d_transpose", [2, 2, 3], 3, 3, [2, 1, 2], 3, [2, 2, 1], [0, 0, 0, 0, 1, 0],
     [1, 1, 2], {}, "NDHWC")]


@pytest.mark.parametrize("mode", ["static", "eager"])
@pytest.mark.parametrize("case", TRANSPOSED)
def test_transposed_convolutions_equal_numpy_reference(case, mode):
    fn, spatial, c, m, k, groups, stride, pads, dilation, extra, layout = case
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((2, c, *spatial)), rng.standard_normal((c, m // groups, *k))
    b = rng.standard_normal(m)
    natural = [(s - 1) * t - pads[2 * i] - pads[2 * i + 1] + d * (kk - 1) + 1
               for i, (s, t, d, kk) in enumerate(zip(spatial, stride, dilation, k))]
    padding = np.asarray(extra.get("output_padding", 0)) * np.ones(len(k), int)
    out_size = extra.get("output_size", list(np.asarray(natural) + padding))
    expected = _conv_transpose_ref(x, w, stride, pads, dilation, groups, out_size)
    expected += b.reshape([-1] + [1] * len(k))
    channel_last = layout in ("NLC", "NDHWC")
    got = _run(mode, lambda xv, wv, bv: getattr(F, fn)(
        xv, wv, bv, stride=stride, padding=pads, dilation=dilation, groups=groups,
        data_format=layout, **extra), _channel_last(x) if channel_last else x, w, b)
    np.testing.assert_allclose(got, _channel_last(expected) if channel_last else expected,
                               rtol=1e-5, atol=1e-5)


def _run(mode, fn, *values):
    values = [v.astype("float32") for v in values]
    if mode == "eager":
        paddle.disable_static()
        try:
            return fn(*(paddle.to_tensor(v) for v in values)).numpy()
        finally:
            paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        names = [paddle.static.data(f"v{i}", list(v.shape), "float32")
                 for i, v in enumerate(values)]
        out = fn(*names)
    (got,) = paddle.static.Executor().run(main, feed={f"v{i}": v for i, v in
                                                      enumerate(values)}, fetch_list=[out])
    return got


GRADIENT_CASES = {
    "conv1d_nlc": lambda x, w: F.conv1d(x, w[:, :2, :3], stride=2, padding=[1, 2], groups=2,
                                        data_format="NLC"),
    "conv1d_transpose": lambda x, w: F.conv1d_transpose(
        paddle.transpose(x, [0, 2, 1]), w[:, :3, :2], stride=2, padding=1, output_padding=1,
        dilation=2, groups=2),
    "conv1d_transpose_depthwise": lambda x, w: F.conv1d_transpose(
        x, w[:, :1, :3], stride=3, groups=4, data_format="NLC"),
}


@pytest.mark.parametrize("case", GRADIENT_CASES)
def test_eager_gradients_equal_static_ones(case):
    """d sum(out * R) / d(x, w) eagerly equals the static program's (conv2d(_transpose) of the
    unsqueezed input, through unsqueeze2 / squeeze2 and assign)."""
    build, rng = GRADIENT_CASES[case], np.random.default_rng(8)
    x_value = rng.standard_normal((2, 7, 4)).astype("float32")
    w_value = rng.standard_normal((4, 3, 3)).astype("float32")
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2, 7, 4], "float32")
        w = paddle.static.data("w", [4, 3, 3], "float32")
        x.stop_gradient = w.stop_gradient = False
        out = build(x, w)
        r = paddle.static.data("r", list(out.shape), "float32")
        grads = paddle.static.gradients([paddle.sum(out * r)], [x, w])
    projection = np.cos(np.arange(int(np.prod(out.shape)))).reshape(out.shape).astype("float32")
    static = paddle.static.Executor().run(main, feed={"x": x_value, "w": w_value,
                                                      "r": projection}, fetch_list=grads)
    paddle.disable_static()
    try:
        xt = paddle.to_tensor(x_value, stop_gradient=False)
        wt = paddle.to_tensor(w_value, stop_gradient=False)
        paddle.sum(build(xt, wt) * paddle.to_tensor(projection)).backward()
        eager = [xt.grad.numpy(), wt.grad.numpy()]
    finally:
        paddle.enable_static()
    for mine, theirs in zip(eager, static):
        assert np.abs(theirs).sum() > 0
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5)


def test_conv3d_transpose_shape_rule():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [-1, 4, -1, 5, 6], "float32")
        w = paddle.static.data("w", [4, 3, 3, 2, 1], "float32")
        assert list(F.conv3d_transpose(x, w, stride=2, padding=[1, 0, 2], groups=2).shape) == \
            [-1, 6, -1, 10, 7]
        xl = paddle.static.data("xl", [2, 3, 4, 5, 4], "float32")
        assert list(F.conv3d_transpose(xl, w, stride=[1, 2, 3], output_size=[5, 9, 15],
                                       data_format="NDHWC").shape) == [2, 5, 9, 15, 3]
        with pytest.raises(ValueError, match="output_size .* dim 2 must lie in"):
            F.conv3d_transpose(xl, w, stride=[1, 2, 3], output_size=[5, 9, 19],
                               data_format="NDHWC")
        with pytest.raises(ValueError, match="input channels should be equal to filter"):
            F.conv3d_transpose(x, paddle.static.data("w3", [3, 3, 1, 1, 1], "float32"))


def test_paddles_argument_errors():
    x1 = paddle.static.data("x1", [2, 4, 9], "float32")
    w1 = paddle.static.data("w1", [6, 2, 3], "float32")
    with pytest.raises(ValueError, match="Attr\\(data_format\\) should be 'NCL' or 'NLC'"):
        F.conv1d(x1, w1, data_format="NCHW")
    with pytest.raises(ValueError, match="the number of filters must be divisible by groups"):
        F.conv1d(x1, paddle.static.data("w5", [5, 1, 3], "float32"), groups=4)
    with pytest.raises(ValueError, match="In valid padding"):
        F.conv1d_transpose(x1, w1, padding=[[0, 0], [0, 0], [1, 1]] * 2)
    with pytest.raises(ValueError, match="output_padding should not be greater than stride"):
        F.conv1d_transpose(x1, paddle.static.data("wt", [4, 2, 3], "float32"),
                           output_padding=3, stride=2)
    with pytest.raises(ValueError, match="mutually exclusive"):
        F.conv3d_transpose(paddle.static.data("x5", [1, 4, 2, 2, 2], "float32"),
                           paddle.static.data("w5t", [4, 1, 2, 2, 2], "float32"),
                           output_padding=1, output_size=[3, 3, 3])
    with pytest.raises(ValueError, match="should be 'NCDHW' or 'NDHWC'"):
        F.conv3d_transpose(x1, w1, data_format="NCHW")


def test_conv2d_transpose_output_size_from_eager_tensors(eager):
    """Eagerly Paddle reads an output_size Tensor (one value serves both dims) or a list
    holding Tensors as numbers; a static Variable (Paddle's VAR/VARS attribute) is refused."""
    rng = np.random.default_rng(2)
    x = paddle.to_tensor(rng.standard_normal((2, 3, 5, 5)).astype("float32"))
    w = paddle.to_tensor(rng.standard_normal((3, 4, 3, 3)).astype("float32"))
    expected = F.conv2d_transpose(x, w, stride=2, output_size=[12, 11]).numpy()
    as_int32 = paddle.to_tensor(np.array([12, 11], "int32"))
    for given in (as_int32, [paddle.to_tensor(np.array(12, "int64")), 11]):
        got = F.conv2d_transpose(x, w, stride=2, output_size=given)
        np.testing.assert_array_equal(got.numpy(), expected)
    square = F.conv2d_transpose(x, w, stride=2, output_size=paddle.to_tensor(np.array([12])))
    assert square.shape == [2, 4, 12, 12]
    with pytest.raises(ValueError, match="output_size must contain one or two integers"):
        F.conv2d_transpose(x, w, stride=2, output_size=paddle.to_tensor(np.array([[12, 11]])))
    with pytest.raises(TypeError, match="only supports Tensor with int32 and int64"):
        F.conv2d_transpose(x, w, stride=2, output_size=paddle.to_tensor(np.array([12., 11.])))
    paddle.enable_static()
    xs = paddle.static.data("xs", [2, 3, 5, 5], "float32")
    ws = paddle.static.data("ws", [3, 4, 3, 3], "float32")
    with pytest.raises(NotImplementedError, match="VAR/VARS attribute"):
        F.conv2d_transpose(xs, ws, stride=2, output_size=paddle.full([2], 12, "int32"))


def test_layers_run_eagerly_with_their_padding_modes(eager):
    """Conv1D (reflect padding through F.pad, NLC), Conv1DTranspose and Conv3DTranspose (with
    an output_size) eagerly equal the NumPy reference on their own weights."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 4, 7)).astype("float32")
    conv = paddle.nn.Conv1D(4, 6, 3, padding=2, padding_mode="reflect", groups=2,
                            data_format="NLC")
    w, b = conv.weight.numpy(), conv.bias.numpy()
    got = conv(paddle.to_tensor(_channel_last(x))).numpy()
    padded = np.pad(x, [(0, 0), (0, 0), (2, 2)], mode="reflect")
    expected = _conv_ref(padded, w, [1], [0, 0], [1], 2) + b[:, None]
    np.testing.assert_allclose(got, _channel_last(expected), rtol=1e-5, atol=1e-5)

    up = paddle.nn.Conv1DTranspose(4, 2, 3, stride=2, padding=1, output_padding=1)
    expected = _conv_transpose_ref(x, up.weight.numpy(), [2], [1, 1], [1], 1, [14])
    np.testing.assert_allclose(up(paddle.to_tensor(x)).numpy(),
                               expected + up.bias.numpy()[:, None], rtol=1e-5, atol=1e-5)

    x5 = rng.standard_normal((1, 4, 2, 3, 2)).astype("float32")
    up3 = paddle.nn.Conv3DTranspose(4, 2, 2, stride=2, groups=2, bias_attr=False)
    got = up3(paddle.to_tensor(x5), output_size=[5, 6, 5]).numpy()
    expected = _conv_transpose_ref(x5, up3.weight.numpy(), [2] * 3, [0] * 6, [1] * 3, 2,
                                   [5, 6, 5])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
