"""Dynamic-to-static both ways with Paddle 2.6:

* Paddle's AST-mode ``jit.save`` output (tests/paddle_models/cf26/d2s_*: if/elif/else, while,
  for over range(Tensor), break/continue, early return, nested loops, list append) loads with
  ``paddle.jit.load`` and gives Paddle's recorded outputs;
* pyfluid's conversion of the same Layer source, with Paddle's weights, gives them too;
* pyfluid's ``jit.save`` of converted Layers with cond/while ops loads in Paddle 2.6 (both
  ``paddle.jit.load`` and ``load_inference_model``) and gives pyfluid's outputs (with
  PADDLE_PYTHON, see docs/interop.md).
"""
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pyfluid as paddle
from dy2static_cases import GatedLoop, _x
from paddle_alias import import_paddle_module
from pyfluid.static import InputSpec
from shared_fixtures import REPO_ROOT

CF26 = Path(__file__).resolve().parent / "paddle_models" / "cf26"
# the Layers Paddle converted into CF26's d2s_* models, imported here on pyfluid
LAYERS = import_paddle_module(REPO_ROOT / "tools" / "paddle_models" / "d2s_layers.py",
                              "d2s_layers_on_pyfluid")
XS, NS = InputSpec([None, 4], "float32", "x"), InputSpec([1], "int64", "n")
SPECS = {"d2s_if_else": (LAYERS.IfElse, [XS]), "d2s_if_elif_else": (LAYERS.IfElifElse, [XS]),
         "d2s_while": (LAYERS.WhileLoop, [XS, NS]), "d2s_for_range": (LAYERS.ForRange, [XS, NS]),
         "d2s_break_continue": (LAYERS.BreakContinue,
                                [XS, NS, InputSpec([1], "float32", "limit")]),
         "d2s_early_return": (LAYERS.EarlyReturn, [XS]),
         "d2s_nested_loop_if": (LAYERS.NestedLoopIf, [XS, NS]),
         "d2s_list_append": (LAYERS.ListAppend, [XS, NS])}
PADDLE_PYTHON = os.environ.get("PADDLE_PYTHON") or (
    sys.executable if importlib.util.find_spec("paddle") else None)


@pytest.fixture(autouse=True)
def dygraph():
    paddle.disable_static()
    yield


def _recorded(name):
    with np.load(CF26 / f"{name}.io.npz") as npz:
        data = {k: npz[k] for k in npz.files}
    for k in range(int(data["num_cases"])):
        inputs = [data[f"x{i}_{k}"] for i in range(8) if f"x{i}_{k}" in data]
        outputs = [data[f"y{j}_{k}"] for j in range(8) if f"y{j}_{k}" in data]
        yield inputs, outputs


def _outputs(result):
    return [r.numpy() for r in (result if isinstance(result, (list, tuple)) else [result])]


@pytest.mark.parametrize("name", sorted(SPECS))
def test_paddle_converted_model_loads_with_jit_load(name):
    layer = paddle.jit.load(str(CF26 / name))
    for inputs, expected in _recorded(name):
        got = _outputs(layer(*[paddle.to_tensor(x) for x in inputs]))
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_our_conversion_of_the_same_source_gives_paddles_outputs(name):
    layer_class, specs = SPECS[name]
    loaded = paddle.jit.load(str(CF26 / name))
    assert loaded._feed_names == [s.name for s in specs]
    layer = layer_class()
    layer.eval()
    for param, paddle_name in zip(layer.parameters(), ["linear_0.w_0", "linear_0.b_0"]):
        param.set_value(loaded._scope.find_var(paddle_name).get_tensor()._array)
    static = paddle.jit.to_static(layer, input_spec=specs)
    for inputs, expected in _recorded(name):
        got = _outputs(static(*[paddle.to_tensor(x) for x in inputs]))
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


