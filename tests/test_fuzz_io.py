"""Fuzzing the loaders: truncated and bit-flipped .pdmodel / .pdiparams / .pdparams bytes must
give either a correct load or our clear error naming the file, never another exception, a
hang, or a partly written scope."""
import os
import pickle
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyfluid as paddle
from pyfluid.executor import Scope, scope_guard
from pyfluid.io import ModelFileError

FUZZ = settings(max_examples=120, deadline=2000, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _build_and_save(folder):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        hidden = paddle.static.nn.fc(x, 4, activation="relu")
        out = paddle.static.nn.fc(hidden, 2)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    paddle.static.save_inference_model(os.path.join(folder, "model"), [x], [out], exe,
                                       program=main)
    paddle.static.save(main, os.path.join(folder, "ckpt"))
    names = {p: open(os.path.join(folder, p), "rb").read()
             for p in ("model.pdmodel", "model.pdiparams", "ckpt.pdparams")}
    return names


@pytest.fixture(scope="module")
def pristine():
    with tempfile.TemporaryDirectory() as folder:
        with scope_guard(Scope()):
            yield _build_and_save(folder)


def _snapshot(scope):
    return {n: (None if not scope.find_var(n).is_initialized()
                else np.array(scope.find_var(n).get_tensor())) for n in scope.local_var_names()}


def _same(a, b):
    return a.keys() == b.keys() and all(
        (x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y))
        for x, y in ((a[k], b[k]) for k in a))


def _load_inference(folder, files):
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    exe = paddle.static.Executor(paddle.CPUPlace())
    return paddle.static.load_inference_model(os.path.join(folder, "model"), exe)


def _check_outcome(files, broken_name):
    """Load ``files`` into a scope with a sentinel value; assert one of the two outcomes."""
    scope = Scope()
    scope.var("sentinel").get_tensor().set(np.arange(3.0))
    before = _snapshot(scope)
    with tempfile.TemporaryDirectory() as folder, scope_guard(scope):
        try:
            program, feeds, fetches = _load_inference(folder, files)
        except ModelFileError as exc:
            assert broken_name in str(exc)
            assert _same(before, _snapshot(scope)), "a failed load changed the scope"
            return
    # a correct load: every persistable has a value of its declared shape
    for var in program.list_vars():
        if var.persistable and var.name not in ("feed", "fetch"):
            value = np.array(scope.find_var(var.name).get_tensor())
            assert all(d in (-1, n) for d, n in zip(var.shape, value.shape))
    assert feeds and fetches


@FUZZ
@given(data=st.data())
def test_truncated_pdmodel(pristine, data):
    model = pristine["model.pdmodel"]
    cut = data.draw(st.integers(0, len(model) - 1))
    _check_outcome({"model.pdmodel": model[:cut], "model.pdiparams": pristine["model.pdiparams"]},
                   "model.pdmodel")


@FUZZ
@given(data=st.data())
def test_bit_flipped_pdmodel(pristine, data):
    model = bytearray(pristine["model.pdmodel"])
    position = data.draw(st.integers(0, len(model) * 8 - 1))
    model[position // 8] ^= 1 << (position % 8)
    _check_outcome({"model.pdmodel": bytes(model),
                    "model.pdiparams": pristine["model.pdiparams"]}, "model.pd")


@FUZZ
@given(data=st.data())
def test_truncated_pdiparams(pristine, data):
    params = pristine["model.pdiparams"]
    cut = data.draw(st.integers(0, len(params) - 1))
    _check_outcome({"model.pdmodel": pristine["model.pdmodel"], "model.pdiparams": params[:cut]},
                   "model.pdiparams")


@FUZZ
@given(data=st.data())
def test_bit_flipped_pdiparams(pristine, data):
    params = bytearray(pristine["model.pdiparams"])
    position = data.draw(st.integers(0, len(params) * 8 - 1))
    params[position // 8] ^= 1 << (position % 8)
    _check_outcome({"model.pdmodel": pristine["model.pdmodel"], "model.pdiparams": bytes(params)},
                   "model.pdiparams")


@FUZZ
@given(data=st.data())
def test_damaged_pdparams_pickle(pristine, data):
    """Checkpoint pickles: a correct dict of arrays, or our error; the scope is untouched."""
    raw = bytearray(pristine["ckpt.pdparams"])
    if data.draw(st.booleans()):
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    else:
        position = data.draw(st.integers(0, len(raw) * 8 - 1))
        raw[position // 8] ^= 1 << (position % 8)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "ckpt.pdparams")
        with open(path, "wb") as f:
            f.write(bytes(raw))
        try:
            state = paddle.static.load_program_state(path)
        except ModelFileError as exc:
            assert "ckpt.pdparams" in str(exc)
            return
    assert all(isinstance(v, np.ndarray) and v.dtype.kind in "biufc" for v in state.values())


def test_pickle_errors_are_model_file_errors(tmp_path):
    path = tmp_path / "x.pdparams"
    path.write_bytes(pickle.dumps([1, 2, 3]))
    with pytest.raises(ModelFileError, match="x.pdparams"):
        paddle.static.load_program_state(str(path))
