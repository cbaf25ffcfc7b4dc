"""Executor.run: feeds, fetches, scopes, startup programs, loaded programs and failing ops."""
import re

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.executor import LoDTensor
from pyfluid.framework import ExecutionError, FeedError, FetchError
from pyfluid.framework.program import program_from_bytes
from pyfluid.ops.types import VarType
from shared_fixtures import PADDLE_FIXTURES, needs_shared

FIXTURES = str(PADDLE_FIXTURES)


def linear_program():
    """y = tanh(x @ w + b) with w, b initialized by the startup program."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        for block, init in ((main.global_block(), False), (startup.global_block(), True)):
            w = block.create_parameter("w", [3, 2], "float32")
            b = block.create_parameter("b", [2], "float32")
            if init:
                block.append_op(type="uniform_random", outputs={"Out": w},
                                attrs={"shape": [3, 2], "min": -1.0, "max": 1.0, "seed": 3})
                block.append_op(type="fill_constant", outputs={"Out": b},
                                attrs={"shape": [2], "value": 0.5, "dtype": int(VarType.FP32)})
        w, b = main.global_block().var("w"), main.global_block().var("b")
        y = paddle.tanh(paddle.matmul(x, w) + b)
    return main, startup, x, y


@pytest.fixture
def exe():
    return static.Executor(paddle.CPUPlace())


def test_startup_initializes_parameters_into_the_scope(exe):
    main, startup, _, _ = linear_program()
    scope = static.Scope()
    exe.run(startup, scope=scope)
    np.testing.assert_array_equal(np.array(scope.find_var("b").get_tensor()), [0.5, 0.5])
    w = np.array(scope.find_var("w").get_tensor())
    assert w.shape == (3, 2) and w.dtype == np.float32 and np.all(np.abs(w) <= 1)
    assert scope.find_var("x") is None


def test_fetch_by_variable_or_name_and_numpy_semantics(exe):
    main, startup, x, y = linear_program()
    exe.run(startup)
    feed = {"x": np.arange(6, dtype="float32").reshape(2, 3)}
    by_var, by_name, again = exe.run(main, feed=feed, fetch_list=[y, y.name, y])
    scope = static.global_scope()
    w, b = (np.array(scope.find_var(n).get_tensor()) for n in ("w", "b"))
    np.testing.assert_allclose(by_var, np.tanh(feed["x"] @ w + b), rtol=1e-6)
    np.testing.assert_array_equal(by_var, by_name)
    assert by_var is not again                      # repeated fetches are separate arrays
    (single,) = exe.run(main, feed=feed, fetch_list=y)
    np.testing.assert_array_equal(single, by_var)
    fed, w_fetched = exe.run(main, feed=feed, fetch_list=[x, "w"])
    assert fed is not feed["x"] and np.array_equal(fed, feed["x"])
    w_fetched[...] = 0                              # the caller owns fetched buffers
    assert np.any(np.array(scope.find_var("w").get_tensor()) != 0)
    (tensor,) = exe.run(main, feed=feed, fetch_list=[y], return_numpy=False)
    assert isinstance(tensor, LoDTensor) and np.array_equal(np.array(tensor), by_var)
    assert exe.run(main, feed=feed) == []


def test_temporaries_do_not_outlive_the_run_and_persistables_do(exe):
    main, startup, _, y = linear_program()
    scope = static.Scope()
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[y], scope=scope)
    assert sorted(scope.local_var_names()) == ["b", "w"]
    assert scope.find_var(y.name) is None


def test_python_scalars_and_lists_are_cast_to_the_var_dtype(exe):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [1], "float64")
        y = paddle.scale(x, 2.0)
        z = static.data("z", [2, 2], "int64")
        w = paddle.scale(z, 3.0)
    out, ints = exe.run(main, feed={"x": 1.5, "z": [[1, 2], [3, 4]]}, fetch_list=[y, w])
    assert out.dtype == np.float64 and out.tolist() == [3.0]
    assert ints.dtype == np.int64 and ints.tolist() == [[3, 6], [9, 12]]


def test_feed_shape_mismatch_uses_paddles_message(exe):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        data = static.data("data", [None, 3, 4, 8], "float32")
        out = paddle.scale(data, 1.0)
    with pytest.raises(FeedError) as info:
        exe.run(main, feed={"data": np.zeros((10, 3, 4, 5), "float32")}, fetch_list=[out])
    assert str(info.value) == ("The fed Variable 'data' should have dimensions = 4, shape = "
                               "(-1, 3, 4, 8), but received fed shape [10, 3, 4, 5] on each device")
    exe.run(main, feed={"data": np.zeros((7, 3, 4, 8), "float32")}, fetch_list=[out])


def test_feed_rank_mismatch_is_caught(exe):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        data = static.data("data", [None, 3], "float32")
        out = paddle.scale(data, 1.0)
    for bad in (np.zeros((3,), "float32"), np.zeros((2, 3, 1), "float32")):
        expected = ("The fed Variable 'data' should have dimensions = 2, shape = (-1, 3), but "
                    f"received fed shape {list(bad.shape)} on each device")
        with pytest.raises(FeedError, match=re.escape(expected)):
            exe.run(main, feed={"data": bad}, fetch_list=[out])


def test_feed_dtype_mismatch_uses_paddles_message(exe):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        label = static.data("label", [None, 1], "int64")
        out = paddle.scale(label, 1.0)
    with pytest.raises(FeedError) as info:
        exe.run(main, feed={"label": np.zeros((4, 1), "float64")}, fetch_list=[out])
    assert str(info.value) == ("The data type of fed Variable 'label' must be 'int64', but "
                               "received 'float64'")


def test_missing_feed_names_the_variable_and_the_reader(exe):
    main, startup, _, y = linear_program()
    exe.run(startup)
    # the passes fuse matmul_v2 + add into fc: the message names fc and the ops the user built
    with pytest.raises(ExecutionError, match=r"Input Variable Input\(x\) is not initialized.*"
                                             r"pass it in feed=\{'x': ...\}[\s\S]*matmul_v2\(X=x"):
        exe.run(main, feed={}, fetch_list=[y])


def test_uninitialized_parameter_says_to_run_startup(exe):
    main, _, _, y = linear_program()
    with pytest.raises(ExecutionError, match="run the startup program first"):
        exe.run(main, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[y])


def test_unknown_fetch_name_is_a_clear_error(exe):
    main, startup, _, y = linear_program()
    exe.run(startup)
    feed = {"x": np.ones((1, 3), "float32")}
    with pytest.raises(FetchError, match=r"Cannot fetch 'tanh_0.tmp_9': the program has no "
                                         r"variable of that name.*Did you mean 'tanh_0.tmp_0'"):
        exe.run(main, feed=feed, fetch_list=["tanh_0.tmp_9"])
    with pytest.raises(TypeError, match=r"Require fetch_list\[0\] 's type shall be one of "
                                        r"\(Variable, str\)"):
        exe.run(main, feed=feed, fetch_list=[3])


def test_unknown_feed_name_warns_and_is_ignored(exe):
    main, startup, _, y = linear_program()
    exe.run(startup)
    with pytest.warns(UserWarning, match="The variable nope is not found in program"):
        exe.run(main, feed={"x": np.ones((1, 3), "float32"), "nope": 1.0}, fetch_list=[y])


def test_failing_op_shows_op_index_shapes_and_user_site(exe):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [None, 3], "float32")
        h = paddle.scale(x, 2.0)
        bad = paddle.reshape(h, [4, -1])   # the failing line
    with pytest.raises(ExecutionError) as info:
        exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[bad])
    message = str(info.value)
    assert "cannot reshape array of size 6" in message
    assert "while running op #1 in block 0" in message
    assert "reshape2(X=scale_0.tmp_0) {shape=[4, -1]}" in message
    assert "inputs: X=scale_0.tmp_0: float32[2, 3]" in message
    assert f"op built at: {__file__}:" in message and "# the failing line" not in message
    line = int(message.rsplit(":", 1)[1])
    assert "the failing line" in open(__file__).read().splitlines()[line - 1]


def test_a_failing_run_leaves_the_scope_unchanged(exe):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None], "float32")
        counter = main.global_block().create_var(name="counter", shape=[1], dtype="float32",
                                                 persistable=True)
        main.global_block().append_op(type="scale", inputs={"X": counter},
                                      outputs={"Out": counter}, attrs={"bias": 1.0})
        halves = paddle.reshape(x, [2, -1])   # fetched: passes drop ops nothing uses
    static.global_scope().var("counter").get_tensor().set(np.zeros(1, "float32"),
                                                          paddle.CPUPlace())
    exe.run(main, feed={"x": np.ones(4, "float32")}, fetch_list=[halves])
    with pytest.raises(ExecutionError):
        exe.run(main, feed={"x": np.ones(3, "float32")}, fetch_list=[halves])
    assert np.array(static.global_scope().find_var("counter").get_tensor()).tolist() == [1.0]


def test_plan_is_reused_until_the_program_changes(exe):
    main, startup, x, y = linear_program()
    exe.run(startup)
    feed = {"x": np.ones((1, 3), "float32")}
    exe.run(main, feed=feed, fetch_list=[y])
    plans = len(exe._plans)
    exe.run(main, feed=feed, fetch_list=[y])
    assert len(exe._plans) == plans
    with static.program_guard(main):
        z = paddle.scale(y, 0.0, bias=4.0)
    assert exe.run(main, feed=feed, fetch_list=[z])[0].tolist() == [[4.0, 4.0]]
    assert len(exe._plans) == plans + 1


def test_loaded_program_feed_and_fetch_ops_are_honoured(exe):
    main, startup, x, y = linear_program()
    block = main.global_block()
    feed_holder = block.create_var(name="feed", type=VarType.FEED_MINIBATCH, persistable=True)
    fetch_holder = block.create_var(name="fetch", type=VarType.FETCH_LIST, persistable=True)
    block._prepend_op(type="feed", inputs={"X": feed_holder}, outputs={"Out": x},
                      attrs={"col": 0})
    block.append_op(type="fetch", inputs={"X": y}, outputs={"Out": fetch_holder},
                    attrs={"col": 0})
    loaded = static.Program.parse_from_string(main.desc.serialize_to_string())
    exe.run(startup)
    feed = {"x": np.ones((2, 3), "float32")}
    (by_ops,) = exe.run(loaded, feed=feed)               # fetch_list None: the fetch ops decide
    (listed,) = exe.run(loaded, feed=feed, fetch_list=[y.name])
    np.testing.assert_array_equal(by_ops, listed)
    with pytest.raises(FeedError, match="'feed_targets' does not have x variable"):
        exe.run(loaded, feed={})
    with pytest.raises(FetchError, match=f"'fetch_targets' does not have {y.name} variable"):
        exe.run(loaded, feed=feed, fetch_list=["x"])


@needs_shared
def test_paddle_mlp_model_runs_against_numpy():
    program = program_from_bytes(open(f"{FIXTURES}/mlp_small.pdmodel", "rb").read())
    rng = np.random.default_rng(0)
    scope = static.Scope()
    params = {}
    for var in program.list_vars():
        if var.persistable and var.type == VarType.LOD_TENSOR:
            params[var.name] = rng.standard_normal(var.shape).astype("float32") * 0.1
            scope.var(var.name).get_tensor().set(params[var.name], paddle.CPUPlace())
    x = np.load(f"{FIXTURES}/mlp_small.io.npz")["x"]
    (out,) = static.Executor().run(program, feed={"x": x}, scope=scope)
    h = np.maximum(x @ params["fc_0.w_0"] + params["fc_0.b_0"], 0)
    logits = h @ params["fc_1.w_0"] + params["fc_1.b_0"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    assert sorted(scope.local_var_names()) == sorted(params)


def test_scope_api():
    scope = static.Scope()
    scope.var("data").get_tensor().set(np.ones((2, 2)), paddle.CPUPlace())
    np.testing.assert_array_equal(np.array(scope.find_var("data").get_tensor()), np.ones((2, 2)))
    kid = scope.new_scope()
    assert kid.find_var("data") is scope.find_var("data") and kid.local_var_names() == []
    assert scope.find_var("nope") is None
    with static.scope_guard(kid):
        assert static.global_scope() is kid
    assert static.global_scope() is not kid


def test_closed_executor_refuses_to_run(exe):
    exe.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Executor"):
        exe.run(static.Program())
