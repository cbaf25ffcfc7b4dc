"""Gradients through control flow (float64, against central differences of the whole
program): a 5-step while, nested conds, switch_case, the cases where Paddle 2.6.2 returns 0,
parameters used only in a branch or a loop body, a loop variable the body overwrites (Paddle
2.6.2 counts its gradient once per step), no_grad_set and stop_gradient inside blocks,
``gradients()``, zero-step loops, and training through a data-dependent branch."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
from control_flow_ref import numeric_grad
from pyfluid import static

nn = static.nn
RNG = np.random.default_rng(7)


def param(name, shape):
    return static.create_parameter(shape, "float64", name=name,
                                   default_initializer=paddle.nn.initializer.Constant(0.5))


def check(build, feeds, wrt, params=None, atol=1e-7):
    """Build ``loss = build()`` with append_backward, run it on each feed, and compare the
    gradient of every name in ``wrt`` (fed or parameter) with central differences. The run
    has the debug checks on: every gradient has the shape and dtype its variable declares."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        loss = build()
        static.append_backward(loss)
    main.verify()
    strategy = static.BuildStrategy()
    strategy.debug_checks = True
    checked = static.CompiledProgram(main, build_strategy=strategy)
    scope, exe = static.Scope(), static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        for name, value in (params or {}).items():
            scope.find_var(name).get_tensor().set(np.asarray(value, "float64"), None)
        for feed in feeds:
            got = exe.run(checked, feed=feed, fetch_list=[n + "@GRAD" for n in wrt], scope=scope)
            for name, value in zip(wrt, got):
                expected = numeric_grad(exe, main, loss, feed, name, scope)
                np.testing.assert_allclose(value, expected, atol=atol, rtol=1e-6,
                                           err_msg=f"d loss / d {name} for feed {feed}")
    return main


def data(name, shape):
    x = static.data(name, shape, "float64")
    x.stop_gradient = False
    return x


def test_a_five_step_while_loop():
    def build():
        x, h0 = data("x", [1, 3]), data("h0", [1, 3])
        w, b = param("w", [3, 3]), param("b", [3])
        i, n = paddle.zeros([1], "int64"), paddle.full([1], 5, "int64")
        _, h = nn.while_loop(lambda i, h: i < n,
                             lambda i, h: [i + 1, paddle.tanh(paddle.matmul(h, w) + x + b)],
                             [i, h0])
        return paddle.sum(h * h)
    check(build, [{"x": RNG.uniform(-1, 1, (1, 3)), "h0": RNG.uniform(-1, 1, (1, 3))}],
          ["x", "h0", "w", "b"], {"w": RNG.uniform(-0.5, 0.5, (3, 3))})


def test_a_loop_variable_the_body_overwrites_passes_no_gradient_to_earlier_steps():
    # Paddle 2.6.2 carries `last`'s incoming gradient on to every earlier step (here: 3x)
    def build():
        x, w = data("x", [1, 3]), param("w", [3])
        i, n = paddle.zeros([1], "int64"), paddle.full([1], 3, "int64")
        last = paddle.zeros([1, 3], "float64")
        last.stop_gradient = False
        _, h, last = nn.while_loop(lambda i, h, last: i < n,
                                   lambda i, h, last: [i + 1, h + 1.0, h * w], [i, x, last])
        return paddle.sum(h) + paddle.sum(last * last)
    check(build, [{"x": RNG.uniform(-1, 1, (1, 3))}], ["x", "w"])


def test_nested_conds_take_every_path():
    def build():
        x = data("x", [1, 3])
        w1, w2 = param("w1", [3, 2]), param("w2", [3, 2])

        def outer_true():
            h = paddle.matmul(x, w1)
            return nn.cond(paddle.mean(h) > 0, lambda: h * h, lambda: h * 3.0)
        return paddle.sum(nn.cond(paddle.sum(x) > 0, outer_true, lambda: paddle.matmul(x, w2)))
    feeds = [{"x": np.array([[1.0, 2.0, 0.5]])}, {"x": np.array([[1.0, -2.0, 2.0]])},
             {"x": np.array([[-1.0, 0.5, -2.0]])}]
    check(build, feeds, ["x", "w1", "w2"], {"w1": RNG.uniform(-1, 1, (3, 2)),
                                             "w2": RNG.uniform(-1, 1, (3, 2))})


