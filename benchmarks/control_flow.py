"""A ``while_loop`` of 1,000 steps whose body is 3 ops on a [64, 64] float32 tensor
(``h = tanh(h * a + b)``: elementwise_mul, elementwise_add, tanh), against the same loop
written in NumPy (``for _ in range(1000): h = np.tanh(h * a + b)``) in the same process.

    python benchmarks/control_flow.py [--steps 1000] [--repeats 30]

The pyfluid loop also runs its counter and condition as ops (``i + 1``, ``i < n`` and the
assigns that carry the loop variables), as Paddle's while_loop builds it. Prints the median
time of a run of each and their ratio. Goal: <= 1.5x NumPy.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import pyfluid as paddle  # noqa: E402
from pyfluid import static  # noqa: E402

GOAL_RATIO = 1.5


def build(steps: int):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        h0 = static.data("h0", [64, 64], "float32")
        a = static.data("a", [64, 64], "float32")
        b = static.data("b", [64, 64], "float32")
        i = paddle.zeros([1], "int64")
        n = paddle.full([1], steps, "int64")
        _, h = static.nn.while_loop(lambda i, h: i < n,
                                    lambda i, h: [i + 1, paddle.tanh(h * a + b)], [i, h0])
    return main, h


def median_seconds(fns, repeats: int) -> list[float]:
    """The median time of each function, run in turns (so that a busy machine slows both
    alike)."""
    for fn in fns:
        fn()                               # warm up (the Executor compiles its plan here)
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, spent in zip(fns, times):
            start = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    paddle.enable_static()
    program, out = build(args.steps)
    rng = np.random.default_rng(0)
    feed = {name: rng.uniform(-1, 1, (64, 64)).astype("float32") for name in ("h0", "a", "b")}
    exe = static.Executor(paddle.CPUPlace())

    def run_executor():
        return exe.run(program, feed=feed, fetch_list=[out])[0]

    def run_numpy():
        h, a, b = feed["h0"], feed["a"], feed["b"]
        for _ in range(args.steps):
            h = np.tanh(h * a + b)
        return h

    np.testing.assert_array_equal(run_executor(), run_numpy())
    ours, bare = median_seconds([run_executor, run_numpy], args.repeats)
    print(f"while_loop of {args.steps} steps, body tanh(h * a + b) on [64, 64] float32, "
          f"median of {args.repeats} runs")
    print(f"  pyfluid Executor.run : {ours * 1e3:8.3f} ms ({ours / args.steps * 1e6:.2f} us/step)")
    print(f"  numpy loop           : {bare * 1e3:8.3f} ms ({bare / args.steps * 1e6:.2f} us/step)")
    print(f"  ratio                : {ours / bare:6.2f}x")
    print(f"  goal <= {GOAL_RATIO}x: {'met' if ours / bare <= GOAL_RATIO else 'NOT met'}")


if __name__ == "__main__":
    main()
