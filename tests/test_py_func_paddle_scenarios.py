"""Paddle's own py_func scenarios PF-1..PF-4 (spec §9.1, test_py_func_op.py), written anew.

PF-1: an MLP of 4 fc(200) layers trained with SGD(1e-3) for 2 epochs of 20 batches; variant A
uses built-in tanh and cross entropy, variant B py_func tanh layers and a py_func cross
entropy. From the same initial weights on the same batches, the per-step losses agree.
Variant B also holds PF-2 (a zero-input py_func added to the loss), PF-3 (a zero-output
py_func reading the loss) and PF-4 (two-in/two-out py_funcs given tuples, then lists)."""
from __future__ import annotations

import numpy as np

import pyfluid
from pyfluid.framework import Program, program_guard, unique_name
from pyfluid.static import py_func

BATCHES, BATCH_SIZE, EPOCHS = 20, 10, 2
SEEN_LOSSES: list = []


def tanh(x):
    return np.tanh(x)


def tanh_grad(y, dy):
    return np.array(dy) * (1 - np.square(np.array(y)))


def cross_entropy(probs, labels):
    probs, labels = np.array(probs), np.array(labels)
    picked = np.take_along_axis(probs, labels.reshape(-1, 1), axis=1)
    return -np.log(picked)


def cross_entropy_grad(probs, labels, dloss):
    probs, labels = np.array(probs), np.array(labels).reshape(-1, 1)
    dprobs = np.zeros_like(probs)
    picked = np.take_along_axis(probs, labels, axis=1)
    np.put_along_axis(dprobs, labels, -np.array(dloss) / picked, axis=1)
    return dprobs, None


def zeros_without_input():
    return np.zeros([1], dtype="float32")


def consume(x):
    SEEN_LOSSES.append(np.array(x))


def pass_through(x, y):
    return np.array(x), np.array(y)


def _var(name, shape):
    return pyfluid.static.default_main_program().current_block().create_var(
        name=name, dtype="float32", shape=shape)


def _network(image, label, use_py_func: bool):
    hidden = image
    for idx in range(4):
        hidden = pyfluid.static.nn.fc(hidden, size=200)
        if use_py_func:
            hidden = py_func(tanh, hidden, _var(f"hidden_{idx}", hidden.shape),
                             backward_func=tanh_grad, skip_vars_in_backward_input=hidden)
        else:
            hidden = pyfluid.tanh(hidden)
    prediction = pyfluid.static.nn.fc(hidden, size=10, activation="softmax")
    if not use_py_func:
        loss = pyfluid.nn.functional.cross_entropy(prediction, label, reduction="none",
                                                   use_softmax=False)
        return pyfluid.mean(loss)
    loss = _var("loss", [-1, 1])
    py_func(cross_entropy, [prediction, label], loss, backward_func=cross_entropy_grad,
            skip_vars_in_backward_input=loss)
    dummy = py_func(zeros_without_input, None, _var("dummy", [1]))           # PF-2
    loss = loss + dummy
    py_func(consume, loss, None)                                             # PF-3
    loss_out, dummy_out = _var("loss_out", [-1, 1]), _var("dummy_out", [1])
    outs = (loss_out, dummy_out)
    assert py_func(pass_through, (loss, dummy), outs) is outs               # PF-4, tuples
    outs = [loss_out, dummy_out]
    assert py_func(pass_through, [loss, dummy], outs) is outs               # PF-4, lists
    return pyfluid.mean(loss)


def _train(use_py_func: bool, batches, initial: dict | None) -> tuple[list, dict]:
    main, startup = Program(), Program()
    with unique_name.guard(), program_guard(main, startup):
        image = pyfluid.static.data("image", [-1, 784], "float32")
        label = pyfluid.static.data("label", [-1, 1], "int64")
        loss = _network(image, label, use_py_func)
        pyfluid.optimizer.SGD(learning_rate=1e-3).minimize(loss)
    scope = pyfluid.static.Scope()
    exe = pyfluid.static.Executor(pyfluid.CPUPlace())
    exe.run(startup, scope=scope)
    params = [p.name for p in main.all_parameters()]
    if initial is not None:
        for name in params:
            scope.var(name).get_tensor().set(initial[name])
    weights = {n: np.array(scope.find_var(n).get_tensor()) for n in params}
    losses = [exe.run(main, feed={"image": x, "label": y}, fetch_list=[loss], scope=scope)[0]
              for _ in range(EPOCHS) for x, y in batches]
    return losses, weights


def test_pf1_py_func_network_matches_the_built_in_one_step_by_step():
    rng = np.random.default_rng(1)
    batches = [(rng.random((BATCH_SIZE, 784), dtype=np.float32),
                rng.integers(0, 10, (BATCH_SIZE, 1)).astype("int64")) for _ in range(BATCHES)]
    built_in, weights = _train(False, batches, None)
    with_py_func, _ = _train(True, batches, weights)
    assert len(built_in) == EPOCHS * BATCHES == len(SEEN_LOSSES)      # PF-3 ran every step
    assert SEEN_LOSSES[0].shape == (BATCH_SIZE, 1)
    np.testing.assert_allclose(with_py_func, built_in, rtol=0, atol=1e-6)
    assert built_in[-1] < built_in[0]
