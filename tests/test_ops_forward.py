"""Forward results of the first op set against NumPy, each through a one-op Program run by the
Executor; the inferred output shape and dtype must match what the kernel produced."""
import numpy as np
import pytest

from pyfluid import static
from pyfluid.ops.types import VarType, convert_dtype

RNG = np.random.default_rng(2024)


def r(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def run_op(op_type, inputs, attrs=None, outputs=("Out",)):
    """Append one op fed by data vars; return {output slot: array} and the output Variables."""
    main = static.Program()
    feed, slots = {}, {}
    with static.program_guard(main, static.Program()):
        block = main.global_block()
        for slot, value in inputs.items():
            values = value if isinstance(value, list) else [value]
            names = [f"{slot.lower()}_{i}" for i in range(len(values))]
            for name, v in zip(names, values):
                static.data(name, list(v.shape), v.dtype.name)
                feed[name] = v
            slots[slot] = names if isinstance(value, list) else names[0]
        out_vars = {slot: block.create_var(name=f"out_{slot}") for slot in outputs}
        block.append_op(type=op_type, inputs=slots, outputs=out_vars, attrs=attrs or {})
    results = static.Executor().run(main, feed=feed, fetch_list=list(out_vars.values()))
    for var, value in zip(out_vars.values(), results):
        assert var.shape == value.shape, f"{op_type}: inferred {var.shape}, got {value.shape}"
        assert var.dtype == convert_dtype(value.dtype), f"{op_type}: dtype {var.dtype}"
    return dict(zip(outputs, results))


def softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


X23, Y23, X234, V3, V2 = r(2, 3), r(2, 3), r(2, 3, 4), r(3), r(2)
POS23 = np.abs(r(2, 3)) + 0.5
FP32, FP64, INT32, INT64 = (int(t) for t in (VarType.FP32, VarType.FP64, VarType.INT32,
                                             VarType.INT64))

CASES = [  # (id, op type, inputs, attrs, expected)
    ("assign", "assign", {"X": X23}, {}, X23),
    ("cast_f2i", "cast", {"X": X23 * 3}, {"in_dtype": FP32, "out_dtype": INT32},
     (X23 * 3).astype("int32")),
    ("cast_f2d", "cast", {"X": X23}, {"in_dtype": FP32, "out_dtype": FP64}, X23.astype("float64")),
    ("scale", "scale", {"X": X23}, {"scale": 2.5, "bias": 1.0}, X23 * 2.5 + 1.0),
    ("scale_bias_first", "scale", {"X": X23}, {"scale": 2.5, "bias": 1.0,
                                              "bias_after_scale": False}, (X23 + 1.0) * 2.5),
    ("scale_tensor", "scale", {"X": X23, "ScaleTensor": np.array([3.0], "float32")}, {},
     X23 * 3.0),
    ("mul_2d", "mul", {"X": X23, "Y": r(3, 4)}, {}, None),
    ("mul_num_col_dims", "mul", {"X": X234, "Y": r(4, 5)}, {"x_num_col_dims": 2}, None),
    ("matmul_v2", "matmul_v2", {"X": X23, "Y": r(3, 4)}, {}, None),
    ("matmul_v2_trans", "matmul_v2", {"X": r(3, 2), "Y": r(4, 3)},
     {"trans_x": True, "trans_y": True}, None),
    ("matmul_v2_batched", "matmul_v2", {"X": r(5, 2, 3), "Y": r(3, 4)}, {}, None),
    ("matmul_v2_vectors", "matmul_v2", {"X": V3, "Y": r(3, 4)}, {}, None),
    ("add_same", "elementwise_add", {"X": X23, "Y": Y23}, {}, X23 + Y23),
    ("add_axis_minus1", "elementwise_add", {"X": X234, "Y": r(4)}, {}, None),
    ("add_axis1", "elementwise_add", {"X": X234, "Y": V3}, {"axis": 1},
     X234 + V3.reshape(3, 1)),
    ("add_axis0", "elementwise_add", {"X": X234, "Y": V2}, {"axis": 0},
     X234 + V2.reshape(2, 1, 1)),
    ("add_axis1_2d", "elementwise_add", {"X": X234, "Y": r(3, 4)}, {"axis": 1}, None),
    ("add_x_lower_rank", "elementwise_add", {"X": V3, "Y": X234}, {"axis": 1},
     V3.reshape(3, 1) + X234),
    ("sub_axis1", "elementwise_sub", {"X": X234, "Y": V3}, {"axis": 1},
     X234 - V3.reshape(3, 1)),
    ("mul_axis0", "elementwise_mul", {"X": X234, "Y": V2}, {"axis": 0},
     X234 * V2.reshape(2, 1, 1)),
    ("div", "elementwise_div", {"X": X23, "Y": POS23}, {}, X23 / POS23),
    ("div_broadcast", "elementwise_div", {"X": X23, "Y": np.float32([2.0])}, {}, X23 / 2),
    ("relu", "relu", {"X": X23}, {}, np.maximum(X23, 0)),
    ("tanh", "tanh", {"X": X23}, {}, np.tanh(X23)),
    ("sigmoid", "sigmoid", {"X": X23}, {}, 1 / (1 + np.exp(-X23))),
    ("softmax", "softmax", {"X": X234}, {}, softmax(X234, -1)),
    ("softmax_axis0", "softmax", {"X": X234}, {"axis": 0}, softmax(X234, 0)),
    ("softmax_large", "softmax", {"X": X23 * 1000}, {}, softmax(X23 * 1000, -1)),
    ("log_softmax", "log_softmax", {"X": X234}, {"axis": 1}, np.log(softmax(X234, 1))),
    ("reduce_mean_dim", "reduce_mean", {"X": X234}, {"dim": [1]}, X234.mean(axis=1)),
    ("reduce_mean_keep", "reduce_mean", {"X": X234}, {"dim": [-1], "keep_dim": True},
     X234.mean(axis=-1, keepdims=True)),
    ("reduce_mean_all", "reduce_mean", {"X": X234}, {"reduce_all": True}, X234.mean()),
    ("reduce_sum_dims", "reduce_sum", {"X": X234}, {"dim": [0, 2]}, X234.sum(axis=(0, 2))),
    ("reduce_sum_default", "reduce_sum", {"X": X234}, {}, X234.sum(axis=0)),
    ("reduce_sum_all_keep", "reduce_sum", {"X": X234}, {"reduce_all": True, "keep_dim": True},
     X234.sum(keepdims=True)),
    ("reduce_sum_out_dtype", "reduce_sum", {"X": (X23 > 0)}, {"dim": [1], "out_dtype": INT64},
     (X23 > 0).sum(axis=1)),
    ("mean", "mean", {"X": X234}, {}, X234.mean()),
    ("concat", "concat", {"X": [X23, r(2, 2), Y23]}, {"axis": 1}, None),
    ("concat_negative_axis", "concat", {"X": [X234, X234]}, {"axis": -3},
     np.concatenate([X234, X234], axis=0)),
    ("sum", "sum", {"X": [X23, Y23, POS23]}, {}, X23 + Y23 + POS23),
    ("sum_one", "sum", {"X": [X23]}, {}, X23),
]
NUMPY = {  # expected values computed from the inputs where the table says None
    "mul_2d": lambda i: i["X"] @ i["Y"],
    "mul_num_col_dims": lambda i: (i["X"].reshape(6, 4) @ i["Y"]).reshape(2, 3, 5),
    "matmul_v2": lambda i: i["X"] @ i["Y"],
    "matmul_v2_trans": lambda i: i["X"].T @ i["Y"].T,
    "matmul_v2_batched": lambda i: i["X"] @ i["Y"],
    "matmul_v2_vectors": lambda i: i["X"] @ i["Y"],
    "add_axis_minus1": lambda i: i["X"] + i["Y"],
    "add_axis1_2d": lambda i: i["X"] + i["Y"],
    "concat": lambda i: np.concatenate(i["X"], axis=1),
}


@pytest.mark.parametrize("case_id, op_type, inputs, attrs, expected", CASES,
                         ids=[c[0] for c in CASES])
def test_forward_matches_numpy(case_id, op_type, inputs, attrs, expected):
    if expected is None:
        expected = NUMPY[case_id](inputs)
    got = run_op(op_type, inputs, attrs)["Out"]
    expected = np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("shape, target, expected", [
    ((2, 3, 4), [6, -1], (6, 4)),
    ((2, 3, 4), [0, -1], (2, 12)),
    ((2, 3, 4), [0, 0, 2, 2], (2, 3, 2, 2)),
    ((1,), [], ()),
])
def test_reshape2(shape, target, expected):
    x = r(*shape)
    out = run_op("reshape2", {"X": x}, {"shape": target}, outputs=("Out", "XShape"))
    np.testing.assert_array_equal(out["Out"], x.reshape(expected))
    assert out["XShape"].shape == (0,) + shape


def test_transpose2():
    out = run_op("transpose2", {"X": X234}, {"axis": [2, 0, 1]}, outputs=("Out", "XShape"))
    np.testing.assert_array_equal(out["Out"], X234.transpose(2, 0, 1))
    assert out["XShape"].shape == (0, 2, 3, 4)


@pytest.mark.parametrize("dtype, value, str_value, expected", [
    (FP32, 1.5, "", np.full((2, 3), 1.5, "float32")),
    (INT64, 0.0, "9007199254740993", np.full((2, 3), 9007199254740993, "int64")),
    (FP64, 0.0, "inf", np.full((2, 3), np.inf)),
    (INT32, 7.0, "", np.full((2, 3), 7, "int32")),
])
def test_fill_constant(dtype, value, str_value, expected):
    out = run_op("fill_constant", {}, {"shape": [2, 3], "dtype": dtype, "value": value,
                                       "str_value": str_value})["Out"]
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)


