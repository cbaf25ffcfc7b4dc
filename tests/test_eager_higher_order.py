"""paddle.grad(create_graph=True): higher-order eager gradients through the registry's grad
ops and their grad makers (ops/double_grad.py), Paddle's CG scenarios (spec §9.3) done
eagerly with parity against the static ``gradients``, PyLayer double backward (spec §8)."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.autograd import PyLayer, once_differentiable


def _static(build, feed: dict) -> list:
    """Run ``build(vars, gradients)`` as a static program fed with ``feed``."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        inputs = {name: paddle.static.data(name, list(v.shape), str(v.dtype))
                  for name, v in feed.items()}
        for var in inputs.values():
            var.stop_gradient = False
        fetch = build(inputs, paddle.static.gradients)
    exe = paddle.static.Executor(paddle.CPUPlace())
    return exe.run(main, feed=feed, fetch_list=fetch)


def _eager(build, feed: dict) -> list:
    """Run the same ``build`` eagerly, ``gradients`` being paddle.grad(create_graph=True)."""
    paddle.disable_static()
    inputs = {name: paddle.to_tensor(v, stop_gradient=False) for name, v in feed.items()}

    def gradients(targets, sources, target_gradients=None):
        return paddle.grad(targets, sources, target_gradients, create_graph=True)
    return [t.numpy() for t in build(inputs, gradients)]


def _cg2(v, gradients):
    x = v["x"]
    g1, = gradients(x * x, x)
    g2, = gradients((x - g1) * (x - g1), x)
    return [g1, g2]


def _cg3(v, gradients):
    x = v["x"]
    y = x * x
    dx1, = gradients(y, x)
    dx2, = gradients(dx1 * dx1 + y * y, x)
    return [dx1, dx2]


def _cg5(v, gradients):
    x, grad_y = v["x"], v["grad_y"]
    grad_x, = gradients(x * x, x, grad_y)
    jvp, = gradients(grad_x, grad_y, v["v"])
    return [grad_x, jvp]


def _cg6(v, gradients):
    x, grad_y = v["x"], v["grad_y"]
    y = x * x
    grad_x, = gradients(y, x, grad_y)
    grad_x2, = gradients(y + x, x, grad_y)
    jvp, = gradients([grad_x, grad_x2], grad_y, [v["v"], v["v"]])
    return [jvp]


def _penalty(v, gradients):
    """A gradient penalty through matmul, relu, square, mean and sum."""
    x, w = v["x"], v["w"]
    h = paddle.nn.functional.relu(paddle.matmul(x, w))
    gx, gw = gradients(paddle.mean(paddle.square(h)) + paddle.sum(h), [x, w])
    return gradients(paddle.sum(gx * gx) + paddle.mean(gw), [x, w])


_JVP_FEED = {"x": np.ones((2, 2), "float32"), "grad_y": np.zeros((2, 2), "float32"),
             "v": np.ones((2, 2), "float32")}


@pytest.mark.parametrize("build, feed, expected", [
    (_cg2, {"x": np.array([3.0], "float32")}, [[6.0], [6.0]]),
    (_cg3, {"x": np.array([1.0], "float32")}, [[2.0], [12.0]]),
    (_cg5, _JVP_FEED, [np.zeros((2, 2)), np.full((2, 2), 2.0)]),
    (_cg6, _JVP_FEED, [np.full((2, 2), 5.0)]),
], ids=["CG-2", "CG-3", "CG-5", "CG-6"])
def test_calc_gradient_scenarios_eagerly_match_static(build, feed, expected):
    eager = _eager(build, feed)
    static = _static(build, feed)
    for got_eager, got_static, want in zip(eager, static, expected):
        np.testing.assert_array_equal(got_eager, want)
        np.testing.assert_array_equal(got_eager, got_static)


def _penalty_numpy(x, w):
    pre = x @ w
    d_pre = (2 * np.maximum(pre, 0) / pre.size + 1) * (pre > 0)
    gx, gw = d_pre @ w.T, x.T @ d_pre
    return (gx * gx).sum() + gw.mean()


def test_gradient_penalty_matches_static_and_central_differences():
    rng = np.random.default_rng(7)
    feed = {"x": rng.normal(size=(3, 4)), "w": rng.normal(size=(4, 2))}
    eager = _eager(_penalty, feed)
    static = _static(_penalty, feed)
    for got_eager, got_static in zip(eager, static):
        np.testing.assert_allclose(got_eager, got_static, rtol=1e-12, atol=1e-12)
    for name, got in zip(("x", "w"), eager):
        numeric = np.zeros_like(feed[name])
        for i in np.ndindex(numeric.shape):
            step = np.zeros_like(numeric)
            step[i] = 1e-6
            plus, minus = dict(feed), dict(feed)
            plus[name], minus[name] = feed[name] + step, feed[name] - step
            numeric[i] = (_penalty_numpy(**plus) - _penalty_numpy(**minus)) / 2e-6
        np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-7)


@pytest.fixture
def dygraph():
    paddle.disable_static()


def test_x_times_x_differentiated_three_times(dygraph):
    x = paddle.to_tensor([2.0], stop_gradient=False)
    g1, = paddle.grad(x * x * x, x, create_graph=True)
    g2, = paddle.grad(g1, x, create_graph=True)
    g3, = paddle.grad(g2, x)
    assert (g1.item(), g2.item(), g3.item()) == (12.0, 12.0, 6.0)
    assert not g1.stop_gradient and not g2.stop_gradient and g3.stop_gradient


