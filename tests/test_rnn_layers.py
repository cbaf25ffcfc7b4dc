"""paddle.nn's recurrent layers: LSTM / GRU / SimpleRNN (one rnn op) against a step-by-step
NumPy reference, the cell loops (RNN, BiRNN) against the stacks they mirror, the same layers in
static programs against eager mode, and a saved LSTM model run by Paddle 2.6."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

import pyfluid as paddle
from test_paddle_interop import PADDLE_PYTHON
from test_sequence_ops import _reference_rnn

_rng = np.random.default_rng(17)
X = _rng.uniform(-1, 1, (3, 5, 4)).astype("float32")          # batch 3, 5 steps, 4 features
LENGTHS = np.array([5, 2, 4], dtype="int64")


def _weights_of(layer) -> list[np.ndarray]:
    """The rnn op's WeightList order: all weights, then all biases."""
    return [p.numpy().astype(np.float64) for p in layer._all_weights]


@pytest.mark.parametrize("cls,mode,kwargs", [
    ("LSTM", "LSTM", {"num_layers": 2, "direction": "bidirect"}),
    ("GRU", "GRU", {"num_layers": 2}),
    ("SimpleRNN", "RNN_TANH", {"direction": "bidirectional"}),
    ("SimpleRNN", "RNN_RELU", {"activation": "relu", "num_layers": 3})])
def test_stacks_match_the_reference(cls, mode, kwargs):
    paddle.disable_static()
    paddle.seed(4)
    layer = getattr(paddle.nn, cls)(4, 3, **kwargs)
    dirs = 2 if kwargs.get("direction", "forward") != "forward" else 1
    layers = kwargs.get("num_layers", 1)
    states = [np.zeros((layers * dirs, 3, 3)) for _ in range(2 if mode == "LSTM" else 1)]
    out, final = layer(paddle.to_tensor(X), sequence_length=paddle.to_tensor(LENGTHS))
    expected, expected_states = _reference_rnn(mode, X.transpose(1, 0, 2).astype(np.float64),
                                               states, _weights_of(layer), LENGTHS, layers,
                                               dirs)
    np.testing.assert_allclose(out.numpy(), expected.transpose(1, 0, 2), rtol=1e-5, atol=1e-6)
    finals = final if isinstance(final, tuple) else (final,)
    for got, want in zip(finals, expected_states):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


def test_time_major_and_initial_states():
    paddle.disable_static()
    gru = paddle.nn.GRU(4, 3, time_major=True)
    h0 = _rng.uniform(-1, 1, (1, 5, 3)).astype("float32")
    out, h = gru(paddle.to_tensor(X), paddle.to_tensor(h0))      # X read as [T=3, B=5, 4]
    expected, (h_n,) = _reference_rnn("GRU", X.astype(np.float64), [h0.astype(np.float64)],
                                      _weights_of(gru), [3] * 5, 1, 1)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), h_n, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cell_cls,mode", [("LSTMCell", "LSTM"), ("GRUCell", "GRU"),
                                           ("SimpleRNNCell", "RNN_TANH")])
def test_cell_loops_agree_with_the_stacks(cell_cls, mode):
    """RNN/BiRNN over cells = the one-op stack with the same weights: equal final states, and
    equal outputs at the valid steps (the cell loop keeps the cell's output past a length)."""
    paddle.disable_static()
    fw, bw = getattr(paddle.nn, cell_cls)(4, 3), getattr(paddle.nn, cell_cls)(4, 3)
    birnn = paddle.nn.BiRNN(fw, bw)
    stack = {"LSTM": paddle.nn.LSTM, "GRU": paddle.nn.GRU}.get(mode, paddle.nn.SimpleRNN)(
        4, 3, direction="bidirect")
    for cell, suffix in ((fw, ""), (bw, "_reverse")):
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(stack, f"{name}_l0{suffix}").set_value(getattr(cell, name).numpy())
    out, (state_fw, state_bw) = birnn(paddle.to_tensor(X),
                                      sequence_length=paddle.to_tensor(LENGTHS))
    ref_out, ref_states = stack(paddle.to_tensor(X), sequence_length=paddle.to_tensor(LENGTHS))
    valid = np.arange(5)[None, :] < LENGTHS[:, None]
    np.testing.assert_allclose(out.numpy()[valid], ref_out.numpy()[valid], rtol=1e-5,
                               atol=1e-6)
    h_fw = state_fw[0] if mode == "LSTM" else state_fw
    h_ref = ref_states[0] if mode == "LSTM" else ref_states
    np.testing.assert_allclose(h_fw.numpy(), h_ref.numpy()[0], rtol=1e-5, atol=1e-6)
    single, _ = paddle.nn.RNN(fw)(paddle.to_tensor(X), sequence_length=paddle.to_tensor(LENGTHS))
    np.testing.assert_allclose(single.numpy(), out.numpy()[..., :3], rtol=1e-6)


