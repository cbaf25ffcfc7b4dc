"""Every converter, one small program per op (and per attribute convention), run by pyfluid's
Executor and by onnxruntime from the exported model: the outputs must agree."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pytest

from onnx_check import check_op

_rng = np.random.default_rng(7)


def f32(*shape, lo=-2.0, hi=2.0):
    return _rng.uniform(lo, hi, size=shape).astype(np.float32)


def pos(*shape):
    return f32(*shape, lo=0.5, hi=2.0)


def i64(*shape, hi=5, lo=0):
    return _rng.integers(lo, hi, size=shape).astype(np.int64)


def distinct(*shape):
    return (_rng.permutation(int(np.prod(shape))) * 0.25 - 3).reshape(shape).astype(np.float32)


class Case(NamedTuple):
    op: str
    inputs: dict
    attrs: dict = {}
    options: dict = {}
    id: str = ""


def case(op: str, inputs: dict, id: str = "", **attrs_and_options: Any) -> Case:
    option_keys = {"fetch", "params", "dynamic", "counts", "opset", "rtol", "atol"}
    options = {k: v for k, v in attrs_and_options.items() if k in option_keys}
    attrs = {k: v for k, v in attrs_and_options.items() if k not in option_keys}
    return Case(op, inputs, attrs, options, id or op)


X34, Y34 = f32(3, 4), f32(3, 4)
CASES = [
    # -- elementwise, with Paddle's axis broadcasting --------------------------------------
    *[case(op, {"X": f32(2, 3, 4), "Y": pos(2, 3, 4)}) for op in (
        "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
        "elementwise_max", "elementwise_min")],
    case("elementwise_pow", {"X": pos(2, 3), "Y": f32(2, 3)}),
    case("elementwise_add", {"X": f32(2, 3, 4, 5), "Y": f32(3, 4)}, "add_axis1", axis=1),
    case("elementwise_mul", {"X": f32(2, 3, 4), "Y": f32(3)}, "mul_axis1", axis=1),
    case("elementwise_sub", {"X": f32(2, 3, 4), "Y": f32(4)}, "sub_trailing"),
    case("elementwise_add", {"X": f32(2, 3, 4), "Y": f32(2)}, "add_axis0", axis=0),
    case("elementwise_div", {"X": f32(3, 4), "Y": pos(3, 4, 5)[..., 0]}, "div_same"),
    case("elementwise_add", {"X": i64(3, 4), "Y": i64(3, 4)}, "add_int64"),
    case("elementwise_mod", {"X": i64(3, 4, lo=-9, hi=9), "Y": i64(3, 4, lo=1, hi=4) *
                             np.where(_rng.random((3, 4)) < .5, -1, 1)}, "mod_int"),
    case("elementwise_mod", {"X": f32(3, 4, lo=-9, hi=9), "Y": np.array(
        [[1.5, -2.0, 3.0, -0.75]] * 3, np.float32)}, "mod_float"),
    case("elementwise_floordiv", {"X": i64(3, 4, lo=-9, hi=9), "Y": np.array(
        [[2, -2, 3, -3]] * 3, np.int64)}, "floordiv_int"),
    case("elementwise_floordiv", {"X": f32(3, 4, lo=-9, hi=9), "Y": pos(3, 4)},
         "floordiv_float"),
    *[case(op, {"X": i64(3, 4), "Y": i64(3, 4)}) for op in (
        "equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal")],
    case("less_than", {"X": f32(2, 3, 4), "Y": f32(3)}, "less_than_axis", axis=1),
    case("where", {"Condition": f32(3, 4) > 0, "X": X34, "Y": Y34}),
    # -- scale / sum / clip / pow / unary ---------------------------------------------------
    case("scale", {"X": X34}, scale=2.5, bias=0.5),
    case("scale", {"X": X34}, "scale_bias_first", scale=2.5, bias=0.5, bias_after_scale=False),
    case("scale", {"X": X34}, "scale_identity"),
    case("scale", {"X": X34, "ScaleTensor": np.array([3.0], np.float32)}, "scale_tensor",
         bias=1.0),
    case("scale", {"X": i64(3, 4)}, "scale_int", scale=3.0, bias=2.0),
    case("sum", {"X": [X34, Y34, f32(3, 4)]}),
    case("sum", {"X": [i64(3, 4), i64(3, 4)]}, "sum_int"),
    case("clip", {"X": X34}, min=-0.5, max=0.7),
    case("clip", {"X": X34, "Min": np.array([-1.0], np.float32),
                  "Max": np.array([0.25], np.float32)}, "clip_tensors"),
    case("pow", {"X": pos(3, 4)}, factor=2.5),
    case("pow", {"X": pos(3, 4), "FactorTensor": np.array([3.0], np.float32)}, "pow_tensor"),
    *[case(op, {"X": pos(3, 4) if op in ("log", "sqrt", "rsqrt") else f32(3, 4)})
      for op in ("abs", "exp", "log", "sqrt", "rsqrt", "square", "floor", "sign", "reciprocal")],
    case("round", {"X": np.array([[0.5, 1.5, 2.5, -0.5], [-2.5, 0.49, -1.51, 3.2]],
                                 np.float32)}),
    case("increment", {"X": np.array([3.0], np.float32)}, step=2.0, dynamic=False),
    case("isfinite_v2", {"X": np.array([[1.0, np.inf, -np.inf, np.nan]], np.float32)}),
    case("isfinite_v2", {"X": i64(2, 3)}, "isfinite_int"),
    case("depend", {"X": X34, "Dep": [Y34]}),
    case("c_sync_calc_stream", {"X": X34}),
    case("c_sync_comm_stream", {"X": [X34, Y34]}, counts={"Out": 2}),
    # -- activations ------------------------------------------------------------------------
    *[case(op, {"X": f32(3, 5)}) for op in (
        "relu", "tanh", "sigmoid", "silu", "relu6", "elu", "hard_sigmoid", "hard_swish")],
    case("leaky_relu", {"X": f32(3, 5)}, alpha=0.1),
    case("swish", {"X": f32(3, 5)}, beta=1.7),
    case("gelu", {"X": f32(3, 5)}),
    case("gelu", {"X": f32(3, 5)}, "gelu_tanh", approximate=True),
    case("gelu", {"X": f32(3, 5)}, "gelu_opset20", opset=20),
    case("softmax", {"X": f32(2, 3, 4)}, axis=1),
    case("log_softmax", {"X": f32(2, 3, 4)}),
    # -- reductions and picks -------------------------------------------------------------
    *[case(op, {"X": pos(2, 3, 4)}, dim=[1], keep_dim=True) for op in (
        "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod")],
    case("reduce_sum", {"X": f32(2, 3, 4)}, "reduce_sum_all", reduce_all=True),
    case("reduce_mean", {"X": f32(2, 3, 4)}, "reduce_mean_neg", dim=[-1, 0]),
    case("reduce_sum", {"X": i64(2, 3)}, "reduce_sum_out_dtype", dim=[1], out_dtype=5),
    case("reduce_max", {"X": f32(2, 3, 4)}, "reduce_max_opset18", dim=[2], opset=18),
    case("reduce_any", {"X": f32(2, 3) > 1}, dim=[1]),
    case("reduce_all", {"X": f32(2, 3) > -1}, reduce_all=True),
    case("mean", {"X": f32(3, 4)}),
    case("logsumexp", {"X": f32(2, 3, 4) * 30}, axis=[1]),
    case("logsumexp", {"X": f32(2, 3, 4)}, "logsumexp_keep", axis=[0, 2], keepdim=True),
    case("p_norm", {"X": f32(3, 4)}, axis=1),
    case("p_norm", {"X": f32(3, 4)}, "p_norm_3", porder=3.0, axis=0, keepdim=True),
    case("p_norm", {"X": f32(3, 4)}, "p_norm_inf", porder=float("inf"), asvector=True),
    case("p_norm", {"X": np.array([[0, 1, 2], [0, 0, 3]], np.float32)}, "p_norm_0",
         porder=0.0),
    case("cumsum", {"X": f32(3, 4)}, axis=1),
    case("cumsum", {"X": f32(3, 4)}, "cumsum_rev_excl", axis=0, reverse=True, exclusive=True),
    case("cumsum", {"X": f32(3, 4)}, "cumsum_flatten", flatten=True),
    case("arg_max", {"X": distinct(3, 4)}, axis=1),
    case("arg_min", {"X": distinct(3, 4)}, axis=0, keepdims=True, dtype=2),
    case("arg_max", {"X": distinct(3, 4)}, "arg_max_flatten", flatten=True),
    case("top_k", {"X": distinct(3, 6)}, k=2),
    case("top_k_v2", {"X": distinct(3, 6)}, k=3, axis=0, largest=False),
    case("top_k_v2", {"X": np.array([[1, 3, 3, 2, 3]], np.float32)}, "top_k_ties", k=3),
    case("argsort", {"X": distinct(3, 5)}),
    case("argsort", {"X": np.array([[2, 1, 2, 1, 0]], np.float32)}, "argsort_ties_desc",
         descending=True, axis=1),
    # -- indexing as Paddle 2.6 lowers x[index] ---------------------------------------------
    case("gather_nd", {"X": f32(3, 4, 2), "Index": np.array([[2, 1], [0, 3]], np.int32)}),
    case("where_index", {"Condition": np.array([[True, False], [False, True]])}),
    case("share_data", {"X": f32(2, 3)}),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_converter_matches_pyfluid(c: Case):
    check_op(c.op, c.inputs, c.attrs, **c.options)
