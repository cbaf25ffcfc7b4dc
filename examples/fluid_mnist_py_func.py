"""The design tutorial's network in the fluid-era API: an MNIST MLP whose hidden ReLU is a
NumPy function hooked in with ``fluid.layers.py_func``.

    python examples/fluid_mnist_py_func.py [--epochs 5] [--batch-size 256] [--lr 0.01]

fc(100) -> py_func ReLU -> fc(10, softmax), cross_entropy on probabilities, SGD, batches from
``paddle.dataset.mnist`` readers; after each epoch the test accuracy of the for-test clone.
"""
from __future__ import annotations

import argparse
from typing import Sequence

import numpy as np

import pyfluid as paddle
import pyfluid.fluid as fluid


def relu(x):
    """Forward of the custom op: NumPy on the input array."""
    return np.maximum(x, 0.0)


def relu_grad(y, dy):
    """Backward: the output y and its gradient dy give the input's gradient."""
    return np.asarray(dy) * (np.asarray(y) > 0)


def build(hidden_size: int = 100):
    """(image, label, loss, accuracy) of the tutorial's network in the current programs."""
    image = fluid.data(name="X", shape=[None, 784], dtype="float32")
    label = fluid.data(name="label", shape=[None, 1], dtype="int64")
    hidden = fluid.layers.fc(image, size=hidden_size)
    activated = fluid.default_main_program().current_block().create_var(
        name="relu", dtype=hidden.dtype, shape=hidden.shape)
    fluid.layers.py_func(func=relu, x=hidden, out=activated, backward_func=relu_grad,
                         skip_vars_in_backward_input=hidden)
    prediction = fluid.layers.fc(activated, size=10, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prediction, label))
    accuracy = fluid.layers.accuracy(prediction, fluid.layers.reshape(label, [-1, 1]))
    return loss, accuracy


def _arrays(batch):
    images = np.array([sample[0] for sample in batch], dtype="float32")
    labels = np.array([[sample[1]] for sample in batch], dtype="int64")
    return {"X": images, "label": labels}


def main(argv: Sequence[str] | None = None, train_reader=None, test_reader=None) -> list[float]:
    """Train; return the test accuracy after each epoch. Readers default to MNIST's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args(argv)
    paddle.enable_static()
    train_program, startup_program = fluid.Program(), fluid.Program()
    with fluid.program_guard(train_program, startup_program):
        loss, accuracy = build()
        test_program = train_program.clone(for_test=True)
        fluid.optimizer.SGD(learning_rate=args.lr).minimize(loss)
    train_reader = paddle.batch(train_reader or paddle.dataset.mnist.train(), args.batch_size)
    test_reader = paddle.batch(test_reader or paddle.dataset.mnist.test(), args.batch_size)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup_program)
    accuracies = []
    for epoch in range(args.epochs):
        for step, batch in enumerate(train_reader()):
            loss_value, acc_value = exe.run(train_program, feed=_arrays(batch),
                                            fetch_list=[loss, accuracy])
            if step % 100 == 0:
                print(f"epoch {epoch} step {step}: loss {float(loss_value):.4f}, "
                      f"accuracy {float(acc_value):.4f}")
        correct = total = 0
        for batch in test_reader():
            feed = _arrays(batch)
            (acc_value,) = exe.run(test_program, feed=feed, fetch_list=[accuracy])
            correct += float(acc_value) * len(batch)
            total += len(batch)
        accuracies.append(correct / total)
        print(f"epoch {epoch}: test accuracy {accuracies[-1]:.4f}")
    return accuracies


if __name__ == "__main__":
    main()