def test_switch_case_with_a_default():
    def build():
        x = data("x", [1, 3])
        idx = static.data("idx", [1], "int32")
        w1, w2 = param("w1", [3, 2]), param("w2", [3, 2])
        out = nn.switch_case(idx, {0: lambda: paddle.matmul(x, w1),
                                   2: lambda: paddle.matmul(x, w2) * 2.0},
                             default=lambda: paddle.matmul(x * x, w1 + w2))
        return paddle.sum(out * out)
    x = np.array([[1.0, 2.0, 0.5]])
    feeds = [{"x": x, "idx": np.array([k], "int32")} for k in (0, 2, 1, 9)]
    check(build, feeds, ["x", "w1", "w2"], {"w1": RNG.uniform(-1, 1, (3, 2))})


def test_a_loop_in_a_branch_over_the_fed_variable():
    """Paddle 2.6.2 returns 0 for d loss / d x here (docs/interop.md)."""
    def build():
        x = data("x", [1, 2])
        w = param("w", [2, 2])

        def looping():
            i = paddle.zeros([1], "int64")
            _, h = nn.while_loop(lambda i, h: i < 2, lambda i, h: [i + 1, paddle.matmul(h, w)],
                                 [i, x])
            return h
        out = nn.cond(paddle.sum(x) < 0, looping, lambda: x * x * 2.0)
        return paddle.sum(out * out)
    check(build, [{"x": np.array([[0.5, -1.0]])}, {"x": np.array([[1.0, 1.0]])}], ["x", "w"],
          {"w": np.array([[0.3, -0.2], [0.1, 0.4]])})


def test_a_branch_in_a_loop_with_a_parameter_in_one_branch():
    """Paddle 2.6.2 returns 0 for x and the last step's gradient only for w here."""
    def build():
        x = data("x", [1, 2])
        w = param("w", [2, 2])

        def body(i, h):
            h2 = nn.cond((i % 2 == 0).squeeze(), lambda: paddle.matmul(h, w), lambda: h * 0.5)
            return [i + 1, h2]
        _, h = nn.while_loop(lambda i, h: i < 3, body, [paddle.zeros([1], "int64"), x])
        return paddle.sum(h * h)
    check(build, [{"x": np.array([[0.5, -1.0]])}], ["x", "w"],
          {"w": np.array([[0.3, -0.2], [0.1, 0.4]])})


def test_loop_variables_arrays_and_values_read_after_the_loop():
    def build():
        x = data("x", [1, 2])
        w = param("w", [2, 2])
        array = paddle.tensor.create_array("float64")

        def body(i, h, array):
            h = paddle.tanh(paddle.matmul(h, w))
            paddle.tensor.array_write(h, i, array=array)
            return [i + 1, h, array]
        _, h, array = nn.while_loop(lambda i, h, a: i < 3, body,
                                    [paddle.zeros([1], "int64"), x, array])
        stacked, _ = paddle.tensor.tensor_array_to_tensor(array, axis=0, use_stack=True)
        return paddle.sum(stacked * stacked) + paddle.sum(h) + paddle.sum(x * x)
    check(build, [{"x": np.array([[0.5, -1.0]])}], ["x", "w"],
          {"w": np.array([[0.3, -0.2], [0.1, 0.4]])})


def test_zero_steps_give_zero_gradients_to_read_only_inputs():
    def build():
        x = data("x", [1, 2])
        w = param("w", [2, 2])
        n = static.data("n", [1], "int64")
        _, h = nn.while_loop(lambda i, h: i < n, lambda i, h: [i + 1, paddle.matmul(h, w)],
                             [paddle.zeros([1], "int64"), x])
        return paddle.sum(h * 3.0)
    main = check(build, [{"x": np.array([[0.5, -1.0]]), "n": np.array([0])},
                         {"x": np.array([[0.5, -1.0]]), "n": np.array([2])}], ["x", "w"])
    assert any(op.type == "while_grad" for op in main.global_block().ops)


