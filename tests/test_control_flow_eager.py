"""Control flow in dynamic mode (plain Python: only the chosen branch runs, a loop runs while
its condition holds, arrays are lists) and through the fluid-era API (``fluid.layers.While``
with ``with loop.block():``, ``fluid.layers.cond``)."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
import pyfluid.fluid as fluid

nn = paddle.static.nn


@pytest.fixture
def dynamic():
    paddle.disable_static()
    yield
    paddle.enable_static()


def t(*values, dtype="float32"):
    return paddle.to_tensor(np.array(values, dtype))


def test_eager_cond_calls_only_the_chosen_branch(dynamic):
    calls = []

    def branch(name, value):
        def fn():
            calls.append(name)
            return value
        return fn
    for pred, expected in ((t(True, dtype="bool"), "true"), (t(0.0), "false"),
                           (t(3, dtype="int64"), "true")):
        calls.clear()
        assert nn.cond(pred, branch("true", 1), branch("false", [2])) == (
            1 if expected == "true" else [2])
        assert calls == [expected]
    assert nn.cond(t(False, dtype="bool"), branch("true", 1)) is None
    assert nn.cond(t(True, dtype="bool"), lambda: 5, 7) == 5      # untaken: never checked
    with pytest.raises(AssertionError, match="The pred in cond must be Variable"):
        nn.cond(True, lambda: 1, lambda: 2)
    with pytest.raises(AssertionError, match="condition input's numel should be 1"):
        nn.cond(t(True, False, dtype="bool"), lambda: 1, lambda: 2)


def test_eager_while_loop_updates_the_loop_tensors_in_place(dynamic):
    i, s = paddle.zeros([1], "int64"), paddle.ones([1], "float32")
    loop_vars = [i, s]
    out = nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s * 2], loop_vars)
    assert out is loop_vars and out[0] is i
    assert (i.numpy().tolist(), s.numpy().tolist()) == ([3], [8.0])
    with pytest.raises(ValueError, match="same arity .* and types as loop_vars"):
        nn.while_loop(lambda i: i < 3, lambda i: [i, i], [paddle.zeros([1], "int64")])


def test_eager_while_loop_and_cond_are_differentiable(dynamic):
    x = t(1.0, -2.0)
    x.stop_gradient = False
    y = nn.cond(x.sum() < 0, lambda: x * x, lambda: x * 3)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, -4.0])
    x = t(2.0, 2.0)
    x.stop_gradient = False
    h = x * 1.0
    nn.while_loop(lambda i, h: i < 3, lambda i, h: [i + 1, h * 2], [paddle.zeros([1], "int64"), h])
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 8.0])


def test_eager_switch_case_case_and_arrays(dynamic):
    fns = {0: lambda: t(10.0), 1: lambda: t(11.0)}
    assert nn.switch_case(t(5, dtype="int64"), fns, default=lambda: t(-1.0)).numpy() == -1.0
    assert nn.switch_case(t(5, dtype="int64"), fns).numpy() == 11.0
    assert nn.case([(t(False, dtype="bool"), lambda: t(1.0))],
                   default=lambda: t(2.0)).numpy() == 2.0
    one, zero = t(1, dtype="int64"), t(0, dtype="int64")
    array = paddle.tensor.array_write(t(1.0), zero)
    paddle.tensor.array_write(t(2.0), one, array=array)
    assert isinstance(array, list) and paddle.tensor.array_length(array) == 2
    assert paddle.tensor.array_read(array, one).numpy() == 2.0
    out, sizes = paddle.tensor.tensor_array_to_tensor(array, axis=0)
    assert out.numpy().tolist() == [1.0, 2.0] and sizes.numpy().tolist() == [1, 1]
    with pytest.raises(AssertionError, match="should not be greater than the length"):
        paddle.tensor.array_write(t(3.0), t(5, dtype="int64"), array=array)


def test_fluid_while_and_cond():
    paddle.enable_static()
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        i = paddle.full([1], 0, "int64")
        n = paddle.full([1], 10, "int64")
        total = paddle.full([1], 0.0, "float32")
        cond = fluid.layers.less_than(i, n)
        loop = fluid.layers.While(cond=cond)
        with loop.block():
            paddle.assign(total + paddle.cast(i, "float32"), output=total)
            fluid.layers.increment(i)
            paddle.assign(fluid.layers.less_than(i, n), output=cond)
        big = fluid.layers.cond(total > 40.0, lambda: total * 2, lambda: total * 0)
    got = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[i, total, big])
    assert [g.item() for g in got] == [10, 45.0, 90.0]
