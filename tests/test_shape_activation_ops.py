"""flatten_contiguous_range, squeeze2, unsqueeze2, slice, stack, split and the extra
activations against NumPy, through the Executor (shapes inferred = shapes computed)."""
import math

import numpy as np
import pytest

import pyfluid as paddle
from test_cnn_ops import _grads_of_sum, run_op, u


@pytest.mark.parametrize("shape,start,stop,expected", [
    ((2, 3, 4, 5), 1, 3, (2, 60)), ((2, 3, 4, 5), 0, -1, (120,)),
    ((2, 3, 4, 5), -3, -2, (2, 12, 5)), ((2, 3), 1, 1, (2, 3))])
def test_flatten_contiguous_range(shape, start, stop, expected):
    x = u(*shape)
    out = run_op("flatten_contiguous_range", {"X": x}, {"start_axis": start, "stop_axis": stop})
    np.testing.assert_array_equal(out["Out"], x.reshape(expected))
    assert out["XShape"].shape == (0,) + shape


@pytest.mark.parametrize("axes,expected", [([], (3, 4)), ([0], (3, 1, 4)), ([-2, 0], (3, 4)),
                                           ([1], (1, 3, 1, 4))])
def test_squeeze2_drops_only_size_one_axes(axes, expected):
    x = u(1, 3, 1, 4)
    np.testing.assert_array_equal(run_op("squeeze2", {"X": x}, {"axes": axes})["Out"],
                                  x.reshape(expected))


@pytest.mark.parametrize("axes,expected", [([0], (1, 3, 4)), ([-1], (3, 4, 1)),
                                           ([0, 2], (1, 3, 1, 4)), ([2, 0], (1, 3, 4, 1)),
                                           ([0, -1], (1, 3, 4, 1))])
def test_unsqueeze2_inserts_axes_in_order(axes, expected):
    x = u(3, 4)
    np.testing.assert_array_equal(run_op("unsqueeze2", {"X": x}, {"axes": axes})["Out"],
                                  x.reshape(expected))


def test_unsqueeze2_axes_from_tensor():
    x = u(3, 4)
    out = run_op("unsqueeze2", {"X": x, "AxesTensor": np.array([1], dtype="int32")}, {})
    assert out["Out"].shape == (3, 1, 4)


@pytest.mark.parametrize("attrs,index", [
    ({"axes": [0, 2], "starts": [1, -3], "ends": [3, 100]}, np.s_[1:3, :, -3:]),
    ({"axes": [1], "starts": [-100], "ends": [-1]}, np.s_[:, :-1]),
    ({"axes": [0, 1], "starts": [2, 1], "ends": [3, 2], "decrease_axis": [0, 1]}, np.s_[2, 1]),
    ({"axes": [2], "starts": [1], "ends": [2], "decrease_axis": [2],
      "infer_flags": [1]}, np.s_[:, :, 1])])
def test_slice(attrs, index):
    x = u(4, 3, 5)
    np.testing.assert_array_equal(run_op("slice", {"Input": x}, attrs)["Out"], x[index])


def test_slice_with_start_and_end_tensors():
    x = u(4, 6)
    out = run_op("slice", {"Input": x, "StartsTensor": np.array([1], dtype="int64"),
                           "EndsTensorList": [np.array([4], dtype="int64")]},
                 {"axes": [1], "starts": [0], "ends": [1], "infer_flags": [-1]})
    np.testing.assert_array_equal(out["Out"], x[:, 1:4])


def test_slice_rejects_end_before_start():
    with pytest.raises(Exception, match="end should be greater than start"):
        run_op("slice", {"Input": u(4, 3)}, {"axes": [0], "starts": [3], "ends": [1]})


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack(axis):
    xs = [u(2, 3) for _ in range(3)]
    np.testing.assert_array_equal(run_op("stack", {"X": xs}, {"axis": axis})["Y"],
                                  np.stack(xs, axis=axis))


@pytest.mark.parametrize("attrs,cuts", [({"axis": 1, "num": 3}, [2, 4]),
                                        ({"axis": -1, "sections": [1, -1, 2]}, [1, 4]),
                                        ({"axis": 0, "sections": [1, 3]}, [1])])
def test_split(attrs, cuts):
    x = u(4, 6)
    parts = np.split(x, cuts, axis=attrs["axis"])
    out = run_op("split", {"X": x}, attrs, n_outputs=len(parts))["Out"]
    for got, want in zip(out, parts):
        np.testing.assert_array_equal(got, want)


def test_split_gradient_is_concat_of_output_gradients():
    x = u(4, 6).astype("float64")
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        var = paddle.static.data("x", [4, 6], "float64")
        var.stop_gradient = False
        block = main.global_block()
        outs = [block.create_var(name=f"part_{i}") for i in range(3)]
        block.append_op(type="split", inputs={"X": var}, outputs={"Out": outs},
                        attrs={"axis": 1, "num": 3})
        loss = paddle.sum(paddle.scale(outs[0], 2.0)) + paddle.sum(outs[2])  # part 1 unused
        (grad,) = paddle.static.gradients([loss], [var])
    assert "concat" in [op.type for op in main.global_block().ops]
    (value,) = paddle.static.Executor().run(main, feed={"x": x}, fetch_list=[grad])
    np.testing.assert_array_equal(value, np.repeat([[2.0, 2.0, 0.0, 0.0, 1.0, 1.0]], 4, axis=0))


def test_stack_gradient_unstacks():
    xs = [u(2, 3).astype("float64") for _ in range(2)]
    grads = _grads_of_sum("stack", {"X": xs}, {"axis": 1}, ["X"])
    for g in grads:
        np.testing.assert_array_equal(g, np.ones((2, 3)))


# -- activations -------------------------------------------------------------------------------
_ERF = np.vectorize(math.erf)
_SIGMOID = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
ACTIVATIONS = [
    ("gelu", {}, lambda x: 0.5 * x * (1 + _ERF(x / math.sqrt(2)))),
    ("gelu", {"approximate": True},
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    ("hard_swish", {}, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("hard_swish", {"threshold": 4.0, "scale": 5.0, "offset": 2.0},
     lambda x: x * np.clip(x + 2, 0, 4) / 5),
    ("leaky_relu", {}, lambda x: np.where(x > 0, x, 0.02 * x)),
    ("leaky_relu", {"alpha": 0.3}, lambda x: np.where(x > 0, x, 0.3 * x)),
    ("relu6", {}, lambda x: np.clip(x, 0, 6)),
    ("hard_sigmoid", {}, lambda x: np.clip(0.2 * x + 0.5, 0, 1)),
    ("silu", {}, lambda x: x * _SIGMOID(x)),
    ("swish", {"beta": 2.0}, lambda x: x * _SIGMOID(2 * x)),
]


@pytest.mark.parametrize("op_type,attrs,reference", ACTIVATIONS,
                         ids=[f"{a[0]}{a[1]}" for a in ACTIVATIONS])
def test_activation_matches_reference(op_type, attrs, reference):
    x = (u(4, 50) * 8).astype("float32")
    out = run_op(op_type, {"X": x}, attrs)["Out"]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, reference(x.astype("float64")), rtol=2e-6, atol=2e-6)


def test_erf_is_accurate_in_float64():
    from pyfluid.ops.activation import erf
    x = np.linspace(-6, 6, 2001)
    np.testing.assert_allclose(erf(x), _ERF(x), rtol=0, atol=2e-7)
