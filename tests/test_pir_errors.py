"""Damaged, truncated and hostile PIR JSON: a clear ModelFileError naming the file, never
another exception, a hang, a large allocation or a partly written scope (the bounds of the
other loaders, tests/test_fuzz_io.py)."""
from __future__ import annotations

import json
import os
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyfluid as paddle
from pyfluid.executor import Scope, scope_guard
from pyfluid.io import ModelFileError

PIR33 = Path(__file__).resolve().parent / "paddle_models" / "pir33"
MODEL = (PIR33 / "mlp.json").read_bytes()
PARAMS = (PIR33 / "mlp.pdiparams").read_bytes()
FUZZ = settings(max_examples=150, deadline=2000, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _snapshot(scope):
    return {n: np.array(scope.find_var(n).get_tensor()) for n in scope.local_var_names()
            if scope.find_var(n).is_initialized()}


def _outcome(model: bytes, params: bytes = PARAMS) -> str | None:
    """Load into a scope holding a sentinel; None for a correct load, else the error text
    (after checking that the scope is untouched)."""
    scope = Scope()
    scope.var("sentinel").get_tensor().set(np.arange(3.0))
    before = _snapshot(scope)
    with tempfile.TemporaryDirectory() as folder, scope_guard(scope):
        Path(folder, "model.json").write_bytes(model)
        Path(folder, "model.pdiparams").write_bytes(params)
        try:
            program, feeds, fetches = paddle.static.load_inference_model(
                os.path.join(folder, "model"), paddle.static.Executor())
        except ModelFileError as exc:
            after = _snapshot(scope)
            assert after.keys() == before.keys() and all(
                np.array_equal(after[k], before[k]) for k in after), "a failed load wrote"
            return str(exc)
    assert feeds and fetches
    return None


def _error(model: bytes, params: bytes = PARAMS) -> str:
    message = _outcome(model, params)
    assert message is not None, "the damaged file loaded"
    assert "model.json" in message or "model.pdiparams" in message
    return message


def _edit(change) -> bytes:
    model = json.loads(MODEL)
    change(model)
    return json.dumps(model).encode()


def _ops(model):
    return model["program"]["regions"][0]["blocks"][0]["ops"]


@pytest.mark.parametrize("text,expected", [
    (b"", "not valid JSON"),
    (b"{\"base_code\": ", "not valid JSON"),
    (b"[1, 2]", "lacks 'base_code'"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b'{"base_code": {"magic": "onnx", "version": 1}, "program": {}}', "magic is 'onnx'"),
    (b'{"base_code": {"magic": "pir", "version": "4"}, "program": {}}', "version must be"),
    (b'{"base_code": {"magic": "pir", "version": 4}, "program": {"regions": []}}',
     "exactly one region"),
    (b'{"a":' + b"[" * 100000 + b"]" * 100000 + b"}", "nested too deeply"),
])
def test_malformed_files(text, expected):
    assert expected in _error(text)


@pytest.mark.parametrize("change,expected", [
    (lambda m: _ops(m)[8]["I"].append({"%": 999}), "has 3 operands"),
    (lambda m: _ops(m)[8]["I"].__setitem__(0, {"%": 999}), "operand %999 is used before"),
    (lambda m: _ops(m)[8].__setitem__("#", "1.no_such_op"),
     "no legacy counterpart for PIR op 'pd_op.no_such_op'"),
    (lambda m: _ops(m)[8]["O"][0].__setitem__("%", 7), "value %7 is defined twice"),
    (lambda m: _ops(m)[7]["O"][0]["TT"]["D"].__setitem__(1, [10**30, 16]), "magnitude"),
    (lambda m: _ops(m)[7]["O"][0]["TT"]["D"].__setitem__(0, {"#": "0.t_f128"}),
     "unknown element type"),
    (lambda m: _ops(m)[7]["A"][0]["AT"].__setitem__("D", "yes"), "expected a bool"),
    (lambda m: _ops(m)[7]["A"][0]["AT"].__setitem__("#", "0.a_nope"), "unsupported attribute"),
    (lambda m: _ops(m)[0]["A"].pop(), "A must be [is_distributed"),
    (lambda m: _ops(m)[-1]["A"][1]["AT"].__setitem__("D", 3), "not 0..n-1"),
    (lambda m: _ops(m)[6]["A"][0]["AT"].__setitem__("D", ""), "a feed needs a non-empty"),
    (lambda m: _ops(m).append({"#": "2.yield", "I": [], "O": []}), "cf.yield outside"),
])
def test_inconsistent_programs(change, expected):
    assert expected in _error(_edit(change))


def test_parameters_of_another_model_are_refused():
    other = (PIR33 / "lenet.pdiparams").read_bytes()
    message = _error(MODEL, other)
    assert "model.pdiparams" in message
    assert "linear_0.b_0" in message or "declared" in message


def test_truncated_parameters_are_refused():
    assert "truncated" in _error(MODEL, PARAMS[:-10]) or "end of data" in _error(MODEL,
                                                                                 PARAMS[:-10])


@FUZZ
@given(data=st.data())
def test_truncated_json(data):
    cut = data.draw(st.integers(0, len(MODEL) - 1))
    _error(MODEL[:cut])


@FUZZ
@given(data=st.data())
def test_bit_flipped_json(data):
    """A flip may leave a loadable program (inside a name, a float); otherwise our error."""
    model = bytearray(MODEL)
    position = data.draw(st.integers(0, len(model) * 8 - 1))
    model[position // 8] ^= 1 << (position % 8)
    message = _outcome(bytes(model))
    assert message is None or "model.json" in message or "model.pdiparams" in message


@FUZZ
@given(data=st.data())
def test_shuffled_json_values(data):
    """Replace one JSON value anywhere by another kind of value."""
    model = json.loads(MODEL)
    nodes = []

    def collect(node, parent, key):
        nodes.append((parent, key))
        children = node.items() if isinstance(node, dict) else (
            enumerate(node) if isinstance(node, list) else ())
        for k, child in children:
            collect(child, node, k)
    collect(model, None, None)
    parent, key = nodes[data.draw(st.integers(1, len(nodes) - 1))]
    parent[key] = data.draw(st.sampled_from([None, 0, -1, 2**70, 1.5, "x", [], {}, [[]],
                                             {"#": "p"}, True]))
    message = _outcome(json.dumps(model).encode())
    assert message is None or "model.json" in message or "model.pdiparams" in message


@pytest.mark.parametrize("kind", ["empty objects", "tiny ops"])
def test_files_of_many_tiny_objects_are_refused_within_the_memory_budget(kind, monkeypatch):
    """A load builds at most MEMORY_FACTOR bytes per byte of file (twice the .pdmodel
    budget: the json module alone builds ~11 per byte of Paddle's files), plus a slack, set
    to 0 here so that small files show it: JSON that would build more is refused early, and
    the smallest possible ops (a variable and an op each) load within it."""
    from pyfluid.framework import desc_reader
    from pyfluid.io.pir.decode import MEMORY_FACTOR
    monkeypatch.setattr(desc_reader, "MEMORY_SLACK", 0)
    if kind == "empty objects":
        text = b'{"base_code": {"magic": "pir", "version": 4}, "pad": [' + b"{}," * 100_000 + \
            b"{}]}"
    else:   # ops as small as an op can be: each a variable and an op to build
        model = json.loads(MODEL)
        relu = {"#": "1.relu", "I": [{"%": 7}], "O": [{"%": 0, "TT": {
            "#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, [], "", [], 0]}}]}
        _ops(model)[-1:-1] = [{**relu, "O": [{**relu["O"][0], "%": 10**6 + i}]}
                              for i in range(5_000)]
        text = json.dumps(model, separators=(",", ":")).encode()
    tracemalloc.start()
    try:
        message = _outcome(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if kind == "empty objects":
        assert "too many objects" in message
    assert peak < MEMORY_FACTOR * len(text), (peak / len(text))


def test_time_and_memory_stay_proportional_to_the_file():
    """A 0.5 MB program of 2000 ops loads in seconds with a peak of a few dozen times the
    file size (under tracemalloc, which slows allocation); a type claiming a
    2**62-element tensor allocates nothing."""
    model = json.loads(MODEL)
    ops = _ops(model)
    relu = next(op for op in ops if op["#"] == "1.relu")
    source = relu["I"][0]["%"]
    chain, vid = [], 10**6
    for _ in range(2000):
        chain.append({**relu, "I": [{"%": source}], "O": [{**relu["O"][0], "%": vid}]})
        source, vid = vid, vid + 1
    ops[-1:-1] = chain
    ops[7]["O"][0]["TT"]["D"][1] = [2**62, 2**62]
    text = json.dumps(model).encode()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        _outcome(text)
    finally:
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert elapsed < 10, elapsed
    assert peak < 60 * len(text), (peak, len(text))