def test_no_grad_set_and_stop_gradient_inside_a_branch():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x, y = data("x", [1, 3]), static.data("y", [1, 3], "float64")
        w1, w2 = param("w1", [3, 2]), param("w2", [3, 2])
        out = nn.cond(paddle.sum(x) > 0, lambda: paddle.matmul(x * y, w1) + paddle.matmul(x, w2),
                      lambda: paddle.matmul(y, w2))
        pairs = static.append_backward(paddle.sum(out * out), no_grad_set={"w1"})
    assert [p.name for p, _ in pairs] == ["w2"]
    grad_op = next(op for op in main.global_block().ops if op.type == "conditional_block_grad"
                   and "w1" in op.input("Input"))
    grads = dict(zip(grad_op.input("Input"), grad_op.output("Input@GRAD")))
    assert grads["w1"] == grads["y"] == "@EMPTY@"
    assert all("y@GRAD" not in b.vars for b in main.blocks)


def test_gradients_api_through_a_branch():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = data("x", [2])
        out = nn.cond(paddle.sum(x) > 0, lambda: paddle.exp(x), lambda: x * x)
        dx, = static.gradients([paddle.sum(out)], [x])
    exe = static.Executor()
    for value in (np.array([1.0, 0.5]), np.array([-1.0, 0.5])):
        got = exe.run(main, feed={"x": value}, fetch_list=[dx])[0]
        expected = np.exp(value) if value.sum() > 0 else 2 * value
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_training_through_a_changing_branch_matches_where():
    """SGD through cond (the branch changes from batch to batch) gives the losses of the same
    network computing both branches and selecting with where."""
    def net(use_cond):
        main, startup = static.Program(), static.Program()
        main.random_seed = startup.random_seed = 5
        with static.program_guard(main, startup):
            x = static.data("x", [4, 3], "float32")
            y = static.data("y", [4, 1], "float32")
            h = static.nn.fc(x, 4, activation="tanh")
            pred = paddle.mean(h) > 0

            def a():
                return static.nn.fc(h, 1, name="branch_a")

            def b():
                return static.nn.fc(h * 2.0, 1, name="branch_b")
            out = nn.cond(pred, a, b) if use_cond else paddle.where(pred, a(), b())
            loss = paddle.mean((out - y) * (out - y))
            paddle.optimizer.SGD(0.1).minimize(loss)
        return main, startup, loss, pred
    rng = np.random.default_rng(3)
    batches = [(rng.normal(s, 1, (4, 3)).astype("float32"), rng.normal(0, 1, (4, 1))
                .astype("float32")) for s in (2, -2, 2, -2, 1, -1, 2, -2)]
    losses, taken = [], []
    for use_cond in (True, False):
        main, startup, loss, pred = net(use_cond)
        with static.scope_guard(static.Scope()):
            exe = static.Executor()
            exe.run(startup)
            steps = [exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss, pred])
                     for x, y in batches]
        losses.append([value.item() for value, _ in steps])
        taken.append([branch.item() for _, branch in steps])
    assert taken[0] == taken[1] and len(set(taken[0])) == 2     # both branches train
    np.testing.assert_allclose(losses[0], losses[1], atol=1e-6)


def test_is_test_loops_cannot_be_differentiated():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = data("x", [2])
        _, h = nn.while_loop(lambda i, h: i < 2, lambda i, h: [i + 1, h * 2],
                             [paddle.zeros([1], "int64"), x], is_test=True)
        static.append_backward(paddle.sum(h * param("w", [2])))
    exe = static.Executor()
    exe.run(startup)
    with pytest.raises(Exception, match="WhileGradOp is only callable when is_test is false"):
        exe.run(main, feed={"x": np.ones(2)}, fetch_list=["x@GRAD"])


