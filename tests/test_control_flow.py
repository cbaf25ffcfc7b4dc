"""Control flow in static mode: what cond, while_loop, case, switch_case, While,
ConditionalBlock and tensor arrays compute, each branch taken, nested, with Paddle's
run-time semantics (untaken outputs, scopes, in-place loop variables) and build-time errors."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework.errors import ExecutionError
from pyfluid.ops.types import VarType

nn = static.nn


def run(build, feed=None, fetch_all=True):
    """Build a fresh program with ``build()`` (it returns the fetch list) and run it."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        outs = build()
    exe = static.Executor()
    exe.run(startup)
    fetch = [o for o in paddle.utils.flatten(outs) if o is not None]
    return exe.run(main, feed=feed or {}, fetch_list=fetch), main


def f32(*values):
    return np.array(values, "float32")


def test_cond_takes_each_branch():
    def build():
        x = static.data("x", [2], "float32")
        return nn.cond(x.sum() > 0, lambda: x + 1, lambda: x - 1)
    for x, expected in ((f32(1, 2), f32(2, 3)), (f32(-1, -2), f32(-2, -3))):
        (out,), _ = run(build, {"x": x})
        np.testing.assert_array_equal(out, expected)


def test_cond_returns_nested_structures_shaped_as_the_false_branch():
    def build():
        x = static.data("x", [2], "float32")
        out = nn.cond(x.sum() > 0, lambda: (x + 1, [paddle.reshape(x, [1, 2]), x * 0]),
                      lambda: [x * 2, (paddle.reshape(x * 3, [1, 2]), x)])
        assert isinstance(out, list) and isinstance(out[1], tuple)
        return out
    (a, b, c), _ = run(build, {"x": f32(1, 2)})
    np.testing.assert_array_equal(a, f32(2, 3))
    np.testing.assert_array_equal(b, f32(1, 2).reshape(1, 2))
    (a, b, c), _ = run(build, {"x": f32(-1, 1)})
    np.testing.assert_array_equal(a, f32(-2, 2))
    np.testing.assert_array_equal(b, f32(-3, 3).reshape(1, 2))
    np.testing.assert_array_equal(c, f32(-1, 1))


def test_nested_cond_and_a_cond_that_only_writes_an_outer_variable():
    def build():
        x = static.data("x", [2], "float32")
        inner = nn.cond(x.sum() > 0, lambda: nn.cond(x.mean() > 1.0, lambda: x * 100,
                                                      lambda: x * 10), lambda: x - 1)
        outer = paddle.full([2], 7.0, "float32")

        def write_outer():
            paddle.assign(x * 10, output=outer)
        assert nn.cond(x.sum() > 0, write_outer) is None
        return [inner, outer]
    for x, inner, outer in ((f32(1, 2), [100, 200], [10, 20]), (f32(0.5, 0.5), [5, 5], [5, 5]),
                            (f32(-1, -2), [-2, -3], [7, 7])):
        got, _ = run(build, {"x": x})
        np.testing.assert_array_equal(got[0], f32(*inner))
        np.testing.assert_array_equal(got[1], f32(*outer))


def test_python_values_from_both_branches():
    def build():
        x = static.data("x", [2], "float32")
        same = nn.cond(x.sum() > 0, lambda: 3, lambda: 3)
        assert same == 3
        with pytest.warns(UserWarning, match="not same type"):
            mixed = nn.cond(x.sum() > 0, lambda: 5, lambda: x.sum())
        return [mixed]
    (value,), _ = run(build, {"x": f32(1, 2)})
    assert value == 5


def test_an_untaken_branch_leaves_its_output_unset_and_branch_locals_cannot_be_fetched():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        true_block = nn.control_flow.ConditionalBlock([x.sum() > 0], is_scalar_condition=True)
        out = main.global_block().create_var(name="out", shape=[2], dtype="float32")
        with true_block.block():
            local = paddle.exp(x)
            paddle.assign(local, output=out)
    exe = static.Executor()
    assert exe.run(main, feed={"x": f32(-1, -2)}, fetch_list=[out])[0] is None
    np.testing.assert_allclose(exe.run(main, feed={"x": f32(1, 2)}, fetch_list=[out])[0],
                               np.exp(f32(1, 2)))
    with pytest.raises(RuntimeError, match=rf"\(NotFound\) {local.name} not in VariableScope"):
        exe.run(main, feed={"x": f32(1, 2)}, fetch_list=[local])


