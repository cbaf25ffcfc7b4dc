"""examples/lenet_mnist.py: a LeNet (conv2d, batch_norm, pool2d) trains on MNIST — or, where the
MNIST cache is absent, on generated seven-segment digits — to accuracy far above chance."""
import importlib.util
import os

import numpy as np
import pytest

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "lenet_mnist.py")

# seven-segment strokes as (row0, row1, col0, col1) boxes of a 28x28 image
_STROKES = {"a": (4, 7, 8, 20), "b": (4, 15, 17, 20), "c": (13, 24, 17, 20), "d": (21, 24, 8, 20),
            "e": (13, 24, 8, 11), "f": (4, 15, 8, 11), "g": (12, 15, 8, 20)}
_DIGITS = ["abcdef", "bc", "abged", "abgcd", "fgbc", "afgcd", "afgedc", "abc", "abcdefg", "abcdfg"]


def synthetic_digits(n: int, rng: np.random.Generator):
    """Digit-like float32 [n, 1, 28, 28] images in [-1, 1] (shifted, noisy) and int64 labels."""
    labels = rng.integers(0, 10, size=n)
    images = np.zeros((n, 28, 28), dtype=np.float32)
    for i, label in enumerate(labels):
        for stroke in _DIGITS[label]:
            r0, r1, c0, c1 = _STROKES[stroke]
            images[i, r0:r1, c0:c1] = 1.0
        images[i] = np.roll(images[i], tuple(rng.integers(-2, 3, size=2)), axis=(0, 1))
    images += rng.normal(0, 0.2, size=images.shape).astype(np.float32)
    return (np.clip(images, 0, 1) * 2 - 1).reshape(n, 1, 28, 28), labels.astype(np.int64)


@pytest.fixture(scope="module")
def lenet():
    spec = importlib.util.spec_from_file_location("lenet_mnist", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _data(lenet):
    try:
        train = lenet.mnist_arrays("train", 1920, download=False)
        test = lenet.mnist_arrays("test", 1000, download=False)
    except FileNotFoundError:
        rng = np.random.default_rng(3)
        train, test = synthetic_digits(1920, rng), synthetic_digits(1000, rng)
    return train, test


def test_lenet_trains_far_above_chance(lenet):
    (train_x, train_y), (test_x, test_y) = _data(lenet)
    result = lenet.train_lenet(train_x, train_y, test_x, test_y, epochs=1, batch_size=64)
    losses = result["losses"]
    assert len(losses) == 30
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])
    assert result["test_accuracy"] > 0.7, result["test_accuracy"]


def test_synthetic_digits_are_learnable_classes():
    images, labels = synthetic_digits(20, np.random.default_rng(0))
    assert images.shape == (20, 1, 28, 28) and images.dtype == np.float32
    assert images.min() >= -1 and images.max() <= 1 and set(labels) <= set(range(10))
