"""Models exported by real PaddlePaddle (tests/paddle_models/, made by tools/paddle_models/):
each loads in pyfluid and reproduces Paddle's recorded outputs on every recorded input set.

``zoo26``: vision/sequence/transformer models from Paddle 2.6.2 (the small ones; the large ones
are checked by ``tools/paddle_models/check_pyfluid.py`` on a generated corpus). ``cf26``: control
flow, from static cond/while/switch_case/case programs and from dynamic-to-static Layers.
A model whose op types are not all registered yet is reported by
``test_every_op_type_of_the_corpus_is_registered`` and skipped here with the missing types."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.ops.registry import registered_ops

HERE = Path(__file__).resolve().parent / "paddle_models"
CORPORA = {"zoo26": (1e-3, 1e-4), "cf26": (1e-5, 1e-5)}   # rtol, atol


def _manifest(corpus: str) -> dict:
    return json.loads((HERE / corpus / "manifest.json").read_text())["models"]


MODELS = [(corpus, name) for corpus in CORPORA for name in sorted(_manifest(corpus))]


def _cases(recorded: dict) -> list[str]:
    """Suffixes of the recorded input sets: "" for one set, "_0", "_1"... for several."""
    if "num_cases" in recorded:
        return [f"_{k}" for k in range(int(recorded["num_cases"]))]
    return [""]


def test_every_op_type_of_the_corpus_is_registered():
    known = set(registered_ops())
    missing = {}
    for corpus in CORPORA:
        for name, entry in _manifest(corpus).items():
            for op_type in set(entry["op_types"]) | set(entry.get("backward_op_types", ())):
                if op_type not in known:
                    missing.setdefault(op_type, []).append(f"{corpus}/{name}")
    assert not missing, "op types of Paddle models that pyfluid lacks: " + "; ".join(
        f"{t} ({len(m)}: {', '.join(m[:3])}...)" for t, m in sorted(missing.items()))


@pytest.mark.parametrize("corpus,name", MODELS, ids=[f"{c}/{n}" for c, n in MODELS])
def test_model_reproduces_paddle_outputs(corpus, name):
    missing = sorted(set(_manifest(corpus)[name]["op_types"]) - set(registered_ops()))
    if missing:
        pytest.skip(f"op types not registered yet: {missing}")
    rtol, atol = CORPORA[corpus]
    prefix = str(HERE / corpus / name)
    exe = paddle.static.Executor()
    program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
    with np.load(prefix + ".io.npz") as npz:
        recorded = {k: npz[k] for k in npz.files}
    for suffix in _cases(recorded):
        feed = {n: recorded[f"x{i}{suffix}"] for i, n in enumerate(feeds)}
        outputs = exe.run(program, feed=feed, fetch_list=fetches)
        for j, out in enumerate(outputs):
            expected = recorded[f"y{j}{suffix}"]
            assert np.asarray(out).shape == expected.shape, f"output {j}{suffix}"
            np.testing.assert_allclose(out, expected, rtol=rtol, atol=atol,
                                       err_msg=f"{corpus}/{name} output {j} case '{suffix}'")
