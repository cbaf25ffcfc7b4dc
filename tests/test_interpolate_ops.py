"""The *_interp_v2 ops against Paddle 2.6.2's own outputs and input gradients, recorded by
tools/paddle_references/record_interp_26.py into tests/golden/interp_v2_paddle26.npz (every mode, both layouts,
align_corners/align_mode, and each way to give the size: attributes, OutSize, SizeTensor,
Scale). Also the compile-time shapes and the errors."""
import json
from pathlib import Path

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.framework.errors import ShapeError

GOLDEN = Path(__file__).resolve().parent / "golden" / "interp_v2_paddle26.npz"
with np.load(GOLDEN) as _npz:
    RECORDED = {k: _npz[k] for k in _npz.files}
CASES = json.loads(str(RECORDED["cases"]))


def projection(shape):
    """The recording's projection R: the gradients are d sum(Out * R) / dX."""
    return np.cos(np.arange(int(np.prod(shape)), dtype=np.float64) * 0.7).reshape(shape) + 1.5


def _build(case, x_shape, dtype="float32"):
    x = paddle.static.data("x", x_shape, dtype)
    x.stop_gradient = False
    inputs = {"X": [x]}
    for slot, value in case["inputs"].items():
        if slot == "SizeTensor":
            inputs[slot] = [paddle.assign(np.array(v, "int32")) for v in value]
        else:
            inputs[slot] = [paddle.assign(np.array(value, "float32" if slot == "Scale"
                                                   else "int32"))]
    block = paddle.static.default_main_program().global_block()
    out = block.create_var(name="out")
    block.append_op(type=case["op"], inputs=inputs, outputs={"Out": [out]},
                    attrs=case["attrs"])
    return x, out


def _case_id(i):
    c = CASES[i]
    return f"{i}-{c['op'].split('_')[0]}-{'-'.join(c['inputs']) or 'attrs'}"


@pytest.mark.parametrize("i", range(len(CASES)), ids=_case_id)
def test_forward_and_gradient_match_paddle(i):
    case = CASES[i]
    x_value = RECORDED["input_" + case["x"]]
    expected, expected_grad = RECORDED[f"out_{i}"], RECORDED[f"grad_{i}"]
    x, out = _build(case, list(x_value.shape))
    r = paddle.static.data("r", [-1] * expected.ndim, "float32")
    (dx,) = paddle.static.gradients([paddle.sum(out * r)], [x])
    got, grad = paddle.static.Executor().run(
        feed={"x": x_value, "r": projection(expected.shape).astype("float32")},
        fetch_list=[out, dx])
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad, expected_grad, rtol=1e-5, atol=1e-5)


def test_float64_input_runs_with_the_same_coordinates():
    case = next(c for c in CASES if c["op"] == "bicubic_interp_v2" and c["attrs"]["scale"])
    i = CASES.index(case)
    x_value = RECORDED["input_" + case["x"]]
    _, out = _build(case, list(x_value.shape), "float64")
    (got,) = paddle.static.Executor().run(feed={"x": x_value.astype("float64")},
                                          fetch_list=[out])
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, RECORDED[f"out_{i}"], rtol=1e-5, atol=1e-5)


def _infer(op, x_shape, attrs, **inputs):
    case = {"op": op, "inputs": inputs,
            "attrs": {"interp_method": op.split("_")[0], "out_d": -1, "out_h": -1,
                      "out_w": -1, "scale": [], "align_corners": False, **attrs}}
    return _build(case, x_shape)[1].shape


@pytest.mark.parametrize("op,x_shape,attrs,inputs,expected", [
    ("bilinear_interp_v2", [2, 3, 8, 10], {"scale": [2.0, 1.5]}, {}, (2, 3, 16, 15)),
    ("bilinear_interp_v2", [-1, 3, -1, 10], {"scale": [2.0, 2.0]}, {}, (-1, 3, -1, 20)),
    ("nearest_interp_v2", [2, 3, 8, 10], {"out_h": 5, "out_w": 7}, {}, (2, 3, 5, 7)),
    ("nearest_interp_v2", [2, 8, 10, 3], {"out_h": 5, "out_w": 7, "data_layout": "NHWC"}, {},
     (2, 5, 7, 3)),
    # OutSize is known only at run time; SizeTensor's constant entries are in the attributes
    ("bilinear_interp_v2", [2, 3, 8, 10], {"out_h": 5, "out_w": 7}, {"OutSize": [4, 6]},
     (2, 3, -1, -1)),
    ("bicubic_interp_v2", [2, 3, 8, 10], {"out_w": 7}, {"SizeTensor": [[3], [7]]},
     (2, 3, -1, 7)),
    ("bilinear_interp_v2", [2, 3, 8, 10], {"scale": [2.0, 2.0]}, {"Scale": [1.5]},
     (2, 3, -1, -1)),
    ("linear_interp_v2", [2, 3, 8], {"scale": [2.0]}, {}, (2, 3, 16)),
    ("trilinear_interp_v2", [2, 3, 4, 8, 10], {"scale": [2.0, 1.0, 1.5]}, {},
     (2, 3, 8, 8, 15)),
    ("nearest_interp_v2", [2, 3, 4, 8, 10], {"out_d": 2, "out_h": 3, "out_w": 4}, {},
     (2, 3, 2, 3, 4)),
])
def test_inferred_shape(op, x_shape, attrs, inputs, expected):
    assert _infer(op, x_shape, attrs, **inputs) == expected


@pytest.mark.parametrize("op,x_shape,attrs,message", [
    ("bilinear_interp_v2", [2, 3, 8, 10], {"scale": [2.0]}, "must hold 2 values"),
    ("bilinear_interp_v2", [2, 3, 8, 10], {"scale": [-1.0, 2.0]},
     "scale_h in Attr\\(scale\\) of Operator\\(interpolate\\) should be greater than 0"),
    ("trilinear_interp_v2", [2, 3, 4, 8, 10], {"scale": [1.0, 1.0, 1.0],
                                              "interp_method": "linear"}, "not supported"),
    ("bilinear_interp_v2", [2, 3], {"scale": [2.0]}, "must be 3-D, 4-D or 5-D"),
])
def test_shape_errors_name_the_problem(op, x_shape, attrs, message):
    with pytest.raises(ShapeError, match=message):
        _infer(op, x_shape, attrs)


def test_a_size_that_is_not_positive_fails_at_run_time():
    _infer("bilinear_interp_v2", [2, 3, 8, 10], {})
    with pytest.raises(Exception, match="out_h in Attr\\(out_shape\\) of Op\\(interpolate\\) "
                                        "should be greater than 0"):
        paddle.static.Executor().run(feed={"x": np.zeros([2, 3, 8, 10], "float32")},
                                     fetch_list=["out"])
