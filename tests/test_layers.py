"""Layers, parameters and initializers: static.nn.fc / embedding, create_parameter, ParamAttr,
paddle.nn.initializer (op types, Paddle 2.6 attrs, values, seeds)."""
import math
import os

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.nn import initializer as I
from shared_fixtures import PADDLE_FIXTURES, needs_shared

FIXTURES = str(PADDLE_FIXTURES)


def _ops(program):
    return program.global_block().ops


def _run_startup(startup):
    exe = paddle.static.Executor()
    exe.run(startup)
    return paddle.static.global_scope()


def _value(scope, name):
    return np.array(scope.find_var(name).get_tensor())


# -- fc ----------------------------------------------------------------------------------------
def test_fc_names_ops_and_default_initializers():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 20], "float32")
        out = paddle.static.nn.fc(x, 30, activation="relu")
    assert out.name == "fc_0.tmp_2" and tuple(out.shape) == (-1, 30)
    ops = _ops(main)
    assert [op.type for op in ops] == ["mul", "elementwise_add", "relu"]
    assert ops[0].input("Y") == ["fc_0.w_0"] and ops[0].output("Out") == ["fc_0.tmp_0"]
    assert ops[0].attr("x_num_col_dims") == 1 and ops[0].attr("y_num_col_dims") == 1
    assert ops[1].input("Y") == ["fc_0.b_0"] and ops[1].attr("axis") == 1
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]
    init_w, init_b = _ops(startup)
    limit = math.sqrt(6.0 / (20 + 30))
    assert init_w.type == "uniform_random" and init_w.output("Out") == ["fc_0.w_0"]
    assert init_w.attr("min") == pytest.approx(-limit) and init_w.attr("max") == pytest.approx(limit)
    assert init_w.attr("seed") == 0 and init_w.attr("shape") == [20, 30]
    assert init_b.type == "fill_constant" and init_b.attr("value") == 0.0
    assert init_b.attr("shape") == [30]
    assert not any(op.type in ("uniform_random", "fill_constant") for op in ops)
    w = _value(_run_startup(startup), "fc_0.w_0")
    assert w.shape == (20, 30) and np.abs(w).max() <= limit and w.std() > limit / 3


@needs_shared
def test_fc_matches_paddle_fixture_program():
    with open(os.path.join(FIXTURES, "mlp_small.pdmodel"), "rb") as f:
        ref = paddle.static.Program.parse_from_string(f.read())
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 784], "float32")
        h = paddle.static.nn.fc(x, 64, activation="relu")
        paddle.static.nn.fc(h, 10)
    ref_ops = [op for op in _ops(ref) if op.type not in ("feed", "fetch")][:5]
    for ours, theirs in zip(_ops(main), ref_ops, strict=True):
        assert ours.type == theirs.type
        assert ours.inputs == theirs.inputs and ours.outputs == theirs.outputs
        for key in ("x_num_col_dims", "y_num_col_dims", "axis"):
            assert ours.attrs.get(key) == theirs.attrs.get(key)
    for name in ("fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0", "fc_0.tmp_2"):
        assert main.global_block().var(name).shape == ref.global_block().var(name).shape


def test_fc_num_flatten_dims_multiple_inputs_and_param_attrs():
    x = paddle.static.data("x", [None, 3, 4], "float32")
    y = paddle.static.data("y", [None, 3, 5], "float32")
    out = paddle.static.nn.fc([x, y], 6, num_flatten_dims=2, name="fc_predict",
                              weight_attr=[paddle.ParamAttr(name="wx"), None],
                              activation="softmax")
    main = paddle.static.default_main_program()
    assert [op.type for op in _ops(main)] == ["mul", "mul", "sum", "elementwise_add", "softmax"]
    assert _ops(main)[3].attr("axis") == 2
    block = main.global_block()
    assert block.var("wx").shape == (4, 6) and block.var("fc_predict.w_0").shape == (5, 6)
    assert block.var("fc_predict.b_0").shape == (6,)
    assert tuple(out.shape) == (-1, 3, 6)