def test_double_grad_then_backward_accumulates_into_the_leaf(dygraph):
    """Paddle's test_imperative_double_grad: relu, +1, square, mean; then backward of a loss
    built from the gradient itself."""
    xv = np.random.default_rng(3).uniform(-1, 1, (3, 4)).astype("float32")
    x = paddle.to_tensor(xv, stop_gradient=False)
    z = paddle.nn.functional.relu(x) + 1
    dx, = paddle.grad([paddle.mean(z * z)], [x], create_graph=True)
    n = xv.size
    want_dx = 2 * (np.maximum(xv, 0) + 1) * (xv > 0) / n
    np.testing.assert_allclose(dx.numpy(), want_dx, rtol=1e-6)
    assert x.grad is None                         # paddle.grad never accumulates
    paddle.mean(dx * dx + x * x).backward()
    want = (2 * want_dx * (2 * (xv > 0) / n) + 2 * xv) / n
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-9)


def test_create_graph_retains_the_graph_and_plain_grad_does_not_record(dygraph):
    x = paddle.to_tensor([3.0], stop_gradient=False)
    y = x * x
    plain, = paddle.grad(y, x, retain_graph=True)
    assert plain.stop_gradient and plain.item() == 6.0
    g, = paddle.grad(y, x, create_graph=True)
    again, = paddle.grad(y, x)          # create_graph kept the graph (retain_graph default)
    assert again.item() == 6.0
    g.backward()                        # d(2x)/dx accumulates into x.grad
    assert x.grad.item() == 2.0


def test_grad_maker_ops_record_their_specs(dygraph):
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    a, b, _ = paddle.split(x, 3)        # split's grad maker: concat of the part gradients
    g, = paddle.grad(a * a * 3 + b * b, x, create_graph=True)
    h, = paddle.grad(paddle.sum(g), x)
    assert g.numpy().tolist() == [6.0, 4.0, 0.0] and h.numpy().tolist() == [6.0, 2.0, 0.0]


def test_grad_op_without_a_rule_names_it(dygraph):
    x = paddle.to_tensor([0.5, 1.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match=r"\(NotFound\) The Op tanh_grad doesn't have any "
                                           r"grad op\. If you don't intend calculating higher "
                                           r"order derivatives, please set `create_graph` to "
                                           r"False\."):
        paddle.grad(paddle.tanh(x), x, create_graph=True)
    g, = paddle.grad(paddle.tanh(x), x)               # first order is unaffected
    np.testing.assert_allclose(g.numpy(), 1 - np.tanh(x.numpy()) ** 2, rtol=1e-6)


def test_grad_op_without_a_rule_is_fine_when_nothing_needs_its_gradient(dygraph):
    x = paddle.to_tensor([0.5, 1.0], stop_gradient=False)
    y = paddle.tanh(x.detach()) * x                    # tanh_grad is never on the path
    g, = paddle.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), np.tanh([0.5, 1.0]), rtol=1e-6)


class Cube(PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensor()
        assert paddle.is_grad_enabled() == ctx.expect_recording
        return dy * 3 * x * x


def test_pylayer_backward_is_recorded_under_create_graph(dygraph):
    x = paddle.to_tensor([2.0], stop_gradient=False)
    y = Cube.apply(x)
    y._node.ctx.expect_recording = True
    g1, = paddle.grad(y, x, create_graph=True)
    g2, = paddle.grad(g1, x)
    assert (g1.item(), g2.item()) == (12.0, 12.0)
    z = Cube.apply(x)
    z._node.ctx.expect_recording = False          # plain backward: spec §8, no recording
    z.backward()
    assert x.grad.item() == 12.0


def test_once_differentiable_pylayer_gives_a_constant_gradient(dygraph):
    class Frozen(Cube):
        @staticmethod
        @once_differentiable
        def backward(ctx, dy):
            (x,) = ctx.saved_tensor()
            return dy * 3 * x * x

    x = paddle.to_tensor([2.0], stop_gradient=False)
    g1, = paddle.grad(Frozen.apply(x), x, create_graph=True)
    assert g1.item() == 12.0 and g1.stop_gradient
    assert paddle.grad(g1 * x, x, allow_unused=True)[0].item() == 12.0


def test_pylayer_with_backward_inside_backward_under_create_graph(dygraph):
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.inputs = x.detach()
            return x.mean()

        @staticmethod
        def backward(ctx, dy):
            temp = ctx.inputs
            temp.stop_gradient = False
            paddle.tanh(temp).backward()           # a whole backward inside backward
            return paddle.to_tensor(temp.grad) * dy

    data = paddle.ones([2, 3], dtype="float64") / 2
    data.stop_gradient = False
    g, = paddle.grad(Layer.apply(paddle.square(data)), data, create_graph=True)
    expected = (1 - np.tanh(0.25) ** 2) * 2 * 0.5
    np.testing.assert_allclose(g.numpy(), np.full((2, 3), expected), rtol=1e-12)
    h, = paddle.grad(paddle.sum(g), data)          # through square_grad's maker
    np.testing.assert_allclose(h.numpy(), np.full((2, 3), 2 * (1 - np.tanh(0.25) ** 2)),
                               rtol=1e-12)
