"""Per-op overhead of the static Executor: a chain of 500 ``elementwise_add`` ops on a [1]
float32 tensor, against the same 500 ``np.add`` calls in the same process.

    python benchmarks/op_overhead.py [--ops 500] [--repeats 300]

Prints the median µs per op of ``Executor.run`` (feed check, plan lookup, the generated
function, fetch copy) and of the bare NumPy loop, and their ratio. Goal: <= 1.0 µs per op.
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

GOAL_US_PER_OP = 1.0


def build_chain(n_ops: int) -> tuple[static.Program, static.Variable]:
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [1], "float32")
        y = x
        for _ in range(n_ops):
            y = paddle.add(y, x)
    return main, y


def median_seconds(fn, repeats: int) -> float:
    fn()                                   # warm up (the Executor compiles its plan here)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=300)
    args = parser.parse_args()
    paddle.enable_static()
    program, out = build_chain(args.ops)
    exe = static.Executor(paddle.CPUPlace())
    feed = {"x": np.ones([1], "float32")}

    def run_executor():
        return exe.run(program, feed=feed, fetch_list=[out])

    def run_numpy():
        a = feed["x"]
        v = a
        for _ in range(args.ops):
            v = np.add(v, a)
        return v

    assert np.array_equal(run_executor()[0], run_numpy())
    ours = median_seconds(run_executor, args.repeats) / args.ops * 1e6
    bare = median_seconds(run_numpy, args.repeats) / args.ops * 1e6
    print(f"chain of {args.ops} elementwise_add on a [1] float32 tensor, "
          f"median of {args.repeats} runs")
    print(f"  pyfluid Executor.run : {ours:6.3f} us/op")
    print(f"  numpy np.add loop    : {bare:6.3f} us/op")
    print(f"  ratio                : {ours / bare:6.2f}x")
    print(f"  goal <= {GOAL_US_PER_OP} us/op: {'met' if ours <= GOAL_US_PER_OP else 'NOT met'}")


if __name__ == "__main__":
    main()