def test_fc_bias_false_shared_weight_and_trainable():
    x = paddle.static.data("x", [None, 4], "float32")
    attr = paddle.ParamAttr(name="shared_w", trainable=False, learning_rate=0.5)
    paddle.static.nn.fc(x, 3, weight_attr=attr, bias_attr=False)
    paddle.static.nn.fc(x, 3, weight_attr=attr, bias_attr=False)
    main, startup = paddle.static.default_main_program(), paddle.static.default_startup_program()
    params = main.all_parameters()
    assert [p.name for p in params] == ["shared_w"]
    assert params[0].trainable is False and params[0].stop_gradient is True
    assert params[0].optimize_attr == {"learning_rate": 0.5}
    assert [op.type for op in _ops(main)] == ["mul", "mul"]
    assert len(_ops(startup)) == 1                       # one init op for the shared weight
    assert attr.name == "shared_w"                       # the user's attr is not modified


def test_fc_errors():
    with pytest.raises(TypeError, match="The type of 'input' in fc"):
        paddle.static.nn.fc(np.ones([2, 3]), 4)
    ids = paddle.static.data("ids", [None, 3], "int64")
    with pytest.raises(TypeError, match="The data type of 'input' in fc"):
        paddle.static.nn.fc(ids, 4)
    with pytest.raises(TypeError, match="cast to ParamAttr"):
        paddle.static.nn.fc(paddle.static.data("x", [None, 3], "float32"), 4, weight_attr=3)


def test_param_attr_checks_and_conversion():
    with pytest.raises(TypeError, match="The type of 'name' in ParamAttr"):
        paddle.ParamAttr(name=3)
    with pytest.raises(TypeError, match="The type of 'trainable' in ParamAttr"):
        paddle.ParamAttr(trainable=1)
    with pytest.raises(ValueError, match="can not be empty"):
        paddle.ParamAttr(name="")
    to_attr = paddle.ParamAttr._to_attr
    assert to_attr(False) is False and to_attr("w").name == "w"
    assert isinstance(to_attr(I.Constant(1.0)).initializer, I.Constant)
    assert to_attr(None).initializer is None and to_attr(True).trainable


# -- create_parameter and embedding --------------------------------------------------------------
def test_create_parameter_names_and_initializers():
    w = paddle.create_parameter([3, 4], "float32")
    b = paddle.create_parameter([4], "float64", is_bias=True)
    named = paddle.static.create_parameter([2], "float32", name="my_p",
                                           default_initializer=I.Constant(7.0))
    assert (w.name, b.name, named.name) == (
        "create_parameter_0.w_0", "create_parameter_1.b_0", "my_p")
    startup = paddle.static.default_startup_program()
    assert [op.type for op in _ops(startup)] == ["uniform_random", "fill_constant",
                                                 "fill_constant"]
    scope = _run_startup(startup)
    assert _value(scope, "create_parameter_1.b_0").dtype == np.float64
    np.testing.assert_array_equal(_value(scope, "my_p"), [7.0, 7.0])
    with pytest.raises(TypeError, match="Can not create parameter with default initializer"):
        paddle.create_parameter([2], "int64")
    with pytest.raises(ValueError, match="larger than 0"):
        paddle.create_parameter([0, 2], "float32")


def test_embedding_layer():
    ids = paddle.static.data("ids", [None, 5], "int64")
    out = paddle.static.nn.embedding(ids, size=[10, 3], padding_idx=-1,
                                     param_attr=paddle.ParamAttr(name="emb"))
    op = _ops(paddle.static.default_main_program())[0]
    assert op.type == "lookup_table_v2" and op.input("W") == ["emb"]
    assert op.attr("padding_idx") == 9 and op.attr("is_sparse") is False
    assert tuple(out.shape) == (-1, 5, 3)
    scope = _run_startup(paddle.static.default_startup_program())
    table = _value(scope, "emb")
    feed = np.array([[1, 2, 3, 9, 0]], dtype=np.int64)
    result, = paddle.static.Executor().run(feed={"ids": feed}, fetch_list=[out])
    expected = table[feed]
    expected[feed == 9] = 0.0
    np.testing.assert_allclose(result, expected)


