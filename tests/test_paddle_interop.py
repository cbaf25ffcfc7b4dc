"""Interop with real PaddlePaddle 2.6: files written by pyfluid (an MLP, and a model whose ops
lost their extra outputs on saving) load in Paddle and give our outputs; checkpoints written by
Paddle load in pyfluid. Skipped unless Paddle is available:
either ``import paddle`` works here, or PADDLE_PYTHON names a Python that has it (see
docs/interop.md)."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyfluid as paddle_like
from test_paddle_files import _shape_net

PADDLE_PYTHON = os.environ.get("PADDLE_PYTHON") or (
    sys.executable if importlib.util.find_spec("paddle") else None)
pytestmark = pytest.mark.skipif(PADDLE_PYTHON is None, reason="real Paddle not installed "
                                "(set PADDLE_PYTHON, see docs/interop.md)")

PADDLE_SIDE = textwrap.dedent("""
    import sys, numpy as np, paddle
    paddle.enable_static()
    folder = sys.argv[1]
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feeds, fetches = paddle.static.load_inference_model(folder + "/model", exe)
    x = np.load(folder + "/input.npy")
    outs = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)
    shapes, shape_feeds, shape_fetches = paddle.static.load_inference_model(folder + "/shapes",
                                                                            exe)
    shape_out, = exe.run(shapes, feed={shape_feeds[0]: np.load(folder + "/shapes_input.npy")},
                         fetch_list=shape_fetches)
    np.save(folder + "/paddle_shapes_out.npy", shape_out)
    state = paddle.static.load_program_state(folder + "/ckpt")
    np.savez(folder + "/paddle_out.npz", feeds=np.array(feeds), *outs,
             **{"state:" + k: v for k, v in state.items()})

    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        data = paddle.static.data("data", [None, 3], "float32")
        out = paddle.static.nn.fc(data, 2)
        loss = paddle.mean(out)
        paddle.optimizer.Momentum(0.1).minimize(loss)
    exe.run(startup)
    exe.run(main, feed={"data": np.ones((2, 3), np.float32)}, fetch_list=[loss])
    for protocol in (2, 4):
        paddle.static.save(main, folder + f"/paddle_ckpt{protocol}", protocol=protocol)
    np.savez(folder + "/paddle_state.npz", **{k: np.array(v) for k, v in
                                               main.state_dict("all").items()})
""")


def _train_and_save(folder):
    paddle = paddle_like
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 6], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        hidden = paddle.static.nn.fc(x, 16, activation="relu")
        logits = paddle.static.nn.fc(hidden, 3)
        prob = paddle.nn.functional.softmax(logits)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, y))
        paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    rng = np.random.RandomState(0)
    for _ in range(5):
        exe.run(main, feed={"x": rng.rand(8, 6).astype(np.float32),
                            "y": rng.randint(0, 3, (8, 1)).astype(np.int64)}, fetch_list=[loss])
    sample = rng.rand(4, 6).astype(np.float32)
    test_program = main.clone(for_test=True)
    expected = exe.run(test_program, feed={"x": sample, "y": np.zeros((4, 1), np.int64)},
                       fetch_list=[logits, prob])
    paddle.static.save_inference_model(os.path.join(folder, "model"), [x], [logits, prob], exe,
                                       program=test_program)
    paddle.static.save(main, os.path.join(folder, "ckpt"))
    np.save(os.path.join(folder, "input.npy"), sample)
    return expected, {k: np.array(v) for k, v in main.state_dict("all").items()}


def _save_shape_model(folder):
    """An inference model whose ops lost their extra outputs (XShape, Mask) on saving."""
    paddle = paddle_like
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, out = _shape_net()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    test_program = main.clone(for_test=True)
    sample = np.random.RandomState(1).rand(5, 2, 3).astype(np.float32)
    expected = exe.run(test_program, feed={"x": sample}, fetch_list=[out])[0]
    paddle.static.save_inference_model(os.path.join(folder, "shapes"), [x], [out], exe,
                                       program=test_program)
    np.save(os.path.join(folder, "shapes_input.npy"), sample)
    return expected


def test_pyfluid_files_load_in_paddle_and_paddle_checkpoints_load_here(tmp_path):
    expected, state = _train_and_save(str(tmp_path))
    expected_shapes = _save_shape_model(str(tmp_path))
    script = tmp_path / "paddle_side.py"
    script.write_text(PADDLE_SIDE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([PADDLE_PYTHON, str(script), str(tmp_path)], capture_output=True,
                         text=True, timeout=300, cwd=str(tmp_path), env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    got = np.load(tmp_path / "paddle_out.npz")
    assert list(got["feeds"]) == ["x"]
    for i, want in enumerate(expected):
        np.testing.assert_allclose(got[f"arr_{i}"], want, rtol=0, atol=1e-5)
    np.testing.assert_allclose(np.load(tmp_path / "paddle_shapes_out.npy"), expected_shapes,
                               rtol=0, atol=1e-5)
    loaded_by_paddle = {k[len("state:"):]: got[k] for k in got.files if k.startswith("state:")}
    assert loaded_by_paddle.keys() == state.keys()
    for name, value in state.items():
        np.testing.assert_array_equal(loaded_by_paddle[name], value)

    paddle_state = np.load(tmp_path / "paddle_state.npz")
    for protocol in (2, 4):
        ours = paddle_like.static.load_program_state(str(tmp_path / f"paddle_ckpt{protocol}"))
        assert sorted(ours) == sorted(paddle_state.files)
        for name in paddle_state.files:
            np.testing.assert_array_equal(ours[name], paddle_state[name].reshape(ours[name].shape))
