"""Loss and metric layers: the ops Paddle 2.6 emits for them, their values, their errors, and
training parity with Paddle on the train_parity fixture."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import pyfluid as paddle
import pyfluid.nn.functional as F
from shared_fixtures import PADDLE_FIXTURES, needs_shared

FIXTURES = str(PADDLE_FIXTURES)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _ops():
    return [op.type for op in paddle.static.default_main_program().global_block().ops]


def _run(feed, fetch):
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(paddle.static.default_startup_program())
    return exe.run(paddle.static.default_main_program(), feed=feed, fetch_list=fetch)


LOGITS = np.random.default_rng(3).normal(size=(6, 5)).astype("float32")
LABELS = np.array([0, 4, 2, 2, 1, 3], dtype="int64")


def _nll(probs, labels):
    return -np.log(probs[np.arange(len(labels)), labels])


# -- F.cross_entropy --------------------------------------------------------------------------
def test_default_cross_entropy_is_softmax_with_cross_entropy_then_reduce_mean():
    x = paddle.static.data("x", [None, 5], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    loss = F.cross_entropy(x, y)
    assert _ops() == ["softmax_with_cross_entropy", "reduce_mean"]
    op = paddle.static.default_main_program().global_block().ops[0]
    assert {k: op.attr(k) for k in ("soft_label", "ignore_index", "numeric_stable_mode", "axis",
                                    "use_softmax")} == {
        "soft_label": False, "ignore_index": -100, "numeric_stable_mode": True, "axis": -1,
        "use_softmax": True}
    assert op.output("Softmax") == ["softmax_with_cross_entropy_0.tmp_0"]
    assert op.output("Loss") == ["softmax_with_cross_entropy_0.tmp_1"]
    (value,) = _run({"x": LOGITS, "y": LABELS[:, None]}, [loss])
    assert value.shape == ()
    np.testing.assert_allclose(value, _nll(_softmax(LOGITS), LABELS).mean(), rtol=1e-6)


def test_rank_n_minus_1_label_is_unsqueezed_and_none_reduction_squeezed_back():
    x = paddle.static.data("x", [None, 5], "float32")
    y = paddle.static.data("y", [None], "int64")
    loss = F.cross_entropy(x, y, reduction="none")
    assert _ops() == ["unsqueeze2", "softmax_with_cross_entropy", "squeeze2"]
    assert loss.shape == (-1,)
    (value,) = _run({"x": LOGITS, "y": LABELS}, [loss])
    np.testing.assert_allclose(value, _nll(_softmax(LOGITS), LABELS), rtol=1e-5)


def test_sum_reduction_and_ignore_index_mean():
    x = paddle.static.data("x", [None, 5], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    total = F.cross_entropy(x, y, reduction="sum")
    kept_mean = F.cross_entropy(x, y, ignore_index=2)
    total_value, mean_value = _run({"x": LOGITS, "y": LABELS[:, None]}, [total, kept_mean])
    nll = _nll(_softmax(LOGITS), LABELS)
    np.testing.assert_allclose(total_value, nll.sum(), rtol=1e-5)
    np.testing.assert_allclose(mean_value, nll[LABELS != 2].sum() / 4, rtol=1e-5)


def test_soft_labels_and_use_softmax_false():
    soft = _softmax(np.random.default_rng(4).normal(size=(6, 5))).astype("float32")
    probs = _softmax(LOGITS)
    x = paddle.static.data("x", [None, 5], "float32")
    p = paddle.static.data("p", [None, 5], "float32")
    s = paddle.static.data("s", [None, 5], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    soft_loss = F.cross_entropy(x, s, soft_label=True, reduction="none")
    prob_loss = F.cross_entropy(p, y, use_softmax=False, reduction="none")
    soft_value, prob_value = _run({"x": LOGITS, "s": soft, "p": probs, "y": LABELS[:, None]},
                                  [soft_loss, prob_loss])
    expected_soft = -(soft * np.log(_softmax(LOGITS))).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(soft_value, expected_soft, rtol=1e-5)
    np.testing.assert_allclose(prob_value[:, 0], _nll(probs, LABELS), rtol=1e-5)


def test_cross_entropy_argument_errors():
    x = paddle.static.data("x", [None, 5], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    with pytest.raises(ValueError, match="'reduction' in softmax_cross_entropy"):
        F.cross_entropy(x, y, reduction="average")
    with pytest.raises(ValueError, match="When soft_label == True"):
        F.cross_entropy(x, x, soft_label=True, ignore_index=3)
    with pytest.raises(ValueError, match="input_dims == label_dims"):
        F.cross_entropy(x, paddle.static.data("z", [None, 1, 1], "int64"))
    with pytest.raises(ValueError, match="Label's dim 1 must be 1"):
        F.cross_entropy(x, paddle.static.data("w", [None, 3], "int64"))


def test_large_logits_stay_finite():
    x = paddle.static.data("x", [None, 3], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    loss = F.cross_entropy(x, y, reduction="none")
    logits = np.array([[1000.0, 0.0, -1000.0], [0.0, 1000.0, 0.0]], dtype="float32")
    (value,) = _run({"x": logits, "y": np.array([[0], [0]])}, [loss])
    np.testing.assert_allclose(value[:, 0], [0.0, 1000.0], rtol=1e-6)


def test_out_of_range_hard_label_names_the_value():
    x = paddle.static.data("x", [None, 3], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    loss = F.cross_entropy(x, y)
    with pytest.raises(Exception, match="label value 7 is out of range"):
        _run({"x": np.zeros((2, 3), "float32"), "y": np.array([[1], [7]])}, [loss])


# -- CrossEntropyLoss on a softmax output (seed 002), square_error_cost, swce ----------------------
def test_cross_entropy_loss_softmaxes_a_softmax_output_again_as_paddle_does():
    x = paddle.static.data("x", [1, 4], "float32")
    y = paddle.static.data("y", [1], "int64")
    prediction = F.softmax(x)
    loss = paddle.nn.loss.CrossEntropyLoss()(prediction, y)
    assert _ops() == ["softmax", "unsqueeze2", "softmax_with_cross_entropy", "reduce_mean"]
    feed_x = np.random.default_rng(5).random((1, 4)).astype("float32")
    (value,) = _run({"x": feed_x, "y": np.array([3])}, [loss])
    twice = _softmax(_softmax(feed_x))
    np.testing.assert_allclose(value, -np.log(twice[0, 3]), rtol=1e-6)


def test_square_error_cost():
    x = paddle.static.data("x", [None, 2], "float32")
    y = paddle.static.data("y", [None, 2], "float32")
    cost = F.square_error_cost(x, y)
    assert _ops() == ["elementwise_sub", "square"]
    a, b = LOGITS[:, :2], LOGITS[:, 2:4]
    (value,) = _run({"x": a, "y": b}, [cost])
    np.testing.assert_allclose(value, (a - b) ** 2, rtol=1e-6)


def test_softmax_with_cross_entropy_returns_softmax_on_request():
    x = paddle.static.data("x", [None, 5], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    loss, softmax = F.softmax_with_cross_entropy(x, y, return_softmax=True)
    assert "use_softmax" in paddle.static.default_main_program().global_block().ops[0].attrs
    loss_value, softmax_value = _run({"x": LOGITS, "y": LABELS[:, None]}, [loss, softmax])
    np.testing.assert_allclose(softmax_value, _softmax(LOGITS), rtol=1e-5)
    np.testing.assert_allclose(loss_value[:, 0], _nll(_softmax(LOGITS), LABELS), rtol=1e-5)


# -- paddle.static.accuracy ------------------------------------------------------------------------
def test_static_accuracy_top1_and_top2():
    x = paddle.static.data("x", [None, 5], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    correct = paddle.static.default_main_program().global_block().create_var(
        name="correct", dtype="int32")
    top1 = paddle.static.accuracy(x, y)
    top2 = paddle.static.accuracy(x, y, k=2, correct=correct)
    assert _ops() == ["top_k_v2", "accuracy", "top_k_v2", "accuracy"]
    topk = paddle.static.default_main_program().global_block().ops[0]
    assert topk.attr("k") == 1 and topk.attr("sorted") is False
    assert top1.name == "accuracy_0.tmp_2" and top1.shape == ()
    acc1, acc2, n_correct = _run({"x": LOGITS, "y": LABELS[:, None]}, [top1, top2, correct])
    ranked = np.argsort(-LOGITS, axis=1)
    expected1 = np.mean(ranked[:, 0] == LABELS)
    expected2 = np.mean((ranked[:, :2] == LABELS[:, None]).any(axis=1))
    assert acc1.dtype == np.float32 and acc1.shape == ()
    np.testing.assert_allclose([acc1, acc2], [expected1, expected2], rtol=1e-6)
    assert n_correct == round(expected2 * len(LABELS))


# -- training parity with Paddle -------------------------------------------------------------------
@needs_shared
def test_train_parity_fixture_losses_and_weights_match_paddle():
    with open(os.path.join(FIXTURES, "train_parity.json")) as f:
        expected = json.load(f)
    data = np.load(os.path.join(FIXTURES, "train_parity.data.npz"))
    x = paddle.static.data("x", [-1, 20], "float32")
    y = paddle.static.data("label", [-1, 1], "int64")
    hidden = paddle.static.nn.fc(x, 30, activation="relu")
    loss = paddle.mean(F.cross_entropy(paddle.static.nn.fc(hidden, 5), y))
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    assert _ops() == expected["main_program_op_types"]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(paddle.static.default_startup_program())
    params = ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"]
    scope = paddle.static.global_scope()
    for i, name in enumerate(params):
        scope.find_var(name).get_tensor().set(data[f"init_{i}"], paddle.CPUPlace())
    losses = [float(exe.run(feed={"x": xs, "label": ys.reshape(-1, 1)}, fetch_list=[loss])[0])
              for xs, ys in zip(data["xs"], data["ys"])]
    np.testing.assert_allclose(losses, expected["losses"], rtol=1e-5)
    for i, name in enumerate(params):
        np.testing.assert_allclose(np.array(scope.find_var(name).get_tensor()),
                                   data[f"final_{i}"], rtol=1e-5, atol=1e-6)


def test_cross_entropy_in_dynamic_mode_runs_the_same_ops_eagerly():
    paddle.disable_static()
    logits = paddle.to_tensor(LOGITS, stop_gradient=False)
    loss = F.cross_entropy(logits, paddle.to_tensor(LABELS))
    loss.backward()
    probs = _softmax(LOGITS)
    np.testing.assert_allclose(loss.numpy(), _nll(probs, LABELS).mean(), rtol=1e-6)
    expected_grad = (probs - np.eye(5)[LABELS]) / len(LABELS)
    np.testing.assert_allclose(logits.grad.numpy(), expected_grad, rtol=1e-5, atol=1e-7)
