"""examples/mnist_mlp.py end to end on a small data set: a real-MNIST subset when the cache
holds MNIST, otherwise generated digit-like images."""
import importlib.util
import json
import os

import numpy as np
import pytest

from pyfluid.dataset import idx, mnist

EXAMPLE = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "mnist_mlp.py")

# 5x7 bitmaps of the digits 0-9 (rows top to bottom).
GLYPHS = [
    ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
    ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
]


def generated_digits(count, rng):
    """Digit-like uint8 images [count, 28, 28]: glyphs scaled 3x, jittered, noisy."""
    labels = rng.integers(0, 10, size=count).astype(np.uint8)
    images = np.zeros((count, 28, 28), np.float32)
    for i, label in enumerate(labels):
        glyph = np.array([[int(c) for c in row] for row in GLYPHS[label]], np.float32)
        big = np.kron(glyph, np.ones((3, 3), np.float32))  # 21 x 15
        top, left = 3 + rng.integers(-2, 3), 6 + rng.integers(-3, 4)  # roughly centred
        images[i, top:top + 21, left:left + 15] = big * rng.uniform(0.6, 1.0)
    images += rng.normal(0.0, 0.15, images.shape)
    return (np.clip(images, 0.0, 1.0) * 255).astype(np.uint8), labels


def small_dataset(directory, use_cache, train_count=3000, test_count=1000):
    """Write train/test IDX files into ``directory``: a subset of the cached MNIST when
    ``use_cache`` and the cache holds it, else generated digits."""
    rng = np.random.default_rng(7)
    try:
        if not use_cache:
            raise FileNotFoundError("generated digits asked for")
        train = mnist.load("train", data_dir=mnist.default_cache_dir(), download=False)
        test = mnist.load("test", data_dir=mnist.default_cache_dir(), download=False)
    except FileNotFoundError:
        train, test = generated_digits(train_count, rng), generated_digits(test_count, rng)
    for split, (images, labels), count in (("train", train, train_count),
                                           ("test", test, test_count)):
        chosen = rng.permutation(len(labels))[:count]
        image_stem, label_stem = mnist.SPLIT_FILES[split]
        idx.write_file_atomically(os.path.join(directory, image_stem),
                                  idx.encode_idx(images[chosen]))
        idx.write_file_atomically(os.path.join(directory, label_stem),
                                  idx.encode_idx(labels[chosen].astype(np.uint8)))


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("mnist_mlp_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_data_dir(tmp_path, use_cache):
    directory = tmp_path / "data"
    directory.mkdir()
    small_dataset(str(directory), use_cache)
    return str(directory)


def test_mnist_mlp_trains_saves_reloads_and_plots(example, tmp_path):
    data_dir = make_data_dir(tmp_path, use_cache=True)
    out = tmp_path / "out"
    summary = example.main(["--epochs", "2", "--hidden", "128", "--batch-size", "64", "--lr", "3e-3",
                            "--data-dir", data_dir, "--out", str(out)])
    assert summary["test_accuracy"] > 0.8, summary  # chance is 0.1
    assert summary["reloaded_accuracy"] == summary["test_accuracy"]
    assert os.path.getsize(str(out / "model" / "mnist_mlp.pdmodel")) > 0
    assert os.path.getsize(str(out / "model" / "mnist_mlp.pdiparams")) > 128 * 784 * 4
    with open(str(out / "mnist_mlp_curves.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    with open(str(out / "summary.json")) as f:
        assert json.load(f)["test_accuracy"] == summary["test_accuracy"]


def test_mnist_mlp_with_the_py_func_relu_and_sgd_on_generated_digits(example, tmp_path):
    data_dir = make_data_dir(tmp_path, use_cache=False)
    summary = example.main(["--epochs", "3", "--hidden", "128", "--batch-size", "32",
                            "--optimizer", "sgd", "--py-func-relu",
                            "--data-dir", data_dir, "--out", str(tmp_path / "out")])
    assert summary["test_accuracy"] > 0.8, summary
    assert summary["reloaded_accuracy"] == summary["test_accuracy"]


def test_relu_functions_match_the_tutorial(example):
    x = np.array([[-1.0, 0.0, 2.0]], np.float32)
    y = example.relu(x)
    np.testing.assert_array_equal(y, [[0.0, 0.0, 2.0]])
    np.testing.assert_array_equal(example.relu_grad(y, np.full_like(y, 3.0)), [[0.0, 0.0, 3.0]])


def test_fluid_tutorial_example_learns_generated_digits():
    """examples/fluid_mnist_py_func.py (the tutorial's fluid-API network) on generated digits."""
    path = os.path.join(os.path.dirname(EXAMPLE), "fluid_mnist_py_func.py")
    spec = importlib.util.spec_from_file_location("fluid_mnist_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(11)
    (train_x, train_y), (test_x, test_y) = generated_digits(3000, rng), generated_digits(500, rng)

    def reader(images, labels):
        def samples():
            for image, label in zip(images, labels):
                yield image.reshape(784).astype(np.float32) / 127.5 - 1.0, int(label)
        return samples

    accuracies = module.main(["--epochs", "2", "--batch-size", "64", "--lr", "0.05"],
                             train_reader=reader(train_x, train_y),
                             test_reader=reader(test_x, test_y))
    assert len(accuracies) == 2 and accuracies[-1] > 0.8, accuracies   # chance is 0.1


def test_recurrent_adding_example_learns_with_a_loop_and_a_branch(tmp_path):
    """examples/recurrent_adding.py: a while_loop cell and a cond head, briefly trained."""
    path = os.path.join(os.path.dirname(EXAMPLE), "recurrent_adding.py")
    spec = importlib.util.spec_from_file_location("recurrent_adding_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    summary = module.main(["--steps", "300", "--out", str(tmp_path / "out")])
    assert summary["test_mse"] < 0.5 * summary["mean_predictor_mse"], summary
    assert summary["branches_taken"] == [False, True] and summary["reloaded_matches"]
    assert summary["blocks_in_saved_model"] == 4       # the loop body and the two branches
    assert (tmp_path / "out" / "model" / "recurrent_adding.pdiparams").stat().st_size > 0
