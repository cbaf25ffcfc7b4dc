"""Forward behaviour of the training ops: unary math, clip, cross_entropy(2), top_k, arg_max,
lookup_table_v2, dropout and the parameter-update ops (sgd, momentum, adam, adamw)."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.ops import get_op


def run(op_type, *inputs, **attrs):
    opdef = get_op(op_type)
    full = {k: s.default for k, s in opdef.attrs.items()}
    full.update(attrs)
    return opdef.run(*inputs, **full)


RNG = np.random.default_rng(8)


# -- unary math, clip ------------------------------------------------------------------------------
@pytest.mark.parametrize("op_type, reference", [
    ("square", np.square), ("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log), ("abs", np.abs)])
def test_unary_ops_keep_float32(op_type, reference):
    x = RNG.uniform(0.1, 2.0, size=(2, 3)).astype("float32")
    out = run(op_type, x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, reference(x), rtol=1e-6)


def test_clip_bounds_from_attrs_or_tensors():
    x = np.array([-2.0, -0.1, 0.3, 5.0], dtype="float32")
    np.testing.assert_allclose(run("clip", x, None, None, min=-1.0, max=1.0),
                               [-1.0, -0.1, 0.3, 1.0], rtol=1e-6)
    np.testing.assert_allclose(
        run("clip", x, np.array([0.0], "float32"), np.array([0.2], "float32")),
        [0.0, 0.0, 0.2, 0.2])
    with pytest.raises(ValueError, match="min .* must be less than or equal to max"):
        run("clip", x, None, None, min=1.0, max=0.0)


# -- cross_entropy on probabilities ----------------------------------------------------------------
def test_cross_entropy_ops_on_probabilities():
    probs = np.array([[0.2, 0.8], [0.0, 1.0], [0.5, 0.5]], dtype="float32")
    label = np.array([[1], [0], [-100]])
    y = run("cross_entropy", probs, label)
    assert y.shape == (3, 1) and y.dtype == np.float32
    np.testing.assert_allclose(y[:, 0], [-np.log(0.8), 1e20, 0.0], rtol=1e-6)
    y2, xshape, match_x = run("cross_entropy2", probs, label)
    np.testing.assert_allclose(y2, y, rtol=1e-6)
    np.testing.assert_allclose(match_x[:, 0], [0.8, 0.0, 0.0])
    assert xshape.shape == (0, 3, 2)


def test_cross_entropy2_backward_is_paddles_cross_entropy_grad2():
    x = paddle.static.data("x", [None, 3], "float32")
    x.stop_gradient = False
    label = paddle.static.data("label", [None, 1], "int64")
    block = paddle.static.default_main_program().global_block()
    y, xshape, match_x = (block.create_var(name=n) for n in ("y", "xshape", "match_x"))
    block.append_op(type="cross_entropy2", inputs={"X": x, "Label": label},
                    outputs={"Y": y, "XShape": xshape, "MatchX": match_x})
    (dx,) = paddle.static.gradients([y], [x])
    grad_op = block.ops[-1]
    assert grad_op.type == "cross_entropy_grad2"
    assert sorted(grad_op.inputs) == ["Label", "MatchX", "XShape", "Y@GRAD"]
    probs = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], dtype="float32")
    exe = paddle.static.Executor(paddle.CPUPlace())
    (value,) = exe.run(feed={"x": probs, "label": np.array([[2], [0]])}, fetch_list=[dx])
    np.testing.assert_allclose(value, [[0, 0, -2.0], [-10.0, 0, 0]], rtol=1e-6)


# -- top_k, arg_max --------------------------------------------------------------------------------
def test_top_k_and_top_k_v2():
    x = np.array([[1.0, 3.0, 2.0, 3.0], [0.0, -1.0, 5.0, 4.0]], dtype="float32")
    values, indices = run("top_k", x, None, k=2)
    np.testing.assert_array_equal(values, [[3, 3], [5, 4]])
    np.testing.assert_array_equal(indices, [[1, 3], [2, 3]])
    assert indices.dtype == np.int64
    values, indices = run("top_k_v2", x, None, k=1, axis=0, largest=False)
    np.testing.assert_array_equal(indices, [[1, 1, 0, 0]])
    values, _ = run("top_k_v2", x, np.array([3]), k=1)
    assert values.shape == (2, 3)
    with pytest.raises(ValueError, match="k=5 must be in \\[1, 4\\]"):
        run("top_k", x, None, k=5)


def test_arg_max():
    x = np.array([[1.0, 7.0, 2.0], [9.0, 0.0, 3.0]], dtype="float32")
    out = run("arg_max", x, axis=1)
    np.testing.assert_array_equal(out, [1, 0])
    assert out.dtype == np.int64
    assert run("arg_max", x, axis=0, keepdims=True, dtype=2).dtype == np.int32
    assert run("arg_max", x, flatten=True) == 3


# -- lookup_table_v2 -------------------------------------------------------------------------------
def test_lookup_table_v2_rows_padding_and_range_check():
    w = np.arange(12, dtype="float32").reshape(4, 3)
    ids = np.array([[0, 3], [1, 1]])
    np.testing.assert_array_equal(run("lookup_table_v2", w, ids), w[ids])
    padded = run("lookup_table_v2", w, ids, padding_idx=1)
    np.testing.assert_array_equal(padded[1], np.zeros((2, 3)))
    np.testing.assert_array_equal(padded[0], w[[0, 3]])
    with pytest.raises(ValueError, match="id 4 is out of range \\[0, 4\\)"):
        run("lookup_table_v2", w, np.array([4]))


# -- dropout ---------------------------------------------------------------------------------------
def test_dropout_training_masks_and_scales():
    x = np.ones((200, 50), dtype="float32")
    out, mask = run("dropout", x, None, dropout_prob=0.25)
    assert mask.dtype == np.uint8
    assert abs(1 - mask.mean() - 0.25) < 0.02
    np.testing.assert_array_equal(out, mask.astype("float32"))
    out, mask = run("dropout", x, None, dropout_prob=0.25,
                    dropout_implementation="upscale_in_train")
    np.testing.assert_allclose(out, mask / 0.75, rtol=1e-6)


def test_dropout_inference_scaling_and_fixed_seed():
    x = np.full((4, 4), 2.0, dtype="float32")
    np.testing.assert_allclose(run("dropout", x, None, dropout_prob=0.25, is_test=True)[0], 1.5)
    np.testing.assert_array_equal(
        run("dropout", x, None, is_test=True, dropout_implementation="upscale_in_train")[0], x)
    first = run("dropout", x, None, fix_seed=True, seed=3)[1]
    np.testing.assert_array_equal(run("dropout", x, None, fix_seed=True, seed=3)[1], first)
    assert not np.array_equal(run("dropout", np.ones((64, 64), "float32"), None)[1],
                              run("dropout", np.ones((64, 64), "float32"), None)[1])
    with pytest.raises(ValueError, match="dropout_implementation"):
        run("dropout", x, None, dropout_implementation="scale")


# -- update ops ------------------------------------------------------------------------------------
P = RNG.normal(size=(3, 2)).astype("float32")
G = RNG.normal(size=(3, 2)).astype("float32")
LR = np.array([0.1], dtype="float32")


def test_sgd():
    out, master = run("sgd", P, LR, G, None)
    np.testing.assert_allclose(out, P - 0.1 * G, rtol=1e-6)
    assert master is None and out.dtype == np.float32 and out is not P


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_with_l2_decay(nesterov):
    v = RNG.normal(size=(3, 2)).astype("float32")
    p_out, v_out, _ = run("momentum", P, G, v, LR, None, mu=0.9, use_nesterov=nesterov,
                          regularization_method="l2_decay", regularization_coeff=0.01)
    g = G + 0.01 * P
    expected_v = 0.9 * v + g
    expected_p = P - (g + 0.9 * expected_v) * 0.1 if nesterov else P - 0.1 * expected_v
    np.testing.assert_allclose(v_out, expected_v, rtol=1e-5)
    np.testing.assert_allclose(p_out, expected_p, rtol=1e-5)


def _adam_inputs():
    zeros = np.zeros_like(P)
    return [P, G, LR, zeros, zeros, np.array([0.9], "float32"), np.array([0.999], "float32"),
            None, None, None, None, None]


def test_adam_first_step_and_beta_pows():
    p_out, m1, m2, b1p, b2p, master = run("adam", *_adam_inputs())
    np.testing.assert_allclose(m1, 0.1 * G, rtol=1e-6)
    one_minus_beta2 = np.float32(1) - np.float32(0.999)     # float32, as Paddle computes it
    np.testing.assert_allclose(m2, one_minus_beta2 * G * G, rtol=1e-6)
    lr_t = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
    expected = P - lr_t * m1 / (np.sqrt(m2) + 1e-8 * np.sqrt(1 - 0.999))
    np.testing.assert_allclose(p_out, expected, rtol=1e-5)
    np.testing.assert_allclose([b1p[0], b2p[0]], [0.81, 0.998001], rtol=1e-6)
    assert master is None


def test_adam_skip_update_and_adamw_decay():
    inputs = _adam_inputs()
    inputs[-1] = np.array([True])
    np.testing.assert_array_equal(run("adam", *inputs)[0], P)
    adam_out = run("adam", *_adam_inputs())[0]
    adamw_out = run("adamw", *_adam_inputs(), coeff=0.5, with_decay=True)[0]
    decayed = P * (1 - 0.1 * 0.5)
    np.testing.assert_allclose(adamw_out, adam_out - P + decayed, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(run("adamw", *_adam_inputs(), coeff=0.5)[0], adam_out)