def test_conditional_block_without_scalar_condition_runs_unless_an_input_is_empty():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [-1], "float32")
        flag = static.data("c", [3], "bool")
        out = paddle.full([1], -7.0, "float32")
        block = nn.control_flow.ConditionalBlock([flag], is_scalar_condition=False)
        with block.block():
            paddle.assign(paddle.sum(x, keepdim=True) + 100, output=out)
    exe = static.Executor()
    for x, expected in ((f32(1, 2), 103.0), (np.zeros(0, "float32"), -7.0)):
        got = exe.run(main, feed={"x": x, "c": np.array([False] * 3)}, fetch_list=[out])[0]
        assert got.item() == expected


def test_a_pred_of_two_elements_fails_when_the_cond_runs():
    def build():
        c = static.data("c", [2], "bool")
        return nn.cond(c, lambda: paddle.full([1], 1.0), lambda: paddle.full([1], 2.0))
    with pytest.raises(ExecutionError, match=r"\(InvalidArgument\) condition input's data type "
                                             r"should be bool, numel should be 1, actual numel "
                                             r"is 2"):
        run(build, {"c": np.array([True, False])})


def test_while_loop_counts_and_updates_its_loop_variables_in_place():
    def build():
        i = paddle.zeros([1], "int64")
        x = static.data("x", [3], "float32")
        s = paddle.ones([3], "float32")
        out = nn.while_loop(lambda i, s: i < 4, lambda i, s: [i + 1, s * x], [i, s])
        assert out[0] is i and out[1] is s
        return out
    (i, s), _ = run(build, {"x": f32(1, 2, 0.5)})
    assert i.tolist() == [4]
    np.testing.assert_array_equal(s, f32(1, 16, 0.0625))


def test_a_fed_loop_variable_is_overwritten_and_zero_steps_keep_it():
    def build():
        x = static.data("x", [1], "float32")
        nn.while_loop(lambda x: x < 10.0, lambda x: [x * 2], [x])
        return [x]
    assert run(build, {"x": f32(1.5)})[0][0].tolist() == [12.0]
    assert run(build, {"x": f32(50.0)})[0][0].tolist() == [50.0]


def test_nested_loops_a_loop_in_a_branch_and_a_branch_in_a_loop():
    def nested():
        i, total = paddle.zeros([1], "int64"), paddle.zeros([1], "int64")

        def outer(i, total):
            j = paddle.zeros([1], "int64")
            _, total = nn.while_loop(lambda j, t: j < i, lambda j, t: [j + 1, t + 1], [j, total])
            return [i + 1, total]
        return nn.while_loop(lambda i, t: i < 4, outer, [i, total])
    (i, total), _ = run(nested)
    assert (i.item(), total.item()) == (4, 6)

    def loop_in_branch():
        x = static.data("x", [1], "float32")

        def doubling():
            return nn.while_loop(lambda v: v < 5.0, lambda v: [v * 2], [x * 1])[0]
        return nn.cond(x.sum() > 0, doubling, lambda: x * -1)
    assert run(loop_in_branch, {"x": f32(2.0)})[0][0].item() == 8.0
    assert run(loop_in_branch, {"x": f32(-2.0)})[0][0].item() == 2.0

    def branch_in_loop():
        i, s = paddle.zeros([1], "int64"), paddle.zeros([1], "float32")

        def body(i, s):
            s2 = nn.cond((i % 2 == 0).squeeze(), lambda: s + 1.0, lambda: s * 10.0)
            return [i + 1, s2]
        return nn.while_loop(lambda i, s: i < 4, body, [i, s])
    assert run(branch_in_loop)[0][1].item() == 110.0


def test_while_class_increment_and_is_test_loops():
    for is_test in (False, True):
        def build():
            i = paddle.full([1], 0, "int64")
            n = paddle.full([1], 5, "int64")
            s = paddle.full([1], 0.0, "float32")
            cond = paddle.less_than(i, n)
            loop = nn.control_flow.While(cond=cond, is_test=is_test)
            with loop.block():
                paddle.assign(s + paddle.cast(i, "float32"), output=s)
                assert paddle.increment(i, 1) is i
                paddle.assign(paddle.less_than(i, n), output=cond)
            return [i, s, cond]
        (i, s, cond), main = run(build)
        assert (i.item(), s.item(), cond.item()) == (5, 10.0, False)
        assert main.global_block().ops[-1].attr("is_test") is is_test


