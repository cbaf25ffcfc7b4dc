"""examples/lstm_text_classifier.py: its model's loss and gradients equal Paddle 2.6's for one
step from the same weights (tests/paddle_grads/lstm_classifier_26.npz, recorded by
tools/paddle_references/record_lstm_grads.py), in eager and in static mode; and it trains (the loss
goes down) in both modes."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import pyfluid as paddle

HERE = Path(__file__).resolve().parent
RECORD = HERE / "paddle_grads" / "lstm_classifier_26.npz"
_spec = importlib.util.spec_from_file_location(
    "lstm_text_classifier", HERE.parent / "examples" / "lstm_text_classifier.py")
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)


@pytest.fixture(scope="module")
def recorded():
    with np.load(RECORD) as npz:
        return {k: npz[k] for k in npz.files}


def _model():
    """The recorded configuration of the example's model: 2 bidirectional LSTM layers."""
    return example.LSTMClassifier(vocab_size=50, embed_dim=8, hidden_size=6, num_layers=2)


def _names(recorded, prefix):
    return sorted(k[len(prefix):] for k in recorded if k.startswith(prefix))


def test_eager_gradients_match_paddle(recorded):
    paddle.disable_static()
    model = _model()
    params = dict(model.named_parameters())
    assert sorted(params) == _names(recorded, "w:")
    for name, param in params.items():
        param.set_value(recorded[f"w:{name}"])
    logits = model(paddle.to_tensor(recorded["tokens"]), paddle.to_tensor(recorded["lengths"]))
    loss = paddle.nn.functional.cross_entropy(logits, paddle.to_tensor(recorded["labels"]))
    loss.backward()
    np.testing.assert_allclose(float(loss), recorded["loss"], rtol=1e-5)
    for name, param in params.items():
        np.testing.assert_allclose(param.grad.numpy(), recorded[f"g:{name}"], rtol=1e-3,
                                   atol=1e-6, err_msg=name)


def test_static_gradients_match_paddle(recorded):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            tokens = paddle.static.data("tokens", [None, 12], "int64")
            lengths = paddle.static.data("lengths", [None], "int64")
            labels = paddle.static.data("labels", [None, 1], "int64")
            model = _model()
            loss = paddle.nn.functional.cross_entropy(model(tokens, lengths), labels)
            params = dict(model.named_parameters())
            grads = paddle.static.gradients([loss], list(params.values()))
        assert "rnn" in [op.type for op in main.global_block().ops]
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        scope = paddle.static.global_scope()
        for name, param in params.items():
            scope.var(param.name).get_tensor().set(recorded[f"w:{name}"])
        values = exe.run(main, feed={k: recorded[k] for k in ("tokens", "lengths", "labels")},
                         fetch_list=[loss] + grads)
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(float(values[0]), recorded["loss"], rtol=1e-5)
    for name, grad in zip(params, values[1:]):
        np.testing.assert_allclose(grad, recorded[f"g:{name}"], rtol=1e-3, atol=1e-6,
                                   err_msg=name)


@pytest.mark.parametrize("train", [example.train_eager, example.train_static],
                         ids=["eager", "static"])
def test_the_classifier_learns(train):
    losses = train(steps=60, batch=32, seed=3, log_every=0)
    first, last = np.mean(losses[:10]), np.mean(losses[-10:])
    assert last < 0.6 * first, f"loss {first:.3f} -> {last:.3f}"
