"""Training parity with Paddle 2.6 (fixture ../shared/fixtures/paddle/train_parity.*): the same
model from the same initial weights on the same batches gives Paddle's per-step losses and final
weights, and the main program has Paddle's op sequence."""
import json
import os

import numpy as np
import pytest

import pyfluid as paddle
from shared_fixtures import PADDLE_FIXTURES, SKIP_REASON

FIXTURE = str(PADDLE_FIXTURES / "train_parity")
pytestmark = pytest.mark.skipif(not os.path.exists(FIXTURE + ".json"),
                                reason=SKIP_REASON)


def _build():
    """x[-1,20] -> fc(30, relu) -> fc(5) -> cross_entropy(softmax) -> mean; SGD lr=0.1."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 20], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        hidden = paddle.static.nn.fc(x, 30, activation="relu")
        logits = paddle.static.nn.fc(hidden, 5)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, y))
        _, params_grads = paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    return main, startup, loss, [p.name for p, _ in params_grads]


def test_losses_and_final_weights_match_paddle():
    with open(FIXTURE + ".json") as f:
        ref = json.load(f)
    data = np.load(FIXTURE + ".data.npz")
    main, startup, loss, params = _build()
    assert [op.type for op in main.global_block().ops] == ref["main_program_op_types"]
    assert len(params) == len(ref["params_in_order"])
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    for i, name in enumerate(params):
        scope.var(name).get_tensor().set(data[f"init_{i}"])
    losses = []
    for xs, ys in zip(data["xs"], data["ys"], strict=True):
        value, = exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])
        losses.append(float(value))
    np.testing.assert_allclose(losses, ref["losses"], rtol=1e-5)
    for i, name in enumerate(params):
        final = np.array(scope.find_var(name).get_tensor())
        np.testing.assert_allclose(final, data[f"final_{i}"], rtol=1e-5, atol=1e-6)