def test_switch_case_and_case_pick_one_branch():
    def build():
        idx = static.data("idx", [1], "int32")
        branches = {1: lambda: paddle.full([1], 1.0), 3: lambda: paddle.full([1], 3.0)}
        with_default = nn.switch_case(idx, branches, default=lambda: paddle.full([1], -1.0))
        last = nn.switch_case(idx, [lambda: paddle.full([1], 10.0),
                                    lambda: paddle.full([1], 11.0)])
        x = paddle.cast(idx, "float32")
        cased = nn.case([(x > 2.0, lambda: x * 10), (x > 0.0, lambda: x * 100)],
                        default=lambda: x - 1)
        return [with_default, last, cased]
    expected = {0: (-1, 10, -1), 1: (1, 11, 100), 3: (3, 11, 30), 7: (-1, 11, 70),
                -2: (-1, 11, -3)}
    for idx, values in expected.items():
        got, _ = run(build, {"idx": np.array([idx], "int32")})
        assert [v.item() for v in got] == list(values), idx


def test_tensor_arrays():
    def build():
        a, b = paddle.full([1, 2], 1.0), paddle.full([1, 2], 2.0)
        zero, one = paddle.full([1], 0, "int64"), paddle.full([1], 1, "int64")
        array = paddle.tensor.array_write(a, zero)
        paddle.tensor.array_write(b, one, array=array)
        assert array.type == VarType.LOD_TENSOR_ARRAY
        initialized = paddle.tensor.create_array("float32", [a, b, a])
        concat, _ = paddle.tensor.tensor_array_to_tensor(array, axis=1)
        stacked, _ = paddle.tensor.manipulation.tensor_array_to_tensor(array, axis=0,
                                                                      use_stack=True)
        return [paddle.tensor.array_length(array), paddle.tensor.array_read(array, one),
                concat, stacked, paddle.tensor.array_length(initialized)]
    (length, read, concat, stacked, n), _ = run(build)
    assert length.tolist() == [2] and n.tolist() == [3]
    np.testing.assert_array_equal(read, [[2.0, 2.0]])
    np.testing.assert_array_equal(concat, [[1.0, 1.0, 2.0, 2.0]])
    assert stacked.shape == (2, 1, 2)


