"""A LeNet-style CNN trained on MNIST with pyfluid's static graph, written as Paddle code:
conv2d -> batch_norm(relu) -> max_pool2d, twice, then two fc layers.

    python examples/lenet_mnist.py [--epochs 5] [--train-samples 60000] [--batch-size 64]

Five epochs (4685 steps) reach 99% test accuracy in about 80 s on the 2-core development
machine.

MNIST comes from ``pyfluid.dataset.mnist`` (downloaded into its cache on first use).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import pyfluid as paddle
import pyfluid.nn.functional as F


def build_lenet(image, label):
    """Logits [N, 10] and the mean cross-entropy loss of a LeNet on [N, 1, 28, 28] images."""
    conv1 = paddle.static.nn.conv2d(image, num_filters=6, filter_size=5, padding=2)
    pool1 = F.max_pool2d(paddle.static.nn.batch_norm(conv1, act="relu"), kernel_size=2, stride=2)
    conv2 = paddle.static.nn.conv2d(pool1, num_filters=16, filter_size=5)
    pool2 = F.max_pool2d(paddle.static.nn.batch_norm(conv2, act="relu"), kernel_size=2, stride=2)
    hidden = paddle.static.nn.fc(paddle.flatten(pool2, start_axis=1), 120, activation="relu")
    logits = paddle.static.nn.fc(hidden, 10)
    return logits, F.cross_entropy(logits, label)


def train_lenet(train_images: np.ndarray, train_labels: np.ndarray, test_images: np.ndarray,
                test_labels: np.ndarray, epochs: int = 1, batch_size: int = 64,
                learning_rate: float = 0.003, seed: int = 1, log_every: int = 0) -> dict:
    """Train on float32 [N, 1, 28, 28] images and int64 labels (Adam, the learning rate
    cosine-annealed to 0 over the run); return the per-step losses and the test accuracy of
    the inference clone (batch_norm on its running statistics)."""
    paddle.seed(seed)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        image = paddle.static.data("image", [None, 1, 28, 28], "float32")
        label = paddle.static.data("label", [None, 1], "int64")
        logits, loss = build_lenet(image, label)
        test_program = main.clone(for_test=True)
        steps = epochs * (len(train_labels) // batch_size)
        schedule = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate, T_max=max(steps, 1))
        paddle.optimizer.Adam(learning_rate=schedule).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(seed)
    losses = []
    for epoch in range(epochs):
        order = rng.permutation(len(train_labels))
        for start in range(0, len(order) - batch_size + 1, batch_size):
            batch = order[start:start + batch_size]
            (value,) = exe.run(main, feed={"image": train_images[batch],
                                           "label": train_labels[batch].reshape(-1, 1)},
                               fetch_list=[loss])
            losses.append(float(value))
            schedule.step()
            if log_every and len(losses) % log_every == 0:
                print(f"epoch {epoch} step {len(losses)}: loss {np.mean(losses[-log_every:]):.4f}")
    predictions = []
    for start in range(0, len(test_labels), 500):
        feed = {"image": test_images[start:start + 500],
                "label": test_labels[start:start + 500].reshape(-1, 1)}
        (out,) = exe.run(test_program, feed=feed, fetch_list=[logits])
        predictions.append(out.argmax(axis=1))
    accuracy = float((np.concatenate(predictions) == test_labels).mean())
    return {"losses": losses, "test_accuracy": accuracy}


def mnist_arrays(split: str, limit: int | None = None, download: bool = True):
    """MNIST ``split`` as float32 [N, 1, 28, 28] in [-1, 1] and int64 labels [N]."""
    from pyfluid.dataset import mnist
    images, labels = mnist.load(split, download=download)
    images, labels = images[:limit], labels[:limit]
    return mnist.scale_images(images).reshape(-1, 1, 28, 28), labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--train-samples", type=int, default=60000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.003)
    args = parser.parse_args()
    paddle.enable_static()
    train_x, train_y = mnist_arrays("train", args.train_samples)
    test_x, test_y = mnist_arrays("test")
    began = time.time()
    result = train_lenet(train_x, train_y, test_x, test_y, epochs=args.epochs,
                         batch_size=args.batch_size, learning_rate=args.learning_rate,
                         log_every=100)
    print(f"trained {len(result['losses'])} steps in {time.time() - began:.1f} s; "
          f"test accuracy {result['test_accuracy']:.4f}")


if __name__ == "__main__":
    main()
