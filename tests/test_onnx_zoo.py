"""The model zoo exported to ONNX: opt-in, as it reads gigabytes of Paddle 2.6 models.

    PYFLUID_ZOO=/path/to/zoo26 pytest tests/test_onnx_zoo.py            # every model
    PYFLUID_ZOO=/path/to/zoo26 PYFLUID_ZOO_ONLY=resnet18,bert_like pytest tests/test_onnx_zoo.py
    PYFLUID_ZOO=... PYFLUID_ZOO_SMALL=1 pytest tests/test_onnx_zoo.py   # skip the "large" ones

The folder holds ``manifest.json`` and per model ``NAME.pdmodel``, ``NAME.pdiparams`` and
``NAME.io.npz`` (feeds ``x<i>`` and Paddle 2.6.2's outputs ``y<j>``). Each model pyfluid loads
is exported once; onnxruntime then runs that file at batch sizes 1 and 3 (built from the
recorded inputs) and must reproduce pyfluid's outputs, and at the recorded batch Paddle's.
Models whose ops pyfluid does not have yet are skipped with the loader's message.
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from onnx_check import compare, ort

import pyfluid as paddle
from pyfluid.executor import Executor, Scope, scope_guard
from pyfluid.io import ModelFileError

ZOO = os.environ.get("PYFLUID_ZOO", "")
pytestmark = pytest.mark.skipif(not ZOO, reason="set PYFLUID_ZOO to the zoo folder")


def _models() -> list[str]:
    if not ZOO:
        return []
    with open(os.path.join(ZOO, "manifest.json")) as f:
        models = json.load(f)["models"]
    only = {m for m in os.environ.get("PYFLUID_ZOO_ONLY", "").split(",") if m}
    small = bool(os.environ.get("PYFLUID_ZOO_SMALL"))
    return sorted(name for name, info in models.items()
                  if (not only or name in only) and not (small and info.get("large")))


def _manifest(name: str) -> dict:
    with open(os.path.join(ZOO, "manifest.json")) as f:
        return json.load(f)["models"][name]


def _batched(recorded: np.ndarray, batched: bool, batch: int) -> np.ndarray:
    """``batch`` rows cycled from the recorded ones (for a feed whose first dim is the batch)."""
    if not batched:
        return recorded
    rows = np.arange(batch) % recorded.shape[0]
    return recorded[rows]


@pytest.mark.parametrize("name", _models())
def test_zoo_model_runs_the_same_in_onnxruntime(name, tmp_path):
    prefix = os.path.join(ZOO, name)
    scope, exe = Scope(), Executor()
    with scope_guard(scope):
        try:
            program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        except ModelFileError as exc:
            pytest.skip(f"pyfluid cannot load {name} yet: {str(exc)[:300]}")
    path = paddle.static.export_onnx(program, feeds, fetches, str(tmp_path / name), scope=scope)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    recorded = np.load(prefix + ".io.npz")
    specs = _manifest(name)["feeds"]
    inputs = [recorded[f"x{i}"] for i in range(len(feeds))]
    names = [v.name for v in fetches]
    compare([recorded[f"y{j}"] for j in range(len(fetches))],
            session.run(None, dict(zip(feeds, inputs))), [f"{n} (Paddle)" for n in names],
            rtol=1e-3, atol=1e-4)
    for batch in (1, 3):
        feed = {feed_name: _batched(x, spec["spec_shape"][:1] == [-1], batch)
                for feed_name, x, spec in zip(feeds, inputs, specs)}
        expected = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        compare(expected, session.run(None, feed), [f"{n} (batch {batch})" for n in names])
