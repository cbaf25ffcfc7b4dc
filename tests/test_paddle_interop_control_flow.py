"""Programs with control flow that pyfluid saves (cond, while_loop, switch_case, tensor
arrays) load and run in real PaddlePaddle 2.6 with pyfluid's outputs. Skipped unless Paddle is
available (``import paddle`` works, or PADDLE_PYTHON names a Python that has it; see
docs/interop.md)."""
import os
import subprocess
import textwrap

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from test_paddle_interop import PADDLE_PYTHON

pytestmark = pytest.mark.skipif(PADDLE_PYTHON is None, reason="real Paddle not installed "
                                "(set PADDLE_PYTHON, see docs/interop.md)")

PADDLE_SIDE = textwrap.dedent("""
    import sys, numpy as np, paddle
    paddle.enable_static()
    folder = sys.argv[1]
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feeds, fetches = paddle.static.load_inference_model(folder + "/model", exe)
    inputs = np.load(folder + "/inputs.npz")
    results = {}
    for case in sorted({k.split("/")[0] for k in inputs.files}):
        feed = {name: inputs[case + "/" + name] for name in feeds}
        for i, value in enumerate(exe.run(program, feed=feed, fetch_list=fetches)):
            results[f"{case}/{i}"] = value
    np.savez(folder + "/paddle_out.npz", **results)
""")


def _model():
    nn = static.nn
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        idx = static.data("idx", [1], "int64")
        h = static.nn.fc(x, 4, activation="tanh")
        h = nn.cond(paddle.mean(h) > 0, lambda: static.nn.fc(h, 4), lambda: h * -2.0)
        array = paddle.tensor.create_array("float32")

        def body(i, h, array):
            h = paddle.tanh(static.nn.fc(h, 4, name="cell"))
            paddle.tensor.array_write(h, i, array=array)
            return [i + 1, h, array]
        _, h, array = nn.while_loop(lambda i, h, a: i < 3, body,
                                    [paddle.zeros([1], "int64"), h, array])
        steps, _ = paddle.tensor.tensor_array_to_tensor(array, axis=1)
        picked = nn.switch_case(idx, {0: lambda: h * 10.0, 1: lambda: h + 1.0},
                                default=lambda: h)
    return main, startup, x, idx, [steps, picked]


def test_paddle_runs_pyfluid_control_flow_models(tmp_path):
    main, startup, x, idx, outs = _model()
    exe = static.Executor()
    exe.run(startup)
    static.save_inference_model(str(tmp_path / "model"), [x, idx], outs, exe, program=main)
    rng = np.random.default_rng(0)
    inputs, expected = {}, {}
    program, feeds, fetches = static.load_inference_model(str(tmp_path / "model"), exe)
    for case, (shift, branch) in enumerate([(1.0, 0), (-1.0, 1), (0.5, 4)]):
        feed = {"x": rng.normal(shift, 1, (2, 3)).astype("float32"),
                "idx": np.array([branch], "int64")}
        inputs.update({f"c{case}/{k}": v for k, v in feed.items()})
        for i, value in enumerate(exe.run(program, feed=feed, fetch_list=fetches)):
            expected[f"c{case}/{i}"] = value
    np.savez(tmp_path / "inputs.npz", **inputs)
    script = tmp_path / "paddle_side.py"
    script.write_text(PADDLE_SIDE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([PADDLE_PYTHON, str(script), str(tmp_path)], capture_output=True,
                         text=True, timeout=300, cwd=str(tmp_path), env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    got = np.load(tmp_path / "paddle_out.npz")
    assert sorted(got.files) == sorted(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=0, atol=1e-5, err_msg=key)
