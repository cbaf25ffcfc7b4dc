"""Whole models exported to ONNX: the MNIST MLP and LeNet of examples/, Paddle 2.6's fixture
models (through `pyfluid onnx`), a dygraph Layer through paddle.onnx.export. One file each,
run by onnxruntime at batch sizes 1 and 3, must reproduce pyfluid's outputs."""
from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from onnx_check import check_file_at_batches, compare, onnx, ort
from shared_fixtures import PADDLE_FIXTURES, REPO_ROOT, needs_shared

import pyfluid as paddle
from pyfluid.cli import main as cli_main
from pyfluid.executor import Scope, global_scope, scope_guard


def _example(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_example",
                                                  REPO_ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _randomize_running_stats(program, rng):
    """Non-trivial batch_norm statistics, so inference mode is really exercised."""
    for var in program.global_block().vars.values():
        if var.persistable and (".w_1" in var.name or ".w_2" in var.name):
            shape = [int(d) for d in var.shape]
            value = rng.uniform(0.5, 1.5, shape) if ".w_2" in var.name else rng.normal(0, .2, shape)
            global_scope().var(var.name).get_tensor().set(value.astype(np.float32))


def test_mnist_mlp_network_exports(tmp_path):
    mlp = _example("mnist_mlp")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        image, _, probabilities, *_ = mlp.build_network([64, 32], py_func_relu=False)
    paddle.static.Executor().run(startup)
    path = paddle.static.export_onnx(main, [image], [probabilities], str(tmp_path / "mlp"))
    assert path.endswith("mlp.onnx")
    model = onnx.load(path)
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param    # symbolic batch
    assert {t.name for t in model.graph.initializer} >= {"fc_0.w_0", "fc_0.b_0", "fc_2.w_0"}
    check_file_at_batches(path, main.clone(for_test=True), ["image"], [probabilities],
                          global_scope())


def test_lenet_exports_in_inference_mode(tmp_path):
    lenet = _example("lenet_mnist")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        image = paddle.static.data("image", [None, 1, 28, 28], "float32")
        label = paddle.static.data("label", [None, 1], "int64")
        logits, loss = lenet.build_lenet(image, label)
        test_program = main.clone(for_test=True)
        paddle.optimizer.Adam(learning_rate=1e-3).minimize(loss)
    paddle.static.Executor().run(startup)
    _randomize_running_stats(main, np.random.default_rng(3))
    # the training program (dropout/batch_norm in training mode, optimizer ops) exports its
    # inference part
    path = paddle.static.export_onnx(main, [image], [logits], str(tmp_path / "lenet.onnx"))
    check_file_at_batches(path, test_program, ["image"], [logits], global_scope())


@needs_shared
@pytest.mark.parametrize("name", ["mlp_small", "convnet_small", "norm_mix"])
def test_paddle_fixture_converts_with_the_cli(name, tmp_path, capsys):
    prefix = str(PADDLE_FIXTURES / name)
    out = str(tmp_path / f"{name}.onnx")
    assert cli_main(["onnx", prefix + ".pdmodel", "-o", out]) == 0
    assert "wrote" in capsys.readouterr().out
    scope = Scope()
    with scope_guard(scope):
        program, feeds, fetches = paddle.static.load_inference_model(prefix,
                                                                     paddle.static.Executor())
    check_file_at_batches(out, program, feeds, fetches, scope)
    recorded = np.load(prefix + ".io.npz")          # and Paddle 2.6.2's own outputs
    sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    got = sess.run(None, {feeds[0]: recorded["x"]})
    compare([recorded[f"y{i}"] for i in range(len(got))], got,
            [v.name for v in fetches])


class _SmallNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(3, 4, 3, padding=1)
        self.norm = paddle.nn.BatchNorm2D(4)
        self.fc = paddle.nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        h = paddle.nn.functional.relu(self.norm(self.conv(x)))
        h = paddle.nn.functional.max_pool2d(h, 2)
        return paddle.nn.functional.softmax(self.fc(paddle.flatten(h, 1)))


def test_paddle_onnx_export_of_a_layer(tmp_path):
    paddle.disable_static()
    try:
        net = _SmallNet()
        net.eval()
        spec = paddle.static.InputSpec([None, 3, 8, 8], "float32", "x")
        paddle.onnx.export(net, str(tmp_path / "small_net"), input_spec=[spec])
        sess = ort.InferenceSession(str(tmp_path / "small_net.onnx"),
                                    providers=["CPUExecutionProvider"])
        assert [i.name for i in sess.get_inputs()] == ["x"]
        for batch in (1, 3):
            x = np.random.default_rng(batch).normal(size=(batch, 3, 8, 8)).astype(np.float32)
            expected = net(paddle.to_tensor(x)).numpy()
            compare([expected], sess.run(None, {"x": x}), ["softmax"])
    finally:
        paddle.enable_static()
    assert os.path.exists(tmp_path / "small_net.onnx")


def test_mnist_example_export_onnx_gets_our_accuracy(tmp_path):
    from test_examples import make_data_dir
    mlp = _example("mnist_mlp")
    summary = mlp.main(["--epochs", "1", "--hidden", "64", "--batch-size", "64",
                        "--data-dir", make_data_dir(tmp_path, use_cache=False),
                        "--out", str(tmp_path / "out"), "--export-onnx"])
    assert summary["onnx_accuracy"] == summary["test_accuracy"] > 0.5
    assert os.path.exists(tmp_path / "out" / "model" / "mnist_mlp.onnx")


class _TwoOutputs(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        y = self.fc(x)
        return y, paddle.tanh(y)


def test_paddle_onnx_export_with_output_spec_and_of_a_to_static_function(tmp_path):
    paddle.disable_static()
    try:
        spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
        net = paddle.jit.to_static(_TwoOutputs(), input_spec=spec)
        tanh_out = net.forward.concrete_program.outputs[1].name
        paddle.onnx.export(net, str(tmp_path / "net"), input_spec=spec, output_spec=[tanh_out])
        x = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
        sess = ort.InferenceSession(str(tmp_path / "net.onnx"), providers=["CPUExecutionProvider"])
        assert [o.name for o in sess.get_outputs()] == [tanh_out]
        compare([net(paddle.to_tensor(x))[1].numpy()], sess.run(None, {"x": x}), ["tanh"])
        double = paddle.jit.to_static(lambda v: paddle.tanh(v) * 2, input_spec=spec)
        paddle.onnx.export(double, str(tmp_path / "double"))
        sess = ort.InferenceSession(str(tmp_path / "double.onnx"),
                                    providers=["CPUExecutionProvider"])
        compare([np.tanh(x) * 2], sess.run(None, {"x": x}), ["double"])
    finally:
        paddle.enable_static()
