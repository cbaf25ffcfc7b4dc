"""Training through paddle.jit.to_static: a converted call is one node on the tape (Paddle's
run_program), whose backward runs the program's gradient, so an optimizer trains a converted
Layer with the losses of the same Layer run eagerly."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.static import InputSpec


@pytest.fixture(autouse=True)
def dygraph():
    paddle.disable_static()
    yield


class GatedNet(paddle.nn.Layer):
    """Linear -> BatchNorm -> if on the batch mean -> while the norm is large -> dropout."""

    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 8)
        self.norm = paddle.nn.BatchNorm1D(8)
        self.drop = paddle.nn.Dropout(0.2)
        self.fc2 = paddle.nn.Linear(8, 1)

    def forward(self, x):
        h = paddle.tanh(self.norm(self.fc1(x)))
        if paddle.mean(h) > 0:
            h = h * 2.0
        else:
            h = h - 1.0
        steps = 0
        while paddle.sum(paddle.abs(h)) > 20.0 and steps < 5:
            h = h * 0.5
            steps += 1
        return self.fc2(self.drop(h))


def _train(convert, steps=50):
    paddle.seed(7)
    net = GatedNet()
    if convert:
        net = paddle.jit.to_static(net, input_spec=[InputSpec([None, 4], "float32", "x")])
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x = paddle.to_tensor(rng.standard_normal((16, 4)).astype("float32") * 3)
        y = paddle.to_tensor(rng.standard_normal((16, 1)).astype("float32"))
        loss = paddle.mean((net(x) - y) ** 2)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    return np.array(losses), net


def test_converted_layer_trains_with_the_eager_losses():
    eager, eager_net = _train(False)
    static, static_net = _train(True)
    np.testing.assert_allclose(static, eager, rtol=0, atol=1e-5)
    assert eager[-1] < eager[0]
    for a, b in zip(eager_net.parameters(), static_net.parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(static_net.norm._mean.numpy(), eager_net.norm._mean.numpy(),
                               rtol=1e-5, atol=1e-6)          # running statistics written back
    assert len(static_net.forward._programs) == 1


def test_gradients_reach_inputs_and_outputs_are_on_the_tape():
    @paddle.jit.to_static
    def f(x, w):
        if paddle.sum(x) > 0:
            y = paddle.matmul(x, w)
        else:
            y = paddle.matmul(x * 2.0, w)
        return y, paddle.sum(x)

    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3) - 2, stop_gradient=False)
    w = paddle.to_tensor(np.ones((3, 2), "float32"), stop_gradient=False)
    y, s = f(x, w)
    assert not y.stop_gradient
    gx, gw = paddle.grad([paddle.sum(y * y)], [x, w])
    xe, we = x.numpy(), w.numpy()
    ye = xe @ we
    np.testing.assert_allclose(gx.numpy(), 2 * ye @ we.T, rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), xe.T @ (2 * ye), rtol=1e-6)
    with paddle.no_grad():
        y, _ = f(x, w)
    assert y.stop_gradient


def test_backward_twice_needs_retain_graph():
    layer = paddle.jit.to_static(paddle.nn.Linear(2, 2))
    loss = paddle.sum(layer(paddle.ones([1, 2])))
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(layer.bias.grad.numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="a second time"):
        loss.backward()
