"""Dynamic-to-static: to_static tracing, jit.save / jit.load, and the saved files in
load_inference_model (and in real Paddle 2.6 when available)."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.static import InputSpec

PADDLE_PYTHON = os.environ.get("PADDLE_PYTHON") or (
    sys.executable if importlib.util.find_spec("paddle") else None)


@pytest.fixture(autouse=True)
def dygraph():
    paddle.disable_static()
    yield


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(6, 16)
        self.fc2 = paddle.nn.Linear(16, 3)

    def forward(self, x):
        return paddle.nn.functional.softmax(self.fc2(paddle.nn.functional.relu(self.fc1(x))))


class ConvNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(1, 2, 3, padding=1)
        self.fc = paddle.nn.Linear(2 * 4 * 4, 2)

    def forward(self, x):
        return self.fc(paddle.reshape(paddle.nn.functional.relu(self.conv(x)), [-1, 32]))


def test_input_spec():
    spec = InputSpec([None, 784], "float32", "x")
    assert spec.shape == (-1, 784) and spec.dtype == paddle.float32
    assert repr(spec) == "InputSpec(shape=(-1, 784), dtype=paddle.float32, name=x, stop_gradient=False)"
    assert spec.batch(8).shape == (8, -1, 784) and spec.unbatch().shape == (784,)
    assert InputSpec.from_tensor(paddle.ones([2, 3]), "t") == InputSpec([2, 3], "float32", "t")
    with pytest.raises(TypeError, match="should be one of"):
        InputSpec("abc")


@pytest.mark.parametrize("model_class, shape", [(MLP, [5, 6]), (ConvNet, [2, 1, 4, 4])])
def test_to_static_layer_matches_eager(model_class, shape):
    model = model_class()
    x = paddle.randn(shape)
    expected = model(x).numpy()
    spec = InputSpec([None] + shape[1:], "float32", "x")
    static_model = paddle.jit.to_static(model, input_spec=[spec])
    assert static_model is model
    np.testing.assert_allclose(model(x).numpy(), expected, rtol=1e-6, atol=1e-7)
    program = model.forward.concrete_program.main_program
    assert program.global_block().var("x").shape[0] == -1
    assert {p.name for p in program.global_block().all_parameters()} == \
        {p.name for p in model.parameters()}


def test_to_static_sees_parameter_updates():
    model = paddle.jit.to_static(MLP(), input_spec=[InputSpec([None, 6], "float32", "x")])
    x = paddle.randn([2, 6])
    before = model(x).numpy()
    model.fc2.bias._array = model.fc2.bias._array + 1.0     # what an optimizer step does
    model.fc2.weight._array = model.fc2.weight._array * 2.0
    after = model(x).numpy()
    model_eager = model.forward.dygraph_function(model, x).numpy()
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, model_eager, rtol=1e-6)


def test_to_static_function_traces_per_signature_and_fixes_control_flow():
    calls = []
    use_tanh = [True]

    @paddle.jit.to_static
    def f(x, y):
        calls.append(1)
        z = paddle.matmul(x, y)
        return paddle.tanh(z) if use_tanh[0] else paddle.nn.functional.relu(z)

    x, y = paddle.randn([3, 4]), paddle.randn([4, 2])
    out = f(x, y)
    np.testing.assert_allclose(out.numpy(), np.tanh(x.numpy() @ y.numpy()), rtol=1e-6)
    use_tanh[0] = False                       # Python control flow was fixed when traced
    np.testing.assert_allclose(f(x, y).numpy(), out.numpy())
    assert len(calls) == 1
    f(paddle.randn([5, 4]), y)                # a new input signature traces again
    assert len(calls) == 2
    assert out.stop_gradient


def test_to_static_decorated_forward_and_multiple_outputs():
    class TwoHeads(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 2)

        @paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32", "x")])
        def forward(self, x):
            y = self.fc(x)
            return y, y * 2

    model = TwoHeads()
    x = paddle.randn([4, 3])
    a, b = model(x)
    np.testing.assert_allclose(b.numpy(), 2 * a.numpy(), rtol=1e-6)
    reference = model.forward.dygraph_function(model, x)[0].numpy()
    np.testing.assert_allclose(a.numpy(), reference, rtol=1e-6)


def test_to_static_in_static_mode_builds_into_the_current_program():
    paddle.enable_static()
    model = paddle.jit.to_static(MLP())
    x = paddle.static.data("x", [None, 6])
    out = model(x)
    assert isinstance(out, paddle.static.Variable)
    block = paddle.static.default_main_program().global_block()
    assert [op.type for op in block.ops][-1] == "softmax" and len(block.all_parameters()) == 4


def _save(tmp_path, model_class=MLP, shape=(4, 6)):
    model = model_class()
    x = paddle.randn(list(shape))
    expected = model(x).numpy()
    spec = [InputSpec([None] + list(shape[1:]), "float32", "x")]
    path = str(tmp_path / "model")
    paddle.jit.save(paddle.jit.to_static(model, input_spec=spec), path)
    return path, x.numpy(), expected


def test_jit_save_writes_paddle_inference_files(tmp_path):
    path, x, expected = _save(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["model.pdiparams", "model.pdmodel", "model.pdsha256"]
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feeds, fetches = paddle.static.load_inference_model(path, exe)
    assert feeds == ["x"]
    (out,) = exe.run(program, feed={"x": x}, fetch_list=fetches)
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-7)


def test_jit_save_needs_an_input_spec_or_a_call(tmp_path):
    with pytest.raises(ValueError, match="input_spec"):
        paddle.jit.save(MLP(), str(tmp_path / "m"))
    model = paddle.jit.to_static(MLP())
    model(paddle.randn([2, 6]))                 # traced from the call's tensors
    paddle.jit.save(model, str(tmp_path / "m"))
    assert os.path.exists(tmp_path / "m.pdmodel")


@pytest.mark.parametrize("model_class, shape", [(MLP, (4, 6)), (ConvNet, (2, 1, 4, 4))])
def test_jit_load_round_trip(tmp_path, model_class, shape):
    path, x, expected = _save(tmp_path, model_class, shape)
    loaded = paddle.jit.load(path)
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), expected, rtol=1e-6,
                               atol=1e-7)


@pytest.mark.skipif(PADDLE_PYTHON is None, reason="real Paddle not installed (set PADDLE_PYTHON, "
                                                  "see docs/interop.md)")
def test_jit_saved_model_runs_in_real_paddle(tmp_path):
    path, x, expected = _save(tmp_path)
    np.save(tmp_path / "x.npy", x)
    script = textwrap.dedent("""
        import sys, numpy as np, paddle
        path, folder = sys.argv[1], sys.argv[2]
        x = np.load(folder + "/x.npy")
        layer = paddle.jit.load(path)
        np.save(folder + "/jit_out.npy", layer(paddle.to_tensor(x)).numpy())
        paddle.enable_static()
        exe = paddle.static.Executor(paddle.CPUPlace())
        program, feeds, fetches = paddle.static.load_inference_model(path, exe)
        np.save(folder + "/static_out.npy", exe.run(program, feed={feeds[0]: x},
                                                    fetch_list=fetches)[0])
    """)
    subprocess.run([PADDLE_PYTHON, "-c", script, path, str(tmp_path)], check=True)
    np.testing.assert_allclose(np.load(tmp_path / "jit_out.npy"), expected, rtol=1e-5)
    np.testing.assert_allclose(np.load(tmp_path / "static_out.npy"), expected, rtol=1e-5)