def test_uniform_random_range_seed_and_dtype():
    attrs = {"shape": [200, 50], "min": -2.0, "max": 3.0, "seed": 11, "dtype": FP64}
    first = run_op("uniform_random", {}, attrs)["Out"]
    assert first.dtype == np.float64 and first.shape == (200, 50)
    assert first.min() >= -2.0 and first.max() < 3.0 and abs(first.mean() - 0.5) < 0.05
    np.testing.assert_array_equal(run_op("uniform_random", {}, attrs)["Out"], first)
    unseeded = run_op("uniform_random", {}, {**attrs, "seed": 0})["Out"]
    assert not np.array_equal(unseeded, first)


def test_gaussian_random_moments():
    out = run_op("gaussian_random", {}, {"shape": [400, 100], "mean": 1.0, "std": 2.0})["Out"]
    assert out.dtype == np.float32 and out.shape == (400, 100)
    assert abs(out.mean() - 1.0) < 0.03 and abs(out.std() - 2.0) < 0.03


def test_random_ops_take_their_shape_from_shape_tensor():
    from pyfluid.ops import get_op
    shape = np.array([2, 5], dtype="int64")
    for op_type in ("uniform_random", "gaussian_random", "fill_constant"):
        out = get_op(op_type).run(*([None] if op_type == "fill_constant" else []), shape,
                                  shape=[7], dtype=5)
        assert out.shape == (2, 5), op_type
