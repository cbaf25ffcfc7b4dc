"""Train a multilayer perceptron on MNIST with pyfluid's static API (Paddle's, unchanged).

    python examples/mnist_mlp.py                 # fetches MNIST on first use, then trains
    python examples/mnist_mlp.py --epochs 3 --optimizer sgd --lr 0.1 --py-func-relu
    python -m pyfluid.distributed.launch --nproc_per_node 2 examples/mnist_mlp.py --distributed
    python examples/mnist_mlp.py --export-onnx   # also writes model.onnx, checks onnxruntime

Builds the network with ``paddle.static.nn.fc`` and ``paddle.nn.functional.cross_entropy``,
trains it with a progress bar, evaluates the test set after every epoch through
``main_program.clone(for_test=True)``, saves the inference model, reloads it and checks its
accuracy, and draws the loss and accuracy curves into ``<out>/mnist_mlp_curves.png``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Iterator, Sequence

# One BLAS thread unless the user says otherwise: on a shared 2-core machine, threaded
# matrix products can run many times slower than one thread (busy-waiting workers).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402  (after the thread settings)
from tqdm import tqdm  # noqa: E402

import pyfluid as paddle  # noqa: E402
from pyfluid.dataset import mnist  # noqa: E402

DEFAULT_LEARNING_RATES = {"adam": 1e-3, "momentum": 0.02, "sgd": 0.1}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=None,
                        help="initial learning rate, annealed to 0 along a cosine (default: "
                             "adam 1e-3, momentum 0.02, sgd 0.1)")
    parser.add_argument("--optimizer", choices=sorted(DEFAULT_LEARNING_RATES), default="adam")
    parser.add_argument("--hidden", default="512,256",
                        help="comma-separated hidden layer sizes (default: 512,256)")
    parser.add_argument("--py-func-relu", action="store_true",
                        help="use the tutorial's NumPy ReLU through paddle.static.py_func")
    parser.add_argument("--out", default="mnist_mlp_out", help="output folder")
    parser.add_argument("--data-dir", default=None,
                        help="folder with the MNIST IDX files (default: $PYFLUID_MNIST_DIR, "
                             "then the cache ~/.cache/pyfluid/mnist, fetched on first use)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--distributed", action="store_true",
                        help="data-parallel on the ranks started by pyfluid.distributed.launch "
                             "(fleet, collective): --batch-size per rank; rank 0 saves and plots")
    parser.add_argument("--export-onnx", action="store_true",
                        help="also export <out>/model/mnist_mlp.onnx and check that onnxruntime "
                             "(pip install onnx onnxruntime) gets our test accuracy")
    args = parser.parse_args(argv)
    args.hidden = [int(size) for size in args.hidden.split(",") if size.strip()]
    if args.lr is None:
        args.lr = DEFAULT_LEARNING_RATES[args.optimizer]
    return args


def relu(x: np.ndarray) -> np.ndarray:
    """The tutorial's ReLU forward, run by ``py_func``."""
    return np.maximum(x, 0.0)


def relu_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The tutorial's ReLU backward: ``y`` is the forward output, ``dy`` its gradient."""
    return np.asarray(dy) * (np.asarray(y) > 0)


def build_network(hidden: Sequence[int], py_func_relu: bool):
    """Image [N, 784] float32 and label [N, 1] int64 in; (image, label, probabilities, loss,
    accuracy) out, all built into the current default programs."""
    image = paddle.static.data(name="image", shape=[None, 784], dtype="float32")
    label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
    features = image
    for size in hidden:
        if py_func_relu:
            pre_activation = paddle.static.nn.fc(features, size=size)
            features = paddle.static.default_main_program().current_block().create_var(
                name=pre_activation.name + ".relu", dtype=pre_activation.dtype,
                shape=pre_activation.shape)
            paddle.static.py_func(func=relu, x=pre_activation, out=features,
                                  backward_func=relu_grad,
                                  skip_vars_in_backward_input=pre_activation)
        else:
            features = paddle.static.nn.fc(features, size=size, activation="relu")
    logits = paddle.static.nn.fc(features, size=10)
    loss = paddle.nn.functional.cross_entropy(logits, label)
    probabilities = paddle.nn.functional.softmax(logits)
    accuracy = paddle.static.accuracy(input=probabilities, label=label)
    return image, label, probabilities, loss, accuracy


def make_optimizer(name: str, learning_rate: float, total_steps: int):
    schedule = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=learning_rate,
                                                        T_max=max(total_steps, 1))
    if name == "adam":
        return paddle.optimizer.Adam(learning_rate=schedule), schedule
    if name == "momentum":
        return paddle.optimizer.Momentum(learning_rate=schedule, momentum=0.9), schedule
    return paddle.optimizer.SGD(learning_rate=schedule), schedule


