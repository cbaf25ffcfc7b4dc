"""The wider top-level tensor API (``paddle.squeeze``, ``paddle.clip``, ``paddle.topk``...):
each function's static result (built and run through the Executor) and eager result against
NumPy, and the op type and attributes Paddle 2.6's static mode appends."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static

_rng = np.random.default_rng(7)
X23 = _rng.standard_normal((2, 3)).astype("float32")
Y23 = _rng.standard_normal((2, 3)).astype("float32")
X213 = _rng.standard_normal((2, 1, 3)).astype("float32")
B13 = _rng.standard_normal((1, 3)).astype("float32")
POS = np.abs(X23) + 0.5
DISTINCT = _rng.permutation(12).reshape(3, 4).astype("float32")
IDX = np.array([2, 0, 2], dtype="int64")
F32_MAX = float(np.finfo(np.float32).max)


def run_static(build: Callable, feeds: dict[str, np.ndarray]):
    """Build ``build(*data vars)`` in a new program, run it; returns (results, program)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        inputs = [static.data(n, list(v.shape), str(v.dtype)) for n, v in feeds.items()]
        outs = build(*inputs)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feeds, fetch_list=outs), main


def run_eager(build: Callable, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    paddle.disable_static()
    try:
        outs = build(*[paddle.to_tensor(v) for v in feeds.values()])
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        return [o.numpy() for o in outs]
    finally:
        paddle.enable_static()


def op_of(program, op_type: str):
    ops = [op for op in program.global_block().ops if op.type == op_type]
    assert ops, f"no {op_type} op in\n{program}"
    return ops[-1]


class ApiCase(NamedTuple):
    id: str
    build: Callable
    feeds: dict
    expected: Any                    # one array or a list (one per output)
    op_type: str
    attrs: dict = {}


CASES = [
    ApiCase("flatten", lambda x: paddle.flatten(x), {"x": X213}, X213.reshape(-1),
            "flatten_contiguous_range", {"start_axis": 0, "stop_axis": 2}),
    ApiCase("squeeze_axis", lambda x: paddle.squeeze(x, 1), {"x": X213}, X213[:, 0],
            "squeeze2", {"axes": [1]}),
    ApiCase("squeeze_all", lambda x: paddle.squeeze(x), {"x": X213}, X213[:, 0], "squeeze2",
            {"axes": []}),
    ApiCase("unsqueeze", lambda x: paddle.unsqueeze(x, [0, 2]), {"x": X23},
            X23[None, :, None], "unsqueeze2", {"axes": [0, 2]}),
    ApiCase("stack", lambda x, y: paddle.stack([x, y], axis=1), {"x": X23, "y": Y23},
            np.stack([X23, Y23], 1), "stack", {"axis": 1}),
    ApiCase("slice", lambda x: paddle.slice(x, axes=[1], starts=[1], ends=[3]), {"x": X23},
            X23[:, 1:3], "slice", {"axes": [1], "starts": [1], "ends": [3], "infer_flags": [1],
                                   "decrease_axis": []}),
    ApiCase("clip", lambda x: paddle.clip(x, -0.5, 0.5), {"x": X23}, np.clip(X23, -0.5, 0.5),
            "clip", {"min": -0.5, "max": 0.5}),
    ApiCase("clip_max_only", lambda x: paddle.clip(x, max=0.2), {"x": X23},
            np.minimum(X23, 0.2), "clip", {"min": -F32_MAX, "max": 0.2}),
    ApiCase("argmax_axis", lambda x: paddle.argmax(x, axis=1), {"x": DISTINCT},
            DISTINCT.argmax(1), "arg_max", {"axis": 1, "flatten": False, "keepdims": False,
                                             "dtype": 3}),
    ApiCase("argmax_flat", lambda x: paddle.argmax(x, keepdim=True), {"x": DISTINCT},
            np.array([[DISTINCT.argmax()]]), "arg_max", {"axis": 0, "flatten": True,
                                                         "keepdims": True}),
    ApiCase("argmin", lambda x: paddle.argmin(x, axis=0, dtype="int32"), {"x": DISTINCT},
            DISTINCT.argmin(0).astype("int32"), "arg_min", {"axis": 0, "dtype": 2}),
    ApiCase("topk", lambda x: paddle.topk(x, 2), {"x": DISTINCT},
            [-np.sort(-DISTINCT, 1)[:, :2], np.argsort(-DISTINCT, 1)[:, :2]], "top_k_v2",
            {"k": 2, "largest": True, "sorted": True, "axis": -1}),
    ApiCase("topk_smallest_axis0", lambda x: paddle.topk(x, 1, axis=0, largest=False),
            {"x": DISTINCT}, [DISTINCT.min(0, keepdims=True),
                              DISTINCT.argmin(0)[None]], "top_k_v2",
            {"k": 1, "largest": False, "axis": 0}),
    ApiCase("pow_number", lambda x: paddle.pow(x, 2.5), {"x": POS}, POS ** 2.5, "pow",
            {"factor": 2.5}),
    ApiCase("pow_tensor", lambda x, y: paddle.pow(x, y), {"x": POS, "y": Y23}, POS ** Y23,
            "elementwise_pow", {"axis": -1}),
    ApiCase("equal", lambda x, y: paddle.equal(x, y), {"x": X23, "y": np.where(
        X23 > 0, X23, Y23)}, X23 > 0, "equal"),
    ApiCase("equal_number", lambda x: paddle.equal(x, 3.0), {"x": DISTINCT}, DISTINCT == 3.0,
            "equal"),
    ApiCase("not_equal", lambda x, y: paddle.not_equal(x, y), {"x": X23, "y": B13},
            X23 != B13, "not_equal"),
    ApiCase("greater_than", lambda x, y: paddle.greater_than(x, y), {"x": X23, "y": Y23},
            X23 > Y23, "greater_than"),
    ApiCase("greater_equal", lambda x, y: paddle.greater_equal(x, y), {"x": X23, "y": B13},
            X23 >= B13, "greater_equal"),
    ApiCase("less_than", lambda x, y: paddle.less_than(x, y), {"x": X23, "y": Y23},
            X23 < Y23, "less_than"),
    ApiCase("less_equal", lambda x, y: paddle.less_equal(x, y), {"x": X23, "y": B13},
            X23 <= B13, "less_equal"),
    ApiCase("max_all", lambda x: paddle.max(x), {"x": X23}, X23.max(), "reduce_max",
            {"dim": [], "reduce_all": True, "keep_dim": False}),
    ApiCase("max_axis", lambda x: paddle.max(x, axis=1, keepdim=True), {"x": X23},
            X23.max(1, keepdims=True), "reduce_max",
            {"dim": [1], "reduce_all": False, "keep_dim": True}),
    ApiCase("min_axis", lambda x: paddle.min(x, axis=[0]), {"x": X23}, X23.min(0),
            "reduce_min", {"dim": [0], "reduce_all": False}),
    ApiCase("argsort", lambda x: paddle.argsort(x, descending=True), {"x": DISTINCT},
            np.argsort(-DISTINCT, 1), "argsort", {"axis": -1, "descending": True}),
    ApiCase("cumsum_flat", lambda x: paddle.cumsum(x), {"x": X23}, np.cumsum(X23),
            "cumsum", {"flatten": True, "axis": -1, "exclusive": False, "reverse": False}),
    ApiCase("cumsum_axis", lambda x: paddle.cumsum(x, axis=0), {"x": X23}, np.cumsum(X23, 0),
            "cumsum", {"flatten": False, "axis": 0}),
    ApiCase("gather", lambda x, i: paddle.gather(x, i), {"x": DISTINCT, "i": IDX},
            DISTINCT[IDX], "gather", {"axis": 0}),
    ApiCase("gather_axis1", lambda x, i: paddle.gather(x, i, axis=1),
            {"x": DISTINCT, "i": IDX}, DISTINCT[:, IDX], "gather", {"axis": 1}),
    ApiCase("tile", lambda x: paddle.tile(x, [2, 1, 2]), {"x": X23}, np.tile(X23, [2, 1, 2]),
            "tile", {"repeat_times": [2, 1, 2]}),
    ApiCase("expand", lambda x: paddle.expand(x, [2, 2, 3]), {"x": B13},
            np.broadcast_to(B13, (2, 2, 3)), "expand_v2", {"shape": [2, 2, 3]}),
    ApiCase("broadcast_to", lambda x: paddle.broadcast_to(x, [2, -1]), {"x": B13},
            np.broadcast_to(B13, (2, 3)), "expand_v2", {"shape": [2, -1]}),
    ApiCase("where", lambda c, x, y: paddle.where(c > 0, x, y),
            {"c": Y23, "x": X23, "y": POS}, np.where(Y23 > 0, X23, POS), "where"),
    ApiCase("where_broadcast", lambda c, x, y: paddle.where(c > 0, x, y),
            {"c": Y23, "x": X23, "y": B13}, np.where(Y23 > 0, X23, B13), "where"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_static_and_eager_match_numpy_with_paddles_op(case: ApiCase):
    expected = case.expected if isinstance(case.expected, list) else [case.expected]
    static_out, program = run_static(case.build, case.feeds)
    eager_out = run_eager(case.build, case.feeds)
    for got_static, got_eager, want in zip(static_out, eager_out, expected):
        np.testing.assert_allclose(got_static, want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_eager, want, rtol=1e-5, atol=1e-6)
        assert got_static.dtype == got_eager.dtype == np.asarray(want).dtype
    op = op_of(program, case.op_type)
    for name, value in case.attrs.items():
        got = op.attr(name)
        assert got == (pytest.approx(value) if isinstance(value, float) else value), name


def test_temporaries_are_named_as_paddles_layer_helpers():
    def build(x, y):
        return [paddle.squeeze(x), paddle.unsqueeze(x, 0), paddle.argmax(x), paddle.pow(x, y),
                paddle.topk(x, 1)[1], paddle.max(x), paddle.expand(x, [2, 3]),
                paddle.less_than(x, y)]
    _, program = run_static(build, {"x": POS, "y": Y23})
    names = [sorted(op.output_arg_names) for op in program.global_block().ops
             if op.type not in ("feed", "fetch")]
    assert names == [["squeeze_0.tmp_0", "squeeze_0.tmp_1"],
                     ["unsqueeze2_0.tmp_0", "unsqueeze2_0.tmp_1"], ["argmax_0.tmp_0"],
                     ["elementwise_pow_0.tmp_0"], ["top_k_v2_0.tmp_0", "top_k_v2_0.tmp_1"],
                     ["max_0.tmp_0"], ["expand_0.tmp_0"], ["less_than_0.tmp_0"]]
    # Paddle's pow passes its first helper's temporary as the output of a second helper
    assert not program.global_block().has_var("elementwise_pow_1.tmp_0")
    assert program.global_block().var("argmax_0.tmp_0").stop_gradient


def test_where_broadcast_appends_paddles_zeros_like_cast_add_chain():
    _, program = run_static(lambda c, x, y: paddle.where(c > 0, x, y),
                            {"c": Y23, "x": X23, "y": B13})
    types = [op.type for op in program.global_block().ops if op.type not in ("feed", "fetch")]
    chain = types[types.index("greater_than") + 1:]
    assert chain == ["fill_any_like"] * 3 + ["cast"] * 2 + ["elementwise_add"] * 5 + \
        ["cast", "where"]


def test_new_ops_backward_in_both_modes():
    """paddle.max / gather / tile / cumsum / where have gradients in static and eager mode."""
    def loss_of(x, index):
        picked = paddle.gather(paddle.tile(x, [1, 2]), index)
        return paddle.sum(paddle.cumsum(picked, axis=1)) + paddle.max(x) + \
            paddle.sum(paddle.where(x > 0, x, x * 3.0))
    x, index = DISTINCT / 10 - 0.5, IDX[:2]
    grad = np.where(x > 0, 1.0, 3.0).astype("float32")
    grad[np.unravel_index(x.argmax(), x.shape)] += 1
    cumsum_weights = np.arange(8, 0, -1)           # d sum(cumsum(row)) / d row[j]
    for src in index:
        grad[src] += cumsum_weights[:4] + cumsum_weights[4:]

    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xv = static.data("x", [3, 4], "float32")
        xv.stop_gradient = False
        iv = static.data("i", [2], "int64")
        (dx,) = static.gradients([loss_of(xv, iv)], [xv])
    (got,) = static.Executor(paddle.CPUPlace()).run(main, feed={"x": x, "i": index},
                                                    fetch_list=[dx])
    np.testing.assert_allclose(got, grad, rtol=1e-5)
    paddle.disable_static()
    xt = paddle.to_tensor(x, stop_gradient=False)
    loss_of(xt, paddle.to_tensor(index)).backward()
    np.testing.assert_allclose(xt.grad.numpy(), grad, rtol=1e-5)


def test_errors_name_the_api_and_the_value():
    x = static.data("x", [2, 3], "float32")
    with pytest.raises(TypeError, match="y must be scalar or tensor type"):
        paddle.pow(x, "2")
    with pytest.raises(ValueError, match="All elements in repeat_times must be positive"):
        paddle.tile(x, [0, 1])
    with pytest.raises(TypeError, match="axis/axes' in squeeze"):
        paddle.squeeze(x, 1.5)
    with pytest.raises(ValueError, match="could not be None"):
        paddle.argmax(x, dtype=None)
    with pytest.raises(ValueError, match="either both or neither of x and y"):
        paddle.where(x > 0, x)
    with pytest.raises(TypeError, match="must be list\\[Tensor\\]"):
        paddle.stack(x)


def test_unique_name_modules():
    from pyfluid.framework import unique_name
    assert paddle.utils.unique_name is unique_name is paddle.fluid.unique_name
    with paddle.utils.unique_name.guard():
        assert paddle.utils.unique_name.generate("fc") == "fc_0"
        assert paddle.utils.unique_name.generate("fc") == "fc_1"
    with paddle.fluid.unique_name.guard("pre_"):
        assert paddle.fluid.unique_name.generate("fc") == "pre_fc_0"
