"""Eager (dynamic-graph) MLP training step vs the same step hand-written in NumPy.

The eager step is what a Paddle user writes: ``loss = CrossEntropyLoss()(model(x), y)``,
``loss.backward()``, ``opt.step()``, ``opt.clear_grad()`` with ``paddle.nn.Linear`` layers,
ReLU and SGD. The NumPy step does the same float32 math with no framework (both skip the
input gradient of the first layer: the data needs none). Eager and NumPy blocks alternate;
prints the median ms per step of each and the median ratio eager / NumPy of back-to-back
block pairs, with the load average (PyTorch eager is 1.15-1.3x on such steps; the goal is
<= 1.10x).

    python benchmarks/eager_mlp.py [--threads 1] [--steps 30] [--rounds 15]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

CONFIGS = [((784, 100, 10), 256), ((784, 512, 512, 10), 64)]


def numpy_step(weights: list, x, labels, lr):
    """Linear/ReLU layers, softmax cross entropy (mean), backward and SGD in place."""
    import numpy as np
    inputs, h = [], x
    for k in range(0, len(weights), 2):
        inputs.append(h)
        h = h @ weights[k] + weights[k + 1]
        if k + 2 < len(weights):
            h = np.maximum(h, 0)
    logits = h - h.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    prob = exp / exp.sum(axis=1, keepdims=True)
    rows = np.arange(len(x))
    loss = -np.log(prob[rows, labels]).mean()
    grad = prob
    grad[rows, labels] -= 1
    grad /= np.float32(len(x))
    for k in range(len(weights) - 2, -1, -2):
        a = inputs[k // 2]
        dw, db = a.T @ grad, grad.sum(axis=0)
        if k:
            grad = (grad @ weights[k].T) * (a > 0)
        weights[k] -= lr * dw
        weights[k + 1] -= lr * db
    return loss


def eager_model(sizes):
    import pyfluid as paddle
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(paddle.nn.Linear(sizes[i], sizes[i + 1]))
        if i + 2 < len(sizes):
            layers.append(paddle.nn.ReLU())
    return paddle.nn.Sequential(*layers)


def measure(sizes, batch: int, steps: int, rounds: int = 15) -> dict:
    import numpy as np
    import pyfluid as paddle
    paddle.disable_static()
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((8, batch, sizes[0])).astype("float32")
    ys = rng.integers(0, sizes[-1], (8, batch))
    model = eager_model(sizes)
    weights = [p.numpy() for p in model.parameters()]
    optimizer = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()
    tensors = [(paddle.to_tensor(xs[i]), paddle.to_tensor(ys[i][:, None])) for i in range(8)]
    lr = np.float32(0.01)

    def eager(i):
        x, y = tensors[i % 8]
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()

    def numpy(i):
        numpy_step(weights, xs[i % 8], ys[i % 8], lr)

    samples: dict[str, list] = {"eager": [], "numpy": []}
    for fn in (eager, numpy):
        for i in range(10):
            fn(i)
    ratios = []
    for round_ in range(rounds):             # alternate the order: drift hits both sides
        timed = {}
        for name, fn in ((("eager", eager), ("numpy", numpy)) if round_ % 2 == 0 else
                         (("numpy", numpy), ("eager", eager))):
            start = time.perf_counter()
            for i in range(steps):
                fn(i)
            timed[name] = (time.perf_counter() - start) / steps * 1e3
            samples[name].append(timed[name])
        ratios.append(timed["eager"] / timed["numpy"])
    result = {name: statistics.median(values) for name, values in samples.items()}
    result["ratio"] = statistics.median(ratios)   # of back-to-back rounds: robust to load
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    parser.add_argument("--steps", type=int, default=30, help="steps per timed block")
    parser.add_argument("--rounds", type=int, default=15, help="eager/numpy block pairs")
    args = parser.parse_args(argv)
    if "numpy" in sys.modules:
        raise RuntimeError("run this file as a script: BLAS threads are fixed before NumPy loads")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    for sizes, batch in CONFIGS:
        ms = measure(sizes, batch, args.steps, args.rounds)
        print(f"threads={args.threads} eager MLP {'-'.join(map(str, sizes))} batch {batch}: "
              f"pyfluid eager {ms['eager']:.3f} ms, numpy {ms['numpy']:.3f} ms, "
              f"ratio {ms['ratio']:.3f} (load average {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
