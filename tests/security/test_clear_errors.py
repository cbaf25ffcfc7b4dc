"""Finding 6: every failure says what is wrong and which file or variable; the CLI prints one
line per error and exits 1 (``--traceback`` for the full one)."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.cli import main as cli_main
from pyfluid.framework import FeedError
from pyfluid.io import ModelFileError


@pytest.mark.parametrize("payload", [pickle.dumps({"w": eval}), b"not a pickle at all"])
def test_paddle_load_names_the_file(payload, tmp_path):
    path = tmp_path / "bad.pdparams"
    path.write_bytes(payload)
    with pytest.raises(ModelFileError, match="bad.pdparams"):
        paddle.load(str(path))


def _fed(value):
    x = paddle.static.data("x", [None, 3], "float32")
    out = paddle.static.nn.fc(x, 2)
    exe = paddle.static.Executor()
    exe.run(paddle.static.default_startup_program())
    return exe.run(feed={"x": value}, fetch_list=[out])


def test_big_endian_feed_message_names_the_byte_order():
    with pytest.raises(FeedError, match="byte order") as info:
        _fed(np.ones((2, 3), ">f4"))
    assert "'float32', but received 'float32'" not in str(info.value)


def test_masked_array_feed_is_refused_at_the_feed():
    with pytest.raises(FeedError, match="masked"):
        _fed(np.ma.masked_array(np.ones((2, 3), "float32"), mask=[[0, 1, 0]] * 2))


def _failing_model(tmp_path, monkeypatch):
    """A saved model whose reshape fails for a batch of 2 (reshape to [3, -1])."""
    x = paddle.static.data("x", [None, 4], "float32")
    y = paddle.reshape(x, [3, -1])
    exe = paddle.static.Executor()
    paddle.static.save_inference_model(str(tmp_path / "m"), [x], [y], exe)
    np.save(tmp_path / "x.npy", np.ones((2, 4), "float32"))
    return ["run", str(tmp_path / "m"), "--input", f"x={tmp_path / 'x.npy'}"]


def _py_func_model(tmp_path, monkeypatch):
    x = paddle.static.data("x", [None, 4], "float32")
    y = paddle.static.default_main_program().current_block().create_var(
        name="y", shape=[-1, 4], dtype="float32")
    paddle.static.py_func(lambda v: v, x, y)
    paddle.static.save_inference_model(str(tmp_path / "m"), [x], [y], paddle.static.Executor())
    data = (tmp_path / "m.pdmodel").read_bytes()
    (tmp_path / "m.pdmodel").write_bytes(data.replace(b"<lambda>", b"<elsewh>"))
    np.save(tmp_path / "x.npy", np.ones((2, 4), "float32"))
    return ["run", str(tmp_path / "m"), "--input", f"x={tmp_path / 'x.npy'}"]


def _failing_inside(error):
    """A valid model whose loading fails inside pyfluid with ``error`` (as deep recursion or
    exhausted memory would)."""
    def make(tmp_path, monkeypatch):
        x = paddle.static.data("x", [None, 4], "float32")
        paddle.static.save_inference_model(str(tmp_path / "m"), [x], [paddle.scale(x, 2.0)],
                                           paddle.static.Executor())

        def fail(*args, **kwargs):
            raise error
        monkeypatch.setattr("pyfluid.cli.load_inference_model", fail)
        np.save(tmp_path / "x.npy", np.ones((2, 4), "float32"))
        return ["run", str(tmp_path / "m"), "--input", f"x={tmp_path / 'x.npy'}"]
    return make


@pytest.mark.parametrize("make", [
    _failing_model, _py_func_model,
    _failing_inside(RecursionError("maximum recursion depth exceeded")),
    _failing_inside(MemoryError("Unable to allocate 4.00 TiB"))])
def test_cli_prints_one_line_per_error(make, tmp_path, capsys, monkeypatch):
    argv = make(tmp_path, monkeypatch)
    capsys.readouterr()
    assert cli_main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("pyfluid: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert cli_main(argv + ["--traceback"]) == 1
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["show"], ["run"], ["dot", "-o", "g.dot"],
                                  ["onnx", "-o", "m.onnx"]])
def test_every_command_reports_one_line_and_takes_traceback(argv, tmp_path, capsys):
    argv = [argv[0], str(tmp_path / "missing"), *argv[1:]]
    assert cli_main(argv) == 1
    assert capsys.readouterr().err.startswith("pyfluid: error: ")
    assert cli_main(argv + ["--traceback"]) == 1
    assert "Traceback" in capsys.readouterr().err