class LoopsAndLists(paddle.nn.Layer):
    """for over range(Tensor) with continue/break, a list appended in the loop, early
    return: the other constructs, for the Paddle round trip."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x, n):
        h = self.fc(x)
        outs = [h]
        for i in range(n):
            if i % 2 == 1:
                continue
            h = paddle.tanh(h) + 0.5
            outs.append(h)
            if paddle.max(h) > 1.4:
                break
        if paddle.mean(h) < 0:
            return outs[-1] * 2.0
        return outs[-1] - h


def _save_ours(folder):
    paddle.seed(11)
    cases = {}
    gated = GatedLoop()
    gated.eval()
    paddle.jit.save(paddle.jit.to_static(gated, input_spec=[InputSpec([None, 4], "float32",
                                                                      "x")]),
                    str(folder / "gated"))
    cases["gated"] = [([_x(k, seed=s)], _outputs(gated(paddle.to_tensor(_x(k, seed=s)))))
                      for k in ("pos", "neg", "big") for s in (0, 1)]
    loops = LoopsAndLists()
    static = paddle.jit.to_static(loops, input_spec=[InputSpec([None, 4], "float32", "x"),
                                                     InputSpec([1], "int64", "n")])
    paddle.jit.save(static, str(folder / "loops"))
    cases["loops"] = []
    for k, n in (("pos", 0), ("mixed", 1), ("neg", 4), ("big", 6)):
        inputs = [_x(k), np.array([n], "int64")]
        cases["loops"].append((inputs, _outputs(static(*[paddle.to_tensor(v)
                                                          for v in inputs]))))
    return cases


def test_our_saved_converted_models_load_back(tmp_path):
    cases = _save_ours(tmp_path)
    for name, runs in cases.items():
        layer = paddle.jit.load(str(tmp_path / name))
        program = layer.program()
        assert {"conditional_block", "while"} <= {op.type for b in program.blocks
                                                  for op in b.ops}
        for inputs, expected in runs:
            got = _outputs(layer(*[paddle.to_tensor(v) for v in inputs]))
            for g, e in zip(got, expected):
                np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)


PADDLE_SIDE = textwrap.dedent("""
    import sys, numpy as np, paddle
    folder = sys.argv[1]
    data = np.load(folder + "/cases.npz")
    results = {}
    for name in ("gated", "loops"):
        layer = paddle.jit.load(folder + "/" + name)
        for k in range(int(data[name + "_count"])):
            inputs = [data[f"{name}_{k}_in{i}"] for i in range(int(data[name + "_arity"]))]
            outs = layer(*[paddle.to_tensor(v) for v in inputs])
            outs = outs if isinstance(outs, (list, tuple)) else [outs]
            results[f"jit_{name}_{k}"] = outs[0].numpy()
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    for name in ("gated", "loops"):
        program, feeds, fetches = paddle.static.load_inference_model(folder + "/" + name, exe)
        for k in range(int(data[name + "_count"])):
            feed = {f: data[f"{name}_{k}_in{i}"] for i, f in enumerate(feeds)}
            results[f"static_{name}_{k}"] = exe.run(program, feed=feed, fetch_list=fetches)[0]
    np.savez(folder + "/paddle_out.npz", **results)
""")


@pytest.mark.skipif(PADDLE_PYTHON is None, reason="real Paddle not installed (set "
                                                  "PADDLE_PYTHON, see docs/interop.md)")
def test_our_saved_converted_models_run_in_paddle(tmp_path):
    cases = _save_ours(tmp_path)
    arrays = {}
    for name, runs in cases.items():
        arrays[f"{name}_count"] = np.array(len(runs))
        arrays[f"{name}_arity"] = np.array(len(runs[0][0]))
        for k, (inputs, _) in enumerate(runs):
            for i, value in enumerate(inputs):
                arrays[f"{name}_{k}_in{i}"] = value
    np.savez(tmp_path / "cases.npz", **arrays)
    subprocess.run([PADDLE_PYTHON, "-c", PADDLE_SIDE, str(tmp_path)], check=True,
                   capture_output=True, timeout=300)
    with np.load(tmp_path / "paddle_out.npz") as paddle_out:
        for name, runs in cases.items():
            for k, (_, expected) in enumerate(runs):
                for mode in ("jit", "static"):
                    np.testing.assert_allclose(paddle_out[f"{mode}_{name}_{k}"], expected[0],
                                               rtol=1e-5, atol=1e-6)
