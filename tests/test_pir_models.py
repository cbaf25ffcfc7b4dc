"""Models saved by real Paddle 3 as PIR JSON (tests/paddle_models/pir33, made by
tools/paddle_models/gen_pir_33.py under Paddle 3.3.1, and the shared fixtures ``pir_mlp`` /
``pir_lenet``): each loads with ``load_inference_model`` and reproduces Paddle's recorded
outputs on every recorded input set; written back as PIR JSON and read again, it still does.

A model needing a legacy op pyfluid does not implement yet is skipped, naming the op (the
error pyfluid gives); ``test_every_pir_op_of_the_corpus_has_a_mapping`` makes sure no PIR op
of the corpus lacks a line in the op table."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.executor import Scope, scope_guard
from pyfluid.io import ModelFileError
from pyfluid.io.pir import program_to_json
from pyfluid.io.pir.lower import HOOKS
from pyfluid.io.pir.op_table import SPECS
from shared_fixtures import PADDLE_FIXTURES, needs_shared

HERE = Path(__file__).resolve().parent / "paddle_models" / "pir33"
MANIFEST = json.loads((HERE / "manifest.json").read_text())["models"]
RTOL, ATOL = 1e-3, 1e-4
NOT_YET = "which pyfluid does not implement yet"


def _recorded(prefix: Path) -> tuple[dict, list[str]]:
    with np.load(str(prefix) + ".io.npz") as npz:
        recorded = {k: npz[k] for k in npz.files}
    cases = ([f"_{k}" for k in range(int(recorded["num_cases"]))]
             if "num_cases" in recorded else [""])
    return recorded, cases


def _load(prefix: Path, exe):
    try:
        return paddle.static.load_inference_model(str(prefix), exe)
    except ModelFileError as exc:
        if NOT_YET in str(exc):
            pytest.skip(exc.problem.split(": ", 1)[-1])
        raise


def _check(program, feeds, fetches, exe, recorded, cases, label):
    for suffix in cases:
        feed = {n: recorded[f"x{i}{suffix}"] for i, n in enumerate(feeds)}
        outputs = exe.run(program, feed=feed, fetch_list=fetches)
        assert len(outputs) == len([k for k in recorded if k.startswith("y") and
                                    k.endswith(suffix) and k.count("_") == suffix.count("_")])
        for j, out in enumerate(outputs):
            expected = recorded[f"y{j}{suffix}"]
            assert np.asarray(out).shape == expected.shape, f"{label} output {j}{suffix}"
            np.testing.assert_allclose(out, expected, rtol=RTOL, atol=ATOL,
                                       err_msg=f"{label} output {j} case '{suffix}'")


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_paddle3_model_reproduces_paddle_outputs(name):
    prefix = HERE / name
    exe = paddle.static.Executor()
    recorded, cases = _recorded(prefix)
    program, feeds, fetches = _load(prefix, exe)
    assert feeds == MANIFEST[name]["loaded_feed_order"]
    _check(program, feeds, fetches, exe, recorded, cases, name)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_paddle3_model_written_back_as_pir_still_reproduces(name, tmp_path):
    """JSON -> legacy Program -> JSON -> legacy Program: same outputs, same parameters file."""
    prefix = HERE / name
    exe = paddle.static.Executor()
    recorded, cases = _recorded(prefix)
    program, _, _ = _load(prefix, exe)
    (tmp_path / "m.json").write_bytes(program_to_json(program))
    (tmp_path / "m.pdiparams").write_bytes((HERE / f"{name}.pdiparams").read_bytes())
    with scope_guard(Scope()):
        again, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / "m"), exe)
        _check(again, feeds, fetches, exe, recorded, cases, name + " (written back)")


@needs_shared
@pytest.mark.parametrize("name", ["pir_mlp", "pir_lenet"])
def test_shared_pir_fixtures_reproduce_paddle_outputs(name):
    prefix = PADDLE_FIXTURES / "pir" / name
    exe = paddle.static.Executor()
    recorded, cases = _recorded(prefix)
    program, feeds, fetches = _load(prefix, exe)
    _check(program, feeds, fetches, exe, recorded, cases, name)


def test_every_pir_op_of_the_corpus_has_a_mapping():
    known = set(SPECS) | set(HOOKS)
    missing = {op: name for name, entry in MANIFEST.items() for op in entry["op_names"]
               if op not in known and not (op.endswith("_") and op[:-1] in known)}
    assert not missing, f"PIR ops without a line in pyfluid/io/pir/op_table.py: {missing}"


@pytest.mark.parametrize("version", [1, 2, 3])
def test_older_format_versions_are_read(version, tmp_path):
    """Paddle 3.0 (version 1) wrote pool2d's strides/paddings as int32 arrays, 3.1+ as int64;
    otherwise versions 1-4 are the same (docs/pir_format.md). LeNet in version-1 dress."""
    text = (HERE / "lenet.json").read_text()
    model = json.loads(text)
    model["base_code"]["version"] = version
    for op in model["program"]["regions"][0]["blocks"][0]["ops"]:
        if op["#"] == "1.pool2d" and version == 1:
            for attr in op["A"]:
                if attr["N"] in ("strides", "paddings"):
                    for item in attr["AT"]["D"]:
                        item["#"] = "0.a_i32"
    (tmp_path / "lenet.json").write_text(json.dumps(model))
    (tmp_path / "lenet.pdiparams").write_bytes((HERE / "lenet.pdiparams").read_bytes())
    exe = paddle.static.Executor()
    recorded, cases = _recorded(HERE / "lenet")
    program, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / "lenet"), exe)
    _check(program, feeds, fetches, exe, recorded, cases, f"lenet v{version}")