# -- initializers --------------------------------------------------------------------------------
def _init(initializer, shape, dtype="float32", seed=0):
    """Create one parameter with ``initializer``; return (init op, initialized value)."""
    startup = paddle.static.default_startup_program()
    startup.random_seed = seed
    paddle.create_parameter(shape, dtype, attr=paddle.ParamAttr(name="p", initializer=initializer))
    op = _ops(startup)[-1]
    return op, _value(_run_startup(startup), "p")


def test_constant_and_assign_initializers():
    op, value = _init(I.Constant(2.5), [2, 3])
    assert op.type == "fill_constant" and op.attr("str_value") == "2.5"
    np.testing.assert_array_equal(value, np.full([2, 3], 2.5, np.float32))
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    paddle.framework.context.reset_default_programs()
    op, value = _init(I.Assign(data), [2, 3])
    assert op.type == "assign_value" and op.attr("fp32_values") == list(data.ravel())
    assert op.attr("shape") == [2, 3]
    np.testing.assert_array_equal(value, data)
    with pytest.raises(TypeError, match="The type of 'value' in Assign"):
        I.Assign("abc")


@pytest.mark.parametrize("initializer, op_type, check", [
    (I.Uniform(-0.5, 2.0), "uniform_random",
     lambda op, v: op.attr("min") == -0.5 and op.attr("max") == 2.0 and v.min() >= -0.5
     and v.max() <= 2.0),
    (I.Normal(1.0, 0.5), "gaussian_random",
     lambda op, v: op.attr("mean") == 1.0 and abs(v.mean() - 1.0) < 0.05
     and abs(v.std() - 0.5) < 0.05),
    (I.TruncatedNormal(0.0, 2.0), "truncated_gaussian_random",
     lambda op, v: op.attr("std") == 2.0 and np.abs(v).max() <= 4.0 and v.std() > 1.4),
    (I.XavierNormal(), "gaussian_random",
     lambda op, v: op.attr("std") == pytest.approx(math.sqrt(2.0 / (60 + 50)))),
    (I.KaimingUniform(), "uniform_random",
     lambda op, v: op.attr("max") == pytest.approx(math.sqrt(2.0) * math.sqrt(3.0 / 60))),
    (I.KaimingNormal(nonlinearity="tanh"), "gaussian_random",
     lambda op, v: op.attr("std") == pytest.approx(5.0 / 3 / math.sqrt(60))),
])
def test_random_initializers(initializer, op_type, check):
    op, value = _init(initializer, [60, 50])
    assert op.type == op_type and op.attr("seed") == 0
    assert value.shape == (60, 50) and value.dtype == np.float32
    assert check(op, value)


def test_fans_of_convolution_kernels():
    op, _ = _init(I.XavierUniform(), [8, 4, 3, 3])
    assert op.attr("max") == pytest.approx(math.sqrt(6.0 / (4 * 9 + 8 * 9)))


def test_program_random_seed_makes_init_reproducible():
    def build(seed):
        paddle.framework.context.reset_default_programs()
        op, value = _init(I.Normal(), [4, 5], seed=seed)
        return op.attr("seed"), value

    seed_a, first = build(7)
    _, again = build(7)
    _, other = build(8)
    assert seed_a == 7
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_pyfluid_seed_makes_default_init_reproducible():
    x = paddle.static.data("x", [None, 6], "float32")
    paddle.static.nn.fc(x, 4)
    startup = paddle.static.default_startup_program()
    paddle.seed(11)
    first = _value(_run_startup(startup), "fc_0.w_0")
    paddle.seed(11)
    again = _value(_run_startup(startup), "fc_0.w_0")
    paddle.seed(12)
    other = _value(_run_startup(startup), "fc_0.w_0")
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_initializer_on_eager_tensor():
    paddle.disable_static()
    try:
        t = paddle.to_tensor(np.zeros([3, 2], np.float32))
        I.Constant(3.0)(t)
        np.testing.assert_array_equal(t.numpy(), np.full([3, 2], 3.0, np.float32))
        I.Assign([[1, 2], [3, 4], [5, 6]])(t)
        np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4], [5, 6]])
    finally:
        paddle.enable_static()


def test_calculate_gain():
    assert I.calculate_gain("tanh") == pytest.approx(5.0 / 3)
    assert I.calculate_gain("leaky_relu", 1.0) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="not suppported"):
        I.calculate_gain("swish")
