"""The activations Paddle's vision models use (celu, selu, softplus, mish, logsigmoid,
softsign, tanh_shrink, brelu, hard_shrink, softshrink, thresholded_relu) and prelu, against
NumPy formulas written from Paddle's kernel definitions; attribute defaults as Paddle 2.6
declares them. (tests/test_paddle_models.py checks them against Paddle's recorded outputs
too: zoo26/opmix_norm_act.)"""
import numpy as np
import pytest

from pyfluid.framework.errors import ShapeError
from pyfluid.ops import get_op
from test_cnn_ops import run_op

_rng = np.random.default_rng(5)
X = _rng.uniform(-3, 3, size=(4, 5)).astype("float32")


def softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


REFERENCES = [
    ("celu", {"alpha": 0.8}, lambda x: np.where(x < 0, 0.8 * (np.exp(x / 0.8) - 1), x)),
    ("selu", {}, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.exp(x) - 1.6732632423543772)),
    ("softplus", {"beta": 2.0, "threshold": 5.0}, lambda x: softplus(x, 2.0, 5.0)),
    ("softplus", {}, softplus),
    ("mish", {}, lambda x: x * np.tanh(softplus(x))),
    ("mish", {"threshold": 1.0}, lambda x: x * np.tanh(np.where(x > 1, x, np.log1p(np.exp(x))))),
    ("logsigmoid", {}, lambda x: -np.log1p(np.exp(-x))),
    ("softsign", {}, lambda x: x / (1 + np.abs(x))),
    ("tanh_shrink", {}, lambda x: x - np.tanh(x)),
    ("brelu", {"t_min": -0.5, "t_max": 0.7}, lambda x: np.clip(x, -0.5, 0.7)),
    ("brelu", {}, lambda x: np.clip(x, 0, 24)),
    ("hard_shrink", {"threshold": 0.3}, lambda x: np.where(np.abs(x) > 0.3, x, 0)),
    ("softshrink", {"lambda": 0.2}, lambda x: np.where(x > 0.2, x - 0.2,
                                                       np.where(x < -0.2, x + 0.2, 0))),
    ("softshrink", {}, lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    ("thresholded_relu", {"threshold": 0.4}, lambda x: np.where(x > 0.4, x, 0)),
    ("thresholded_relu", {}, lambda x: np.where(x > 1.0, x, 0)),
]


@pytest.mark.parametrize("op_type,attrs,reference", REFERENCES,
                         ids=[f"{r[0]}-{i}" for i, r in enumerate(REFERENCES)])
def test_activation_matches_reference(op_type, attrs, reference):
    out = run_op(op_type, {"X": X}, attrs)["Out"]
    assert out.dtype == np.float32 and out.shape == X.shape
    np.testing.assert_allclose(out, reference(X.astype("float64")), rtol=2e-6, atol=2e-6)


def test_attribute_names_and_defaults_are_paddles():
    defaults = {t: {k: s.default for k, s in get_op(t).attrs.items()} for t in (
        "brelu", "celu", "hard_shrink", "logsigmoid", "mish", "selu", "softplus", "softshrink",
        "softsign", "tanh_shrink", "thresholded_relu", "prelu")}
    assert defaults == {
        "brelu": {"t_min": 0.0, "t_max": 24.0}, "celu": {"alpha": 1.0},
        "hard_shrink": {"threshold": 0.5}, "logsigmoid": {}, "mish": {"threshold": 20.0},
        "selu": {"scale": pytest.approx(1.0507010), "alpha": pytest.approx(1.6732632)},
        "softplus": {"beta": 1.0, "threshold": 20.0}, "softshrink": {"lambda": 0.5},
        "softsign": {}, "tanh_shrink": {}, "thresholded_relu": {"threshold": 1.0},
        "prelu": {"data_format": "NCHW", "mode": "all"}}


def test_large_inputs_stay_finite():
    x = np.array([-100.0, -30.0, 30.0, 100.0], dtype="float32")
    for op_type in ("softplus", "mish", "logsigmoid", "selu", "celu"):
        assert np.isfinite(run_op(op_type, {"X": x}, {})["Out"]).all(), op_type


# -- prelu ---------------------------------------------------------------------------------------
X4 = _rng.uniform(-1, 1, size=(2, 3, 4, 5)).astype("float32")


@pytest.mark.parametrize("mode,data_format,alpha,alpha_view", [
    ("all", "NCHW", np.array([0.25], "float32"), lambda a: a.reshape(())),
    ("channel", "NCHW", np.array([0.1, 0.2, 0.3], "float32"), lambda a: a.reshape(1, 3, 1, 1)),
    ("channel", "NHWC", np.array([0.1, 0.2, 0.3, 0.4, 0.5], "float32"), lambda a: a),
    ("element", "NCHW", _rng.uniform(0, 1, (1, 3, 4, 5)).astype("float32"), lambda a: a),
])
def test_prelu_modes(mode, data_format, alpha, alpha_view):
    out = run_op("prelu", {"X": X4, "Alpha": alpha}, {"mode": mode,
                                                      "data_format": data_format})["Out"]
    np.testing.assert_allclose(out, np.where(X4 > 0, X4, alpha_view(alpha) * X4), rtol=1e-6)


@pytest.mark.parametrize("mode,alpha_shape,message", [
    ("all", [3], "for mode 'all', size of weight Alpha must be one"),
    ("channel", [4], "size of weight Alpha must be equal to the number of channels"),
    ("element", [3, 4, 5], "rank of weight Alpha must be equal to the rank of input"),
    ("element", [1, 3, 4, 4], "the size of weight Alpha must be equal to the size of input"),
    ("elementwise", [1], "Attr\\(mode\\) of prelu must be one of 'all', 'channel', or 'element'"),
])
def test_prelu_shape_errors(mode, alpha_shape, message):
    with pytest.raises(ShapeError, match=message):
        run_op("prelu", {"X": X4, "Alpha": np.ones(alpha_shape, "float32")}, {"mode": mode})
