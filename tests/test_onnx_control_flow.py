"""Control flow exported to ONNX (conditional_block -> If, while -> Loop, select_input,
tensor arrays -> sequences): Paddle 2.6 programs, converted and run by onnxruntime, must
reproduce the outputs Paddle 2.6.2 recorded for every case: the shared cf_cond / cf_while and
tests/paddle_models/cf26 (dy2static if/elif, break/continue, early return, list.append, nested
loops; static cond, while_loop, switch_case, case, tensor arrays; another folder of the same
layout with PYFLUID_CF_CORPUS=...).

The programs are read without pyfluid's op checks (the control-flow ops may not be
registered in pyfluid yet): only the exporter and onnxruntime run them.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from onnx_check import compare, load_unchecked, ort
from shared_fixtures import PADDLE_FIXTURES, needs_shared

from pyfluid.onnx import program_to_onnx

CORPUS = os.environ.get("PYFLUID_CF_CORPUS") or os.path.join(os.path.dirname(__file__),
                                                              "paddle_models", "cf26")


def _cases(recorded) -> list[str]:
    if "num_cases" in recorded.files:
        return [f"_{k}" for k in range(int(recorded["num_cases"]))]
    return [""]


def check_against_paddle(prefix: str) -> None:
    program, scope, feeds, fetches = load_unchecked(prefix)
    model = program_to_onnx(program, feeds, fetches, scope=scope)
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    recorded = np.load(prefix + ".io.npz")
    for case in _cases(recorded):
        feed = {name: recorded[f"x{i}{case}"] for i, name in enumerate(feeds)}
        got = session.run(None, feed)
        compare([recorded[f"y{j}{case}"] for j in range(len(fetches))], got,
                [f"{name} (case{case or ' 0'})" for name in fetches])


@needs_shared
@pytest.mark.parametrize("name", ["cf_cond", "cf_while"])
def test_shared_control_flow_fixture(name):
    check_against_paddle(str(PADDLE_FIXTURES / "control_flow" / name))


def _corpus() -> list[str]:
    return sorted(f[:-len(".pdmodel")] for f in os.listdir(CORPUS)
                  if f.endswith(".pdmodel") and not f.endswith(".backward.pdmodel"))


@pytest.mark.parametrize("name", _corpus())
def test_control_flow_corpus(name):
    check_against_paddle(os.path.join(CORPUS, name))
