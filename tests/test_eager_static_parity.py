"""One set of kernels and grad rules: the same MLP trained eagerly (tape + optimizer.step)
and statically (append_backward + Executor) from the same weights on the same batches gives
the same losses and the same final weights."""
import numpy as np
import pytest

import pyfluid as paddle

STEPS, BATCH = 6, 16


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(10, 32)
        self.fc2 = paddle.nn.Linear(32, 16)
        self.fc3 = paddle.nn.Linear(16, 4)

    def forward(self, x):
        relu = paddle.nn.functional.relu
        return self.fc3(paddle.tanh(self.fc2(relu(self.fc1(x)))))


def _batches():
    rng = np.random.default_rng(3)
    return [(rng.normal(size=(BATCH, 10)).astype("float32"),
             rng.integers(0, 4, size=(BATCH, 1)).astype("int64")) for _ in range(STEPS)]


OPTIMIZERS = {
    "sgd": lambda params: paddle.optimizer.SGD(learning_rate=0.1, parameters=params),
    "momentum": lambda params: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9,
                                                         parameters=params),
    "adam": lambda params: paddle.optimizer.Adam(learning_rate=0.01, parameters=params),
}


def _train_eager(make_optimizer, initial: list, batches) -> tuple[list, list]:
    paddle.disable_static()
    model = MLP()
    for param, value in zip(model.parameters(), initial):
        param._array = value.copy()
    optimizer = make_optimizer(model.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()
    losses = []
    for x, y in batches:
        loss = loss_fn(model(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        losses.append(loss.item())
    return losses, [p.numpy() for p in model.parameters()]


def _train_static(make_optimizer, initial: list, batches) -> tuple[list, list]:
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 10], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        model = MLP()
        loss = paddle.nn.CrossEntropyLoss()(model(x), y)
        make_optimizer(None).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    for param, value in zip(model.parameters(), initial):
        scope.var(param.name).get_tensor().set(value)
    losses = []
    for xb, yb in batches:
        (value,) = exe.run(main, feed={"x": xb, "y": yb}, fetch_list=[loss])
        losses.append(float(np.asarray(value).reshape(())))
    return losses, [np.array(scope.find_var(p.name).get_tensor()) for p in model.parameters()]


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_eager_and_static_training_agree(optimizer):
    paddle.disable_static()
    initial = [p.numpy() for p in MLP().parameters()]
    batches = _batches()
    eager_losses, eager_weights = _train_eager(OPTIMIZERS[optimizer], initial, batches)
    static_losses, static_weights = _train_static(OPTIMIZERS[optimizer], initial, batches)
    np.testing.assert_allclose(eager_losses, static_losses, rtol=0, atol=1e-6)
    assert eager_losses[-1] < eager_losses[0]
    for eager_w, static_w in zip(eager_weights, static_weights):
        np.testing.assert_allclose(eager_w, static_w, rtol=0, atol=1e-6)