def test_a_fetched_array_is_a_list_of_its_elements_whatever_their_shapes():
    """Paddle's test_executor_and_mul: an array of [2, 4] and [4, 3] tensors fetched."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        a = static.data("a", [-1, 4], "float32")
        b = static.data("b", [4, 3], "float32")
        array = paddle.tensor.array_write(a, paddle.zeros([1], "int64"))
        paddle.tensor.array_write(b, paddle.ones([1], "int64"), array=array)
    feed = {"a": np.ones((2, 4), "float32"), "b": np.full((4, 3), 2.0, "float32")}
    exe = static.Executor()
    (values,) = exe.run(main, feed=feed, fetch_list=[array])
    assert isinstance(values, list) and [v.shape for v in values] == [(2, 4), (4, 3)]
    np.testing.assert_array_equal(values[1], feed["b"])
    (tensors,) = exe.run(main, feed=feed, fetch_list=[array], return_numpy=False)
    assert isinstance(tensors, paddle.base.core.LoDTensorArray)
    np.testing.assert_array_equal(np.array(tensors[0]), feed["a"])


def test_array_reads_past_a_gap_fail_and_past_the_end_give_nothing():
    def gap():
        array = paddle.tensor.array_write(paddle.full([1], 4.0), paddle.full([1], 3, "int64"))
        return [paddle.tensor.array_length(array),
                paddle.tensor.array_read(array, paddle.full([1], 1, "int64"))]
    with pytest.raises(ExecutionError, match="Tensor holds no memory"):
        run(gap)

    def past_end():
        array = paddle.tensor.array_write(paddle.full([1], 4.0), paddle.full([1], 0, "int64"))
        return [paddle.tensor.array_read(array, paddle.full([1], 5, "int64"))]
    assert run(past_end)[0] == [None]


def test_an_array_written_in_a_loop():
    def build():
        x = static.data("x", [1, 2], "float32")
        array = paddle.tensor.create_array("float32")
        i = paddle.zeros([1], "int64")

        def body(i, h, array):
            h = h * 2
            paddle.tensor.array_write(h, i, array=array)
            return [i + 1, h, array]
        nn.while_loop(lambda i, h, a: i < 3, body, [i, x, array])
        return [paddle.tensor.tensor_array_to_tensor(array, axis=0)[0]]
    (out,), _ = run(build, {"x": f32(1, -1).reshape(1, 2)})
    np.testing.assert_array_equal(out, [[2, -2], [4, -4], [8, -8]])


def test_py_func_in_a_branch():
    def build():
        x = static.data("x", [2], "float32")

        def branch():
            out = static.default_main_program().current_block().create_var(
                name="cubed", shape=[2], dtype="float32")
            static.py_func(func=lambda v: np.asarray(v) ** 3, x=x, out=out)
            return out
        return nn.cond(x.sum() > 0, branch, lambda: x)
    np.testing.assert_array_equal(run(build, {"x": f32(1, 2)})[0][0], f32(1, 8))
    np.testing.assert_array_equal(run(build, {"x": f32(-1, 0)})[0][0], f32(-1, 0))


def test_logical_ops():
    def build():
        a, b = static.data("a", [3], "bool"), static.data("b", [3], "bool")
        ai = static.data("ai", [3], "int32")
        return [paddle.logical_and(a, b), paddle.logical_or(a, b), paddle.logical_xor(a, b),
                paddle.logical_not(a), paddle.logical_not(ai)]
    got, _ = run(build, {"a": np.array([True, False, True]), "b": np.array([True, True, False]),
                         "ai": np.array([2, 0, -1], "int32")})
    assert [g.tolist() for g in got] == [[True, False, False], [True, True, True],
                                         [False, True, True], [False, True, False],
                                         [False, True, False]]
    with pytest.raises(ValueError, match=r"The DataType of logical_and Op's Variable must be "
                                          r"consistent, but received paddle.int32 and "
                                          r"paddle.bool"):
        with static.program_guard(static.Program()):
            paddle.logical_and(static.data("i", [3], "int32"), static.data("j", [3], "bool"))


@pytest.mark.parametrize("call,error,message", [
    (lambda x: nn.cond(x.sum(), lambda: x), TypeError,
     r"The data type of 'pred' in base.layers.cond must be \['bool'\], but received float32"),
    (lambda x: nn.cond(x.sum() > 0, 3), TypeError,
     "The true_fn in cond must be callable, but received int"),
    (lambda x: nn.cond(x.sum() > 0, lambda: None, lambda: x), ValueError,
     "true_fn returns None while false_fn returns non-None"),
    (lambda x: nn.cond(x.sum() > 0, lambda: (x, x), lambda: (x, x, x)), ValueError,
     "true fn returns 2 vars, but false fn returns 3 vars, which is not equals"),
    (lambda x: nn.while_loop(lambda v: v, lambda v: v, x), TypeError,
     r"The type of 'loop_vars' in static.nn.while_loop must be \(<class 'list'>, "),
    (lambda x: nn.while_loop(lambda v: v.sum() > 0, lambda v: [v], []), ValueError,
     "loop_vars in while_loop should not be empty"),
    (lambda x: nn.while_loop(lambda v: v > 0, lambda v: [v], [x]), TypeError,
     r"the shape of the variable returned by cond should be \[1\],but given shape as \[2\]"),
    (lambda x: nn.while_loop(lambda v: v.sum() > 0, lambda v: [v, v], [x]), ValueError,
     "body in while_loop should return the same arity .* The length of loop_vars should be "
     "the same."),
    (lambda x: nn.switch_case(paddle.cast(x, "float32")[0:1], [lambda: x]), TypeError,
     r"The data type of 'branch_index' in static.nn.switch_case must be \['uint8', 'int32', "
     r"'int64'\], but received float32"),
    (lambda x: nn.switch_case(paddle.full([1], 0, "int64"), {1: lambda: x, 2: 3}), TypeError,
     "The type of function for key 2 of 'branch_fns' in switch_case must be callable"),
    (lambda x: nn.case([(x.sum() > 0, lambda: x)], default=5), TypeError,
     r"The default in Op\(case\) must be callable."),
    (lambda x: paddle.tensor.array_read(paddle.tensor.create_array("float32"),
                                        paddle.full([1], 0, "int32")), TypeError,
     r"The data type of 'i' in array_read must be \['int64'\], but received int32"),
    (lambda x: paddle.tensor.array_length(x), TypeError,
     "array should be tensor array vairable in array_length Op"),
])
def test_build_errors_are_paddles(call, error, message):
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [2], "float32")
        with pytest.raises(error, match=message):
            call(x)