def batches(images: np.ndarray, labels: np.ndarray, batch_size: int,
            rng: np.random.Generator | None = None, rank: int = 0,
            world: int = 1) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(images, labels [B, 1]) batches, shuffled when ``rng`` is given. With ``world`` ranks:
    rank ``rank``'s part of each global batch of ``batch_size * world`` (the same permutation
    on every rank: same seed); a short last batch is split evenly, so every rank takes the
    same number of steps (a rank with one step more would wait for the others forever)."""
    order = rng.permutation(len(labels)) if rng is not None else np.arange(len(labels))
    for start in range(0, len(order), batch_size * world):
        chunk = order[start:start + batch_size * world]
        if len(chunk) < world:
            return
        chosen = np.array_split(chunk, world)[rank]
        yield images[chosen], labels[chosen].reshape(-1, 1)


def evaluate(exe, program, loss, accuracy, images, labels, batch_size: int = 1000) -> tuple:
    """(mean loss, accuracy) of ``program`` over the whole set."""
    loss_total, correct = 0.0, 0
    for image_batch, label_batch in batches(images, labels, batch_size):
        loss_value, accuracy_value = exe.run(
            program, feed={"image": image_batch, "label": label_batch},
            fetch_list=[loss, accuracy])
        loss_total += float(np.asarray(loss_value).reshape(-1)[0]) * len(label_batch)
        correct += round(float(np.asarray(accuracy_value).reshape(-1)[0]) * len(label_batch))
    return loss_total / len(labels), correct / len(labels)


def reloaded_accuracy(exe, path_prefix: str, images: np.ndarray, labels: np.ndarray) -> float:
    """Accuracy of the inference model saved at ``path_prefix``, loaded back from disk."""
    program, feed_names, fetch_targets = paddle.static.load_inference_model(path_prefix, exe)
    correct = 0
    for image_batch, label_batch in batches(images, labels, 1000):
        probabilities, = exe.run(program, feed={feed_names[0]: image_batch},
                                 fetch_list=fetch_targets)
        correct += int((np.argmax(probabilities, axis=1) == label_batch[:, 0]).sum())
    return correct / len(labels)


def onnx_accuracy(path: str, images: np.ndarray, labels: np.ndarray) -> float:
    """Accuracy of the exported ONNX model, run by onnxruntime."""
    import onnxruntime
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name
    correct = 0
    for image_batch, label_batch in batches(images, labels, 1000):
        probabilities, = session.run(None, {input_name: image_batch})
        correct += int((np.argmax(probabilities, axis=1) == label_batch[:, 0]).sum())
    return correct / len(labels)


def smooth(values: Sequence[float], window: int) -> np.ndarray:
    """Running mean over the last ``window`` values (fewer at the start)."""
    sums = np.cumsum(np.concatenate([[0.0], values]))
    counts = np.minimum(np.arange(1, len(values) + 1), window)
    ends = np.arange(1, len(values) + 1)
    return (sums[ends] - sums[ends - counts]) / counts


def plot_curves(history: dict, path: str) -> None:
    """Loss and accuracy per batch (smoothed) and per epoch on the test set, into a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    window = max(1, history["steps_per_epoch"] // 10)
    figure, (loss_axes, accuracy_axes) = plt.subplots(1, 2, figsize=(11, 4))
    steps = np.arange(1, len(history["train_loss"]) + 1) / history["steps_per_epoch"]
    epochs = np.arange(1, len(history["test_loss"]) + 1)
    loss_axes.plot(steps, smooth(history["train_loss"], window), label="train")
    loss_axes.plot(epochs, history["test_loss"], "o-", label="test")
    loss_axes.set(xlabel="epoch", ylabel="cross entropy", yscale="log", title="Loss")
    accuracy_axes.plot(steps, smooth(history["train_accuracy"], window), label="train")
    accuracy_axes.plot(epochs, history["test_accuracy"], "o-", label="test")
    lowest = min(0.9, min(history["test_accuracy"]) - 0.02)
    accuracy_axes.set(xlabel="epoch", ylabel="accuracy", ylim=(lowest, 1.0), title="Accuracy")
    for axes in (loss_axes, accuracy_axes):
        axes.grid(alpha=0.3)
        axes.legend()
    figure.suptitle(f"pyfluid: MNIST MLP (train curves: running mean of {window} batches)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv: Sequence[str] | None = None) -> dict:
    """Train, evaluate, save, reload and plot; returns the figures it printed."""
    args = parse_args(argv)
    paddle.enable_static()
    paddle.seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    train_images, train_labels = mnist.load("train", args.data_dir)
    test_images, test_labels = mnist.load("test", args.data_dir)
    train_images, test_images = mnist.scale_images(train_images), mnist.scale_images(test_images)
    fleet = paddle.distributed.fleet
    if args.distributed:
        fleet.init(is_collective=True)
    rank, world = (fleet.worker_index(), fleet.worker_num()) if args.distributed else (0, 1)
    steps_per_epoch = -(-len(train_labels) // (args.batch_size * world))

    main_program, startup_program = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main_program, startup_program):
        image, _, probabilities, loss, accuracy = build_network(args.hidden, args.py_func_relu)
        test_program = main_program.clone(for_test=True)
        optimizer, schedule = make_optimizer(args.optimizer, args.lr,
                                             args.epochs * steps_per_epoch)
        if args.distributed:      # gradients averaged over the ranks (Paddle's collective ops)
            optimizer = fleet.distributed_optimizer(optimizer, fleet.DistributedStrategy())
        optimizer.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup_program)

    history = {"train_loss": [], "train_accuracy": [], "test_loss": [], "test_accuracy": [],
               "steps_per_epoch": steps_per_epoch}
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        bar = tqdm(batches(train_images, train_labels, args.batch_size, rng, rank, world),
                   total=steps_per_epoch, desc=f"epoch {epoch}/{args.epochs}", file=sys.stdout,
                   leave=True, dynamic_ncols=True, disable=rank != 0)
        for image_batch, label_batch in bar:
            loss_value, accuracy_value = exe.run(
                main_program, feed={"image": image_batch, "label": label_batch},
                fetch_list=[loss, accuracy])
            schedule.step()
            history["train_loss"].append(float(np.asarray(loss_value).reshape(-1)[0]))
            history["train_accuracy"].append(float(np.asarray(accuracy_value).reshape(-1)[0]))
            recent = slice(-50, None)
            bar.set_postfix(loss=f"{np.mean(history['train_loss'][recent]):.4f}",
                            acc=f"{np.mean(history['train_accuracy'][recent]):.4f}",
                            refresh=False)
        test_loss, test_accuracy = evaluate(exe, test_program, loss, accuracy,
                                            test_images, test_labels)
        history["test_loss"].append(test_loss)
        history["test_accuracy"].append(test_accuracy)
        bar.write(f"epoch {epoch}: test loss {test_loss:.4f}, test accuracy "
                  f"{test_accuracy:.4f} ({time.perf_counter() - started:.1f} s)")
    train_seconds = time.perf_counter() - started
    if rank != 0:             # every rank holds the same parameters: rank 0 writes the files
        return {"test_accuracy": history["test_accuracy"][-1], "rank": rank}

    model_prefix = os.path.join(args.out, "model", "mnist_mlp")
    paddle.static.save_inference_model(model_prefix, [image], [probabilities], exe,
                                       program=test_program)
    reloaded = reloaded_accuracy(exe, model_prefix, test_images, test_labels)
    if args.export_onnx:
        onnx_path = paddle.static.export_onnx(test_program, [image], [probabilities],
                                              model_prefix + ".onnx")
        summary_onnx = onnx_accuracy(onnx_path, test_images, test_labels)
        print(f"ONNX model {onnx_path}: onnxruntime test accuracy {summary_onnx:.4f}")
        if summary_onnx != history["test_accuracy"][-1]:
            raise RuntimeError(f"onnxruntime's accuracy {summary_onnx} differs from pyfluid's "
                               f"{history['test_accuracy'][-1]}")
    curves_path = os.path.join(args.out, "mnist_mlp_curves.png")
    plot_curves(history, curves_path)
    summary = {"test_accuracy": history["test_accuracy"][-1], "reloaded_accuracy": reloaded,
               "train_seconds": round(train_seconds, 1), "epochs": args.epochs,
               "model": model_prefix + ".pdmodel", "curves": curves_path}
    if args.export_onnx:
        summary["onnx_accuracy"] = summary_onnx
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print(f"test accuracy {summary['test_accuracy']:.4f} after {args.epochs} epochs; "
          f"training took {train_seconds:.1f} s (wall)")
    print(f"inference model {model_prefix}.pdmodel/.pdiparams reloaded: test accuracy "
          f"{reloaded:.4f}")
    print(f"curves: {curves_path}")
    return summary


if __name__ == "__main__":
    main()
