"""MLP training step with the seed-004 py_func ReLU versus the built-in relu op.

The network is the tutorial's (fc(100) -> ReLU -> fc(10, softmax) -> cross entropy -> mean,
SGD 0.01, batch 256) on random MNIST-shaped data. The variants alternate step by step (so
load from other processes hits all alike); the ratio of median step times is printed
(goal: <= 1.05). A third variant runs the same py_func op with a one-line NumPy backward
(``dy * (y > 0)``): the seed's backward (zeros_like + boolean-mask assignment + a copy) is
itself several times slower than that, so the two ratios separate the cost of the py_func
op from the cost of the user's NumPy code.

    python benchmarks/py_func_relu.py [--steps 1000]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import pyfluid
import pyfluid.fluid as fluid
from pyfluid.framework import unique_name


def relu(x):
    return np.maximum(x, 0.0)


def relu_grad(y, dy):
    dx = np.zeros_like(y)
    dx[y > 0] = 1.0
    return np.array(dy) * dx


def relu_grad_lean(y, dy):
    return dy * (y > 0)


def build(use_py_func: bool, backward=relu_grad):
    main, startup = fluid.Program(), fluid.Program()
    with unique_name.guard(), fluid.program_guard(main, startup):
        image = fluid.data(name="X", shape=[None, 784], dtype="float32")
        label = fluid.data(name="label", shape=[None, 1], dtype="int64")
        hidden = fluid.layers.fc(image, size=100)
        if use_py_func:
            out = main.current_block().create_var(name="relu", dtype=hidden.dtype,
                                                  shape=hidden.shape)
            hidden = fluid.layers.py_func(func=relu, x=hidden, out=out, backward_func=backward,
                                          skip_vars_in_backward_input=hidden)
        else:
            hidden = pyfluid.nn.functional.relu(hidden)
        prediction = fluid.layers.fc(hidden, size=10, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(prediction, label))
        fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)
    return main, startup, loss


def timed_step(exe, program, scope, loss, batch) -> float:
    start = time.perf_counter()
    exe.run(program, feed=batch, fetch_list=[loss], scope=scope)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000, help="timed steps per variant")
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()
    pyfluid.enable_static()
    rng = np.random.default_rng(0)
    batch = {"X": rng.uniform(-1, 1, (args.batch_size, 784)).astype("float32"),
             "label": rng.integers(0, 10, (args.batch_size, 1)).astype("int64")}
    exe = fluid.Executor(fluid.CPUPlace())
    variants = {}
    for name, use_py_func, backward in (("built-in relu", False, None),
                                        ("py_func relu", True, relu_grad),
                                        ("lean py_func", True, relu_grad_lean)):
        program, startup, loss = build(use_py_func, backward)
        scope = pyfluid.static.Scope()
        exe.run(startup, scope=scope)
        for _ in range(10):                                          # warm-up, plan compile
            timed_step(exe, program, scope, loss, batch)
        variants[name] = (program, scope, loss, [])
    for _ in range(args.steps):
        for program, scope, loss, times in variants.values():
            times.append(timed_step(exe, program, scope, loss, batch))
    medians = {name: statistics.median(v[3]) for name, v in variants.items()}
    for name, median in medians.items():
        print(f"{name:>14}: {median * 1e3:7.3f} ms/step (median of {len(variants[name][3])})")
    ratio = medians["py_func relu"] / medians["built-in relu"]
    lean = medians["lean py_func"] / medians["built-in relu"]
    print(f"ratio py_func / built-in: {ratio:.3f} (goal <= 1.05); with a one-line NumPy "
          f"backward: {lean:.3f}")


if __name__ == "__main__":
    main()