def test_a_cond_in_a_while_in_a_cond():
    def build():
        x = data("x", [1, 2])
        w = param("w", [2, 2])

        def looping():
            def body(i, h):
                h2 = nn.cond(paddle.sum(h) > 0, lambda: paddle.tanh(paddle.matmul(h, w)),
                             lambda: h * 0.5 + 0.1)
                return [i + 1, h2]
            return nn.while_loop(lambda i, h: i < 3, body, [paddle.zeros([1], "int64"), x])[1]
        out = nn.cond(paddle.mean(x) > -0.5, looping, lambda: x * w[0])
        return paddle.sum(out * out)
    feeds = [{"x": np.array([[0.5, -1.0]])}, {"x": np.array([[0.9, 0.3]])},
             {"x": np.array([[-2.0, -1.0]])}]
    check(build, feeds, ["x", "w"], {"w": np.array([[0.3, -0.2], [0.1, 0.4]])})


def test_no_second_order_gradient_through_control_flow_as_in_paddle():
    with static.program_guard(static.Program(), static.Program()):
        x = data("x", [2])
        y = nn.cond(paddle.sum(x) > 0, lambda: x * x * x, lambda: x * 2.0)
        dx, = static.gradients([paddle.sum(y)], [x])
        with pytest.raises(RuntimeError, match=r"\(NotFound\) Neither operator "
                                               r"conditional_block_grad's GradOpMaker"):
            static.gradients([paddle.sum(dx)], [x])


def _array_grads(build) -> list:
    """x0..x2@GRAD of ``loss = build(xs)`` on ones, after append_backward."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xs = [static.data(f"x{k}", [2], "float32") for k in range(3)]
        for x in xs:
            x.stop_gradient = False
        static.append_backward(build(xs))
    feed = {f"x{k}": np.ones(2, "float32") for k in range(3)}
    return static.Executor().run(main, feed=feed, fetch_list=[f"x{k}@GRAD" for k in range(3)])


@pytest.mark.parametrize("index_stops_gradient", [True, False])
def test_an_index_increment_moved_is_moved_back_for_the_array_grads(index_stops_gradient):
    """Paddle's grad of an in-place increment is increment(-step): each array grad op reads
    the index its forward op read. (Paddle 2.6.2 does it only when the index has
    stop_gradient=False; with the default True it gives 6 for each element here.)"""
    def build(xs):
        i = paddle.zeros([1], "int64")
        i.stop_gradient = index_stops_gradient
        array = paddle.tensor.array_write(xs[0], i)
        for x in xs[1:]:
            paddle.increment(i)
            paddle.tensor.array_write(x, i, array=array)
        j = paddle.zeros([1], "int64")
        reads = [paddle.tensor.array_read(array, j)]
        for _ in xs[1:]:
            paddle.increment(j)
            reads.append(paddle.tensor.array_read(array, j))
        return paddle.sum(reads[0] + reads[1] * 2.0 + reads[2] * 3.0)
    grads = _array_grads(build)
    np.testing.assert_array_equal(np.stack(grads), [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])


def test_a_loop_index_incremented_in_place_is_stepped_back_by_while_grad():
    """A fluid-style While reading an array at its in-place counter: Paddle's 1, 2, 3."""
    def build(xs):
        array = paddle.tensor.create_array("float32")
        for k, x in enumerate(xs):
            paddle.tensor.array_write(x, paddle.full([1], k, "int64"), array=array)
        i, n = paddle.zeros([1], "int64"), paddle.full([1], 3, "int64")
        acc = paddle.zeros([2], "float32")
        acc.stop_gradient = False
        cond = paddle.less_than(i, n)
        loop = nn.control_flow.While(cond)
        with loop.block():
            weight = paddle.cast(i, "float32") + 1.0
            paddle.assign(acc + paddle.tensor.array_read(array, i) * weight, acc)
            paddle.increment(i)
            paddle.assign(paddle.less_than(i, n), cond)
        return paddle.sum(acc)
    grads = _array_grads(build)
    np.testing.assert_array_equal(np.stack(grads), [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
