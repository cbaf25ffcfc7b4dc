"""Interop with real PaddlePaddle 3 (default flags, PIR on): PIR JSON files written by pyfluid
load and run in Paddle 3 and give pyfluid's outputs. Written here: a model trained by
pyfluid (``save_inference_model(format="pir")``), programs of indexing and convolution ops,
a Layer (``jit.save(format="pir")``), every Paddle 3 model of tests/paddle_models/pir33
pyfluid can run, read and written back, and Paddle 2.6 models of tests/paddle_models (zoo26,
cf26) converted from ``.pdmodel``.

Skipped unless Paddle 3 is available: PADDLE3_PYTHON names a Python that has it (see
docs/interop.md), or ``import paddle`` works here and gives 3.x."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import conv_api_script
import pyfluid as paddle
from pyfluid.executor import Scope, scope_guard
from pyfluid.io import ModelFileError
from pyfluid.io.pir import program_to_json


def _local_paddle3() -> str | None:
    if importlib.util.find_spec("paddle") is None:
        return None
    import paddle as real   # noqa: F811  (only when it is a real Paddle 3)
    return sys.executable if str(getattr(real, "__version__", "")).startswith("3.") else None


PADDLE3_PYTHON = os.environ.get("PADDLE3_PYTHON") or _local_paddle3()
pytestmark = pytest.mark.skipif(PADDLE3_PYTHON is None, reason="Paddle 3 not installed (set "
                                "PADDLE3_PYTHON, see docs/interop.md)")
MODELS = Path(__file__).resolve().parent / "paddle_models"

RUNNER = textwrap.dedent("""
    import json, sys, numpy as np
    cases = json.load(open(sys.argv[1]))
    import paddle
    paddle.enable_static()
    report = {}
    for prefix, inputs in cases.items():
        exe = paddle.static.Executor(paddle.CPUPlace())
        try:
            with paddle.static.scope_guard(paddle.static.Scope()):
                program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
                outs = []
                for case in inputs:
                    arrays = np.load(case)
                    values = exe.run(program, feed={n: arrays[n] for n in feeds},
                                     fetch_list=fetches)
                    np.savez(case + ".out.npz", *values)
                    outs.append(case + ".out.npz")
                report[prefix] = {"feeds": list(feeds), "outputs": outs}
        except Exception as exc:
            report[prefix] = {"error": str(exc)[-2000:]}
    json.dump(report, open(sys.argv[2], "w"))