def test_static_layers_equal_eager():
    """LSTM (rnn op) and RNN(GRUCell) (unrolled) give eager's values in a static program."""
    paddle.disable_static()
    paddle.seed(9)
    lstm, cell_rnn = paddle.nn.LSTM(4, 3, num_layers=2), paddle.nn.RNN(paddle.nn.GRUCell(4, 3))
    eager = [lstm(paddle.to_tensor(X), sequence_length=paddle.to_tensor(LENGTHS))[0].numpy(),
             cell_rnn(paddle.to_tensor(X), sequence_length=paddle.to_tensor(LENGTHS))[0].numpy()]
    values = {k: v.numpy() for k, v in {**lstm.state_dict(), **{
        f"cell.{k}": v for k, v in cell_rnn.cell.state_dict().items()}}.items()}
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [-1, 5, 4], "float32")
            lengths = paddle.static.data("lengths", [-1], "int64")
            s_lstm = paddle.nn.LSTM(4, 3, num_layers=2)
            s_rnn = paddle.nn.RNN(paddle.nn.GRUCell(4, 3))
            outs = [s_lstm(x, sequence_length=lengths)[0], s_rnn(x, sequence_length=lengths)[0]]
        exe = paddle.static.Executor()
        exe.run(startup)
        scope = paddle.static.global_scope()
        for key, param in s_lstm.state_dict().items():
            scope.var(param.name).get_tensor().set(values[key])
        for key, param in s_rnn.state_dict().items():
            scope.var(param.name).get_tensor().set(values[key])
        static = exe.run(main, feed={"x": X, "lengths": LENGTHS}, fetch_list=outs)
    finally:
        paddle.disable_static()
    for got, want in zip(static, eager):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_rnn_layer_errors():
    paddle.disable_static()
    with pytest.raises(ValueError, match="direction should be forward or bidirect"):
        paddle.nn.LSTM(4, 3, direction="backward")
    with pytest.raises(ValueError, match="Unknown activation 'gelu'"):
        paddle.nn.SimpleRNN(4, 3, activation="gelu")
    with pytest.raises(ValueError, match="hidden_size of GRUCell must be greater than 0"):
        paddle.nn.GRUCell(4, 0)
    with pytest.raises(ValueError, match="input size of forward cell"):
        paddle.nn.BiRNN(paddle.nn.GRUCell(4, 3), paddle.nn.GRUCell(5, 3))
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.static.data("x", [-1, -1, 4], "float32")
            with pytest.raises(NotImplementedError, match="time dimension"):
                paddle.nn.RNN(paddle.nn.LSTMCell(4, 3))(x)
    finally:
        paddle.disable_static()


def test_stacks_need_both_biases():
    """Paddle 2.6's LSTM/GRU/SimpleRNN fail with bias_ih_attr=False: a clear error here."""
    paddle.disable_static()
    with pytest.raises(ValueError, match="GRU needs both biases"):
        paddle.nn.GRU(4, 3, bias_ih_attr=False)
    cell = paddle.nn.GRUCell(4, 3, bias_hh_attr=False)      # the cells take it: zero biases
    assert cell.bias_hh.stop_gradient and not cell.bias_hh.numpy().any()


_PADDLE_SIDE = """
import sys, numpy as np, paddle
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
program, feeds, fetches = paddle.static.load_inference_model(sys.argv[1] + "/m", exe)
data = np.load(sys.argv[1] + "/io.npz")
outs = exe.run(program, feed={"x": data["x"], "sl": data["sl"]}, fetch_list=fetches)
np.savez(sys.argv[1] + "/paddle.npz", *outs)
"""


def test_an_lstm_einsum_model_saved_here_runs_in_paddle(tmp_path):
    """pyfluid's LSTM (rnn op) + einsum + tril program, saved with save_inference_model,
    gives our outputs in Paddle 2.6 (needs PADDLE_PYTHON, as tests/test_paddle_interop.py)."""
    if PADDLE_PYTHON is None:
        pytest.skip("real Paddle not installed (set PADDLE_PYTHON, see docs/interop.md)")
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [-1, 5, 4], "float32")
            lengths = paddle.static.data("sl", [-1], "int64")
            y, (h, _) = paddle.nn.LSTM(4, 3, num_layers=2, direction="bidirect")(
                x, sequence_length=lengths)
            scores = paddle.tril(paddle.einsum("bid,bjd->bij", y, y))
        exe = paddle.static.Executor()
        exe.run(startup)
        ours = exe.run(main, feed={"x": X, "sl": LENGTHS}, fetch_list=[y, h, scores])
        paddle.static.save_inference_model(str(tmp_path / "m"), [x, lengths], [y, h, scores],
                                           exe, program=main)
    finally:
        paddle.disable_static()
    np.savez(tmp_path / "io.npz", x=X, sl=LENGTHS)
    subprocess.run([PADDLE_PYTHON, "-c", _PADDLE_SIDE, str(tmp_path)], check=True,
                   capture_output=True)
    with np.load(tmp_path / "paddle.npz") as theirs:
        for i, mine in enumerate(ours):
            np.testing.assert_allclose(theirs[f"arr_{i}"], mine, rtol=1e-5, atol=1e-6)
