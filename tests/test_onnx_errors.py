"""What the exporter refuses, and how it says so: ops without an ONNX equivalent (py_func),
op types without a converter, values it cannot know, options out of range; and the coverage
rule that every forward op pyfluid registers has a converter."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from onnx_check import one_op

import pyfluid as paddle
from pyfluid.onnx import OnnxExportError, program_to_onnx, supported_op_types
from pyfluid.onnx.registry import CONVERTERS, REFUSED
from pyfluid.ops import registered_ops

# ops that never appear in inference programs: training updates and the executor's own
NOT_EXPORTED = {"adagrad", "adam", "adamw", "momentum", "sgd", "feed", "fetch"}


def _py_func_program():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [None, 3], "float32")
        out = main.current_block().create_var(name="py_out", dtype="float32", shape=[-1, 3])
        paddle.static.py_func(func=lambda v: np.tanh(v), x=x, out=out)
        y = paddle.nn.functional.relu(out)
    return main, x, y


def test_py_func_names_the_op_and_its_variable():
    main, x, y = _py_func_program()
    with pytest.raises(OnnxExportError) as info:
        program_to_onnx(main, [x], [y])
    message = str(info.value)
    assert "'py_func'" in message and "'py_out'" in message
    assert "no ONNX equivalent" in message and "Python function" in message


def test_export_onnx_file_is_not_written_on_error(tmp_path):
    main, x, y = _py_func_program()
    with pytest.raises(OnnxExportError):
        paddle.static.export_onnx(main, [x], [y], str(tmp_path / "model"))
    assert not list(tmp_path.iterdir())


def test_collective_ops_are_refused():
    program, feed, outputs = one_op("c_allreduce_sum", {"X": np.ones((2, 3), np.float32)})
    with pytest.raises(OnnxExportError, match=r"op 'c_allreduce_sum' .* has no ONNX "
                                              r"equivalent: it communicates"):
        program_to_onnx(program, list(feed), outputs)


def test_op_without_converter_is_named(monkeypatch):
    monkeypatch.delitem(CONVERTERS, "relu")
    program, feed, outputs = one_op("relu", {"X": np.ones((2, 3), np.float32)})
    with pytest.raises(OnnxExportError, match=r"op 'relu' \(#0 of block 0\) \(outputs: "
                                              r"'out_out_0'\) has no ONNX converter"):
        program_to_onnx(program, list(feed), outputs)


def test_parameter_without_value():
    program, feed, outputs = one_op("mul", {"X": np.ones((2, 3), np.float32),
                                            "Y": np.ones((3, 4), np.float32)}, params=("Y",))
    from pyfluid.executor import global_scope
    global_scope().erase(["y_0"])
    with pytest.raises(OnnxExportError, match="persistable variable 'y_0' .* has no value in "
                                              "the scope"):
        program_to_onnx(program, list(feed), outputs)


def test_training_dropout_is_refused_but_export_onnx_switches_to_inference(tmp_path):
    program, feed, outputs = one_op("dropout", {"X": np.ones((2, 3), np.float32)})
    with pytest.raises(OnnxExportError, match=r"dropout in training mode \(is_test=False\)"):
        program_to_onnx(program, list(feed), outputs[:1])
    assert paddle.static.export_onnx(program, list(feed), outputs[:1], str(tmp_path / "d"))


def test_reading_an_output_without_onnx_value():
    program, feed, outputs = one_op("layer_norm", {"X": np.ones((2, 3), np.float32)})
    with pytest.raises(OnnxExportError, match=r"variable 'out_mean_0' \(output 'Mean' of op "
                                              r"'layer_norm' .*\) has no ONNX value"):
        program_to_onnx(program, list(feed), ["out_mean_0"])


def test_run_time_axis_is_refused():
    program, feed, outputs = one_op("concat", {"X": [np.ones((2, 3), np.float32)] * 2,
                                               "AxisTensor": np.array([1], np.int32)}, {"axis": 1})
    with pytest.raises(OnnxExportError, match="AxisTensor"):
        program_to_onnx(program, list(feed), outputs)


def test_opset_out_of_range():
    program, feed, outputs = one_op("relu", {"X": np.ones((2, 3), np.float32)})
    with pytest.raises(ValueError, match=r"opset_version must be in \[13, "):
        program_to_onnx(program, list(feed), outputs, opset_version=9)


def test_missing_onnx_package_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "onnx", None)
    program, feed, outputs = one_op("relu", {"X": np.ones((2, 3), np.float32)})
    with pytest.raises(ImportError, match=r"pip install 'pyfluid\[onnx\]'"):
        paddle.static.export_onnx(program, list(feed), outputs, str(tmp_path / "m"))


def test_cli_reports_errors_in_one_line(tmp_path, capsys):
    from pyfluid.cli import main
    assert main(["onnx", str(tmp_path / "absent.pdmodel"), "-o", str(tmp_path / "m.onnx")]) == 1
    assert capsys.readouterr().err.startswith("pyfluid: error:")


def test_every_forward_op_has_a_converter():
    supported_op_types()          # registers every converter family (also when run alone)
    forward = {t for t in registered_ops() if not t.endswith(("_grad", "_grad2"))}
    missing = sorted(forward - NOT_EXPORTED - set(CONVERTERS))
    assert not missing, f"ops without an ONNX converter (add one in pyfluid/onnx/convert_*.py" \
                        f" or register them with unsupported()): {missing}"
    assert {"py_func", "truncated_gaussian_random", "c_allreduce_sum"} <= set(REFUSED)
    assert set(REFUSED).isdisjoint(supported_op_types())
    assert set(supported_op_types()) >= forward - NOT_EXPORTED - set(REFUSED)