""")


def _run_in_paddle3(folder: Path, cases: dict[str, list[dict]]) -> dict:
    """Run every model (prefix -> input sets) in one Paddle 3 process."""
    listing = {}
    for prefix, inputs in cases.items():
        listing[prefix] = []
        for k, feed in enumerate(inputs):
            path = f"{prefix}.case{k}.npz"
            np.savez(path, **feed)
            listing[prefix].append(path)
    (folder / "cases.json").write_text(json.dumps(listing))
    (folder / "runner.py").write_text(RUNNER)
    run = subprocess.run([PADDLE3_PYTHON, str(folder / "runner.py"), str(folder / "cases.json"),
                          str(folder / "report.json")], capture_output=True, text=True,
                         timeout=1800)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads((folder / "report.json").read_text())


def _outputs(report: dict, prefix: str) -> list[list[np.ndarray]]:
    entry = report[prefix]
    assert "error" not in entry, f"Paddle 3 failed on {prefix}: {entry.get('error')}"
    result = []
    for path in entry["outputs"]:
        with np.load(path) as npz:
            result.append([npz[f"arr_{i}"] for i in range(len(npz.files))])
    return result


def _pyfluid_outputs(prefix: str, feeds_list: list[dict]) -> list[list[np.ndarray]]:
    exe = paddle.static.Executor()
    with scope_guard(Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        return [[np.asarray(v) for v in exe.run(program, feed=feed, fetch_list=fetches)]
                for feed in feeds_list]


def _recorded_feeds(prefix: Path, feed_names: list[str]) -> list[dict]:
    with np.load(str(prefix) + ".io.npz") as npz:
        data = {k: npz[k] for k in npz.files}
    suffixes = ([f"_{k}" for k in range(int(data["num_cases"]))] if "num_cases" in data
                else [""])
    return [{n: data[f"x{i}{s}"] for i, n in enumerate(feed_names)} for s in suffixes]


def test_pyfluid_pir_files_run_in_paddle3(tmp_path):
    """A trained model, a Layer through jit.save, and every runnable model of the corpora
    written as PIR JSON by pyfluid: Paddle 3 gives pyfluid's outputs."""
    cases, expected = {}, {}
    # a model trained by pyfluid
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 6], "float32")
        label = paddle.static.data("label", [None, 1], "int64")
        hidden = paddle.static.nn.fc(x, 16, activation="relu")
        logits = paddle.static.nn.fc(paddle.nn.functional.dropout(hidden, 0.2), 3)
        prob = paddle.nn.functional.softmax(logits)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, label))
        paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    exe = paddle.static.Executor()
    exe.run(startup)
    rng = np.random.RandomState(0)
    for _ in range(3):
        exe.run(main, feed={"x": rng.rand(8, 6).astype(np.float32),
                            "label": rng.randint(0, 3, (8, 1)).astype(np.int64)})
    test_program = main.clone(for_test=True)
    prefix = str(tmp_path / "trained")
    paddle.static.save_inference_model(prefix, [x], [logits, prob], exe, program=test_program,
                                       format="pir")
    cases[prefix] = [{"x": rng.rand(4, 6).astype(np.float32)}]
    # index assignment (set_value, both forms), gather_nd, broadcast_tensors, nonzero
    ops_main, ops_startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(ops_main, ops_startup):
        x2 = paddle.static.data("x", [None, 4], "float32")
        index = paddle.static.data("idx", [None, 2], "int64")
        y = paddle.static.setitem(paddle.nn.functional.relu(x2) * 1.0, slice(0, 1), 2.5)
        y = paddle.static.setitem(y, slice(1, 2), paddle.full([1, 4], -1.0))
        wide, half = paddle.broadcast_tensors([x2, paddle.full([1, 4], 0.5)])
        fetched = [paddle.gather_nd(y, index) + 1.0, wide, half, paddle.nonzero(x2 > 0), y]
    with pytest.warns(UserWarning, match="no variable in your model"):   # it has no weights
        paddle.static.save_inference_model(str(tmp_path / "ops"), [x2, index], fetched, exe,
                                           program=ops_main, format="pir")
    cases[str(tmp_path / "ops")] = [{"x": rng.randn(3, 4).astype(np.float32),
                                     "idx": np.array([[0, 1], [2, 3]], np.int64)}]
    # the convolutions of tests/conv_api_script.py (conv1d, conv1d_transpose, conv3d_transpose)
    conv_main, conv_startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(conv_main, conv_startup):
        conv_fetches = conv_api_script.build(paddle)
    conv_feeds = [conv_main.global_block().var(n) for n in conv_api_script.FEED_SHAPES]
    with pytest.warns(UserWarning, match="no variable in your model"):   # weights are fed
        paddle.static.save_inference_model(str(tmp_path / "conv"), conv_feeds, conv_fetches,
                                           exe, program=conv_main, format="pir")
    cases[str(tmp_path / "conv")] = [conv_api_script.feeds()]
    # a Layer through jit.save
    paddle.disable_static()
    try:
        layer = paddle.nn.Sequential(paddle.nn.Conv2D(1, 4, 3), paddle.nn.BatchNorm2D(4),
                                     paddle.nn.ReLU(), paddle.nn.AdaptiveAvgPool2D(1),
                                     paddle.nn.Flatten(), paddle.nn.Linear(4, 2))
        layer.eval()
        paddle.jit.save(layer, str(tmp_path / "layer"), format="pir", input_spec=[
            paddle.static.InputSpec([None, 1, 8, 8], "float32", "image")])
    finally:
        paddle.enable_static()
    cases[str(tmp_path / "layer")] = [{"image": rng.rand(2, 1, 8, 8).astype(np.float32)}]
    # the corpora: Paddle 3 models read and written back; Paddle 2.6 models converted
    sources = [MODELS / "pir33" / n for n in sorted(json.loads(
        (MODELS / "pir33" / "manifest.json").read_text())["models"])]
    for corpus in ("zoo26", "cf26"):
        sources += [MODELS / corpus / n for n in sorted(json.loads(
            (MODELS / corpus / "manifest.json").read_text())["models"])]
    written = 0
    for source in sources:
        try:
            with scope_guard(Scope()):
                program, feeds, _ = paddle.static.load_inference_model(str(source), exe)
                data = program_to_json(program)
        except ModelFileError:
            continue            # an op pyfluid cannot run yet
        target = tmp_path / f"{source.parent.name}_{source.name}"
        target.with_suffix(".json").write_bytes(data)
        params = Path(str(source) + ".pdiparams")
        if params.exists():
            target.with_suffix(".pdiparams").write_bytes(params.read_bytes())
        cases[str(target)] = _recorded_feeds(source, feeds)
        written += 1
    assert written >= 30
    for prefix, feeds_list in cases.items():
        expected[prefix] = _pyfluid_outputs(prefix, feeds_list)
    report = _run_in_paddle3(tmp_path, cases)
    for prefix, feeds_list in cases.items():
        got = _outputs(report, prefix)
        assert report[prefix]["feeds"] == list(feeds_list[0]), prefix
        for case, (theirs, ours) in enumerate(zip(got, expected[prefix])):
            assert len(theirs) == len(ours), prefix
            for j, (a, b) in enumerate(zip(theirs, ours)):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5,
                                           err_msg=f"{prefix} case {case} output {j}")
