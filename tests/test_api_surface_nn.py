"""The wider ``paddle.nn.functional`` (dropout, one_hot, embedding, relu6, silu, mse_loss,
l1_loss, normalize, layer_norm, batch_norm) and ``paddle.nn`` layers: static (Executor) and eager results
against NumPy, and the ops and attributes Paddle 2.6's static mode appends."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
import pyfluid.nn.functional as F
from pyfluid import nn, static
from test_api_surface import ApiCase, op_of, run_eager, run_static

_rng = np.random.default_rng(5)
X = _rng.standard_normal((4, 3)).astype("float32")
Y = _rng.standard_normal((4, 3)).astype("float32")
X4 = _rng.standard_normal((2, 3, 2, 2)).astype("float32")
IDS = np.array([[1, 0], [4, 1]], dtype="int64")
TABLE = _rng.standard_normal((5, 2)).astype("float32")
C3 = [_rng.uniform(0.5, 1.5, 3).astype("float32") for _ in range(4)]   # scale, bias, mean, var


def np_layer_norm(x, begin, weight=None, bias=None, eps=1e-5):
    axes = tuple(range(begin, x.ndim))
    out = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    flat_shape = x.shape[begin:]
    if weight is not None:
        out = out * weight.reshape(flat_shape)
    return out + bias.reshape(flat_shape) if bias is not None else out


def np_batch_norm(x, scale, bias, mean, var, eps=1e-5, channel_axis=1):
    shape = [1] * x.ndim
    shape[channel_axis] = -1
    r = [a.reshape(shape) for a in (scale, bias, mean, var)]
    return (x - r[2]) / np.sqrt(r[3] + eps) * r[0] + r[1]


CASES = [
    ApiCase("dropout_inference_upscale", lambda x: F.dropout(x, 0.3, training=False),
            {"x": X}, X, "dropout", {"dropout_prob": 0.3, "is_test": True, "fix_seed": False,
                                     "seed": 0, "dropout_implementation": "upscale_in_train"}),
    ApiCase("dropout_inference_downscale",
            lambda x: F.dropout(x, 0.3, training=False, mode="downscale_in_infer"), {"x": X},
            X * np.float32(0.7), "dropout", {"dropout_implementation": "downgrade_in_infer"}),
    ApiCase("one_hot", lambda i: F.one_hot(i, 5), {"i": IDS}, np.eye(5, dtype="float32")[IDS],
            "one_hot_v2", {"depth": 5, "allow_out_of_range": False, "dtype": 5}),
    ApiCase("embedding", lambda i, w: F.embedding(i, w), {"i": IDS, "w": TABLE}, TABLE[IDS],
            "lookup_table_v2", {"padding_idx": -1, "is_sparse": False,
                                "remote_prefetch": False, "is_distributed": False}),
    ApiCase("embedding_padding", lambda i, w: F.embedding(i, w, padding_idx=-4),
            {"i": IDS, "w": TABLE}, np.where((IDS == 1)[..., None], 0, TABLE[IDS]),
            "lookup_table_v2", {"padding_idx": 1}),
    ApiCase("relu6", lambda x: F.relu6(x * 5.0), {"x": X}, np.clip(X * 5, 0, 6), "relu6",
            {"threshold": 6.0}),
    ApiCase("silu", lambda x: F.silu(x), {"x": X}, X / (1 + np.exp(-X)), "silu"),
    ApiCase("mse_loss", lambda x, y: F.mse_loss(x, y), {"x": X, "y": Y},
            np.mean((X - Y) ** 2), "reduce_mean"),
    ApiCase("mse_loss_none", lambda x, y: F.mse_loss(x, y, "none"), {"x": X, "y": Y},
            (X - Y) ** 2, "square"),
    ApiCase("l1_loss_sum", lambda x, y: F.l1_loss(x, y, "sum"), {"x": X, "y": Y},
            np.abs(X - Y).sum(), "reduce_sum"),
    ApiCase("l1_loss_none", lambda x, y: F.l1_loss(x, y, "none"), {"x": X, "y": Y},
            np.abs(X - Y), "abs"),
    ApiCase("normalize", lambda x: F.normalize(x), {"x": X},
            X / np.linalg.norm(X, axis=1, keepdims=True), "p_norm",
            {"axis": 1, "porder": 2.0, "keepdim": True, "epsilon": 1e-12, "asvector": False}),
    ApiCase("normalize_p1_axis0", lambda x: F.normalize(x, p=1, axis=0), {"x": X},
            X / np.abs(X).sum(0), "elementwise_max"),
    ApiCase("layer_norm", lambda x: F.layer_norm(x, [2, 2], epsilon=1e-4), {"x": X4},
            np_layer_norm(X4, 2, eps=1e-4), "layer_norm",
            {"begin_norm_axis": 2, "epsilon": 1e-4}),
    ApiCase("layer_norm_affine", lambda x, w, b: F.layer_norm(x, 3, w, b),
            {"x": X, "w": C3[0], "b": C3[1]}, np_layer_norm(X, 1, C3[0], C3[1]), "layer_norm",
            {"begin_norm_axis": 1}),
    ApiCase("batch_norm_inference", lambda x, s, b, m, v: F.batch_norm(x, m, v, s, b),
            {"x": X4, "s": C3[0], "b": C3[1], "m": C3[2], "v": C3[3]},
            np_batch_norm(X4, *C3), "batch_norm",
            {"is_test": True, "use_global_stats": True, "trainable_statistics": False,
             "data_layout": "NCHW", "momentum": 0.9}),
    ApiCase("batch_norm_nlc", lambda x, s, b, m, v: F.batch_norm(x, m, v, s, b,
                                                                   data_format="NLC"),
            {"x": X4[:, 0], "s": C3[0][:2], "b": C3[1][:2], "m": C3[2][:2], "v": C3[3][:2]},
            np_batch_norm(X4[:, 0], C3[0][:2], C3[1][:2], C3[2][:2], C3[3][:2],
                          channel_axis=2), "batch_norm", {"data_layout": "NHWC"}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_functional_static_and_eager_match_numpy(case: ApiCase):
    (static_out,), program = run_static(case.build, case.feeds)
    (eager_out,) = run_eager(case.build, case.feeds)
    np.testing.assert_allclose(static_out, case.expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(eager_out, case.expected, rtol=1e-5, atol=1e-5)
    op = op_of(program, case.op_type)
    for name, value in case.attrs.items():
        got = op.attr(name)
        assert got == (pytest.approx(value) if isinstance(value, float) else value), name


def test_functional_op_sequences_and_temporaries():
    def build(x, y, w, b):
        return [F.mse_loss(x, y), F.l1_loss(x, y, "none", name="l1"), F.layer_norm(x, 3, w, b),
                F.dropout(x, 0.5)]
    _, program = run_static(build, {"x": X, "y": Y, "w": C3[0], "b": C3[1]})
    ops = [op for op in program.global_block().ops if op.type not in ("feed", "fetch")]
    assert [op.type for op in ops] == ["elementwise_sub", "square", "reduce_mean",
                                       "elementwise_sub", "abs", "layer_norm", "dropout"]
    assert ops[3].output("Out") == ["l1"] and ops[4].output("Out") == ["abs_0.tmp_0"]
    assert ops[5].output("Mean") == ["layer_norm_0.tmp_0"]
    assert ops[5].output("Variance") == ["layer_norm_0.tmp_1"]
    assert ops[5].output("Y") == ["layer_norm_0.tmp_2"]
    assert ops[6].output("Out") == ["dropout_0.tmp_0"]
    assert ops[6].output("Mask") == ["dropout_0.tmp_1"]
    assert program.global_block().var("dropout_0.tmp_1").dtype == paddle.uint8


def test_dropout_training_masks_and_scales():
    x = np.ones((40, 50), "float32")
    (out, mask), program = run_static(lambda v: _dropout_with_mask(v), {"x": x})
    assert set(np.unique(out)) == {0.0, 2.0}
    np.testing.assert_array_equal(out, mask * 2.0)
    assert 0.4 < out.mean() / 2 < 0.6
    paddle.disable_static()
    eager = F.dropout(paddle.to_tensor(x), 0.5).numpy()
    assert set(np.unique(eager)) == {0.0, 2.0}
    paddle.enable_static()


def _dropout_with_mask(x):
    out = F.dropout(x, 0.5)
    return out, x.block.var("dropout_0.tmp_1")


def test_dropout_takes_the_programs_random_seed_and_p_zero_is_identity():
    main, startup = static.Program(), static.Program()
    main.random_seed = 9
    with static.program_guard(main, startup):
        x = static.data("x", [2, 3], "float32")
        assert F.dropout(x, 0.0) is x
        F.dropout(x, 0.2)
    op = op_of(main, "dropout")
    assert op.attr("fix_seed") is True and op.attr("seed") == 9
    with pytest.raises(ValueError, match="p argument should between 0 and 1"):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match="mode argument should be"):
        F.dropout(x, 0.5, mode="scale")


def test_batch_norm_training_updates_running_statistics():
    scale, bias, mean, var = C3
    batch_mean, batch_var = X4.mean((0, 2, 3)), X4.var((0, 2, 3))
    paddle.disable_static()
    rm, rv = paddle.to_tensor(mean), paddle.to_tensor(var)
    y = F.batch_norm(paddle.to_tensor(X4), rm, rv, paddle.to_tensor(scale),
                     paddle.to_tensor(bias), training=True, momentum=0.8)
    np.testing.assert_allclose(y.numpy(), np_batch_norm(X4, scale, bias, batch_mean, batch_var),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rm.numpy(), 0.8 * mean + 0.2 * batch_mean, rtol=1e-5)
    paddle.enable_static()
    _, program = run_static(lambda x: F.batch_norm(
        x, *[static.create_parameter([3], "float32") for _ in range(4)], training=True),
        {"x": X4})
    op = op_of(program, "batch_norm")
    assert op.attr("is_test") is False and op.attr("use_global_stats") is False
    assert op.output("MeanOut") == op.input("Mean") and op.output("ReserveSpace")


# -- layers ----------------------------------------------------------------------------------
def test_layers_in_eager_mode():
    paddle.disable_static()
    x = paddle.to_tensor(X4)
    np.testing.assert_allclose(nn.Flatten()(x).numpy(), X4.reshape(2, -1))
    np.testing.assert_allclose(nn.Softmax(axis=1)(x).numpy().sum(1), np.ones((2, 2, 2)),
                               rtol=1e-6)
    np.testing.assert_allclose(nn.Tanh()(x).numpy(), np.tanh(X4), rtol=1e-6)
    np.testing.assert_allclose(nn.Sigmoid()(x).numpy(), 1 / (1 + np.exp(-X4)), rtol=1e-6)
    np.testing.assert_allclose(nn.ReLU6()(x).numpy(), np.clip(X4, 0, 6))
    np.testing.assert_allclose(nn.MSELoss("sum")(paddle.to_tensor(X), paddle.to_tensor(Y))
                               .numpy(), ((X - Y) ** 2).sum(), rtol=1e-5)
    np.testing.assert_allclose(nn.L1Loss()(paddle.to_tensor(X), paddle.to_tensor(Y)).numpy(),
                               np.abs(X - Y).mean(), rtol=1e-5)
    dropout = nn.Dropout(0.5)
    assert (dropout(x).numpy() == 0).any()
    dropout.eval()
    np.testing.assert_array_equal(dropout(x).numpy(), X4)
    with pytest.raises(ValueError, match="'reduction' in 'MSELoss'"):
        nn.MSELoss("avg")


def test_embedding_layernorm_batchnorm_layers_train_in_eager_mode():
    paddle.disable_static()
    emb = nn.Embedding(5, 2, padding_idx=1)
    assert emb.weight.shape == [5, 2] and not emb.weight.numpy()[1].any()
    np.testing.assert_array_equal(emb(paddle.to_tensor(IDS)).numpy(), emb.weight.numpy()[IDS])
    norm = nn.LayerNorm([2, 2])
    np.testing.assert_allclose(norm(paddle.to_tensor(X4)).numpy(), np_layer_norm(X4, 2),
                               rtol=1e-4, atol=1e-5)
    bn = nn.BatchNorm2D(3)
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    x = paddle.to_tensor(X4, stop_gradient=False)
    paddle.sum(bn(x) * paddle.to_tensor(X4)).backward()
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * X4.mean((0, 2, 3)), rtol=1e-5)
    assert bn.weight.grad is not None and x.grad is not None
    bn.eval()
    expected = np_batch_norm(X4, np.ones(3), np.zeros(3), bn._mean.numpy(), bn._variance.numpy())
    np.testing.assert_allclose(bn(paddle.to_tensor(X4)).numpy(), expected, rtol=1e-4, atol=1e-5)
    bn1 = nn.BatchNorm1D(3)
    assert bn1(paddle.to_tensor(X)).shape == [4, 3]
    with pytest.raises(ValueError, match="expected 2D or 3D input \\(got 4D input\\)"):
        bn1(paddle.to_tensor(X4))
    with pytest.raises(ValueError, match="expected NCHW or NHWC for data_format input"):
        nn.BatchNorm2D(3, data_format="NCL")


def test_layers_build_paddles_static_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2, 3, 2, 2], "float32")
        ids = static.data("ids", [2, 2], "int64")
        out = nn.LayerNorm([2, 2])(nn.BatchNorm2D(3)(x))
        looked_up = nn.Embedding(5, 2)(ids)
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    got, table = exe.run(main, feed={"x": X4, "ids": IDS}, fetch_list=[out, looked_up])
    normed = np_batch_norm(X4, np.ones(3), np.zeros(3), X4.mean((0, 2, 3)), X4.var((0, 2, 3)))
    np.testing.assert_allclose(got, np_layer_norm(normed, 2), rtol=1e-3, atol=1e-4)
    assert table.shape == (2, 2, 2)
    types = [op.type for op in main.global_block().ops if op.type not in ("feed", "fetch")]
    assert types == ["batch_norm", "layer_norm", "lookup_table_v2"]
    params = sorted(p.name for p in main.global_block().all_parameters())
    assert params == ["batch_norm2d_0.b_0", "batch_norm2d_0.w_0", "batch_norm2d_0.w_1",
                      "batch_norm2d_0.w_2", "embedding_0.w_0", "layer_norm_0.b_0",
                      "layer_norm_0.w_0"]
