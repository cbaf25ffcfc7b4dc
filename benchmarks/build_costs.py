"""What building, compiling and (de)serializing programs costs.

    python benchmarks/build_costs.py [--ops 1000] [--repeats 15]

Prints median milliseconds for: building the MNIST MLP of examples/mnist_mlp.py (784-512-256-10,
fc + cross entropy) with backward and Adam's minimize (goal <= 20 ms), and, for a chain of N
``elementwise_add`` ops (default 1000): appending the ops through the public API, the
Executor's first run (plan compilation), ``program.desc.serialize_to_string()`` and
``Program.parse_from_string()`` (goal <= 20 ms each).
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
from op_overhead import build_chain  # noqa: E402  (the same 500/1000-op chain)
from pyfluid import static  # noqa: E402

GOAL_MS = 20.0


def build_mnist_mlp() -> static.Program:
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("image", [None, 784], "float32")
        label = static.data("label", [None, 1], "int64")
        h = x
        for size in (512, 256):
            h = static.nn.fc(h, size, activation="relu")
        logits = static.nn.fc(h, 10)
        loss = paddle.nn.functional.cross_entropy(logits, label)
        paddle.optimizer.Adam(learning_rate=1e-3).minimize(loss)
    return main


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return (time.perf_counter() - start) * 1e3, result


def median_ms(fn, repeats: int) -> float:
    return statistics.median(timed(fn)[0] for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    paddle.enable_static()
    mlp_ms = median_ms(build_mnist_mlp, args.repeats)
    print(f"MNIST MLP with backward + Adam minimize ({len(build_mnist_mlp().global_block().ops)}"
          f" ops): {mlp_ms:.2f} ms (goal <= {GOAL_MS})")
    build = median_ms(lambda: build_chain(args.ops), max(3, args.repeats // 3))
    program, out = build_chain(args.ops)
    feed = {"x": np.ones([1], "float32")}
    compile_ms = statistics.median(
        timed(lambda: static.Executor().run(program, feed=feed, fetch_list=[out]))[0]
        for _ in range(max(3, args.repeats // 3)))
    data = program.desc.serialize_to_string()
    serialize = median_ms(program.desc.serialize_to_string, args.repeats)
    parse = median_ms(lambda: static.Program.parse_from_string(data), args.repeats)
    assert static.Program.parse_from_string(data).desc.serialize_to_string() == data
    print(f"program of {args.ops} elementwise_add ops ({len(data)} bytes), median ms")
    print(f"  build through the API        : {build:8.2f}")
    print(f"  first run (plan compilation) : {compile_ms:8.2f}")
    print(f"  serialize_to_string          : {serialize:8.2f}  (goal <= {GOAL_MS})")
    print(f"  parse_from_string            : {parse:8.2f}  (goal <= {GOAL_MS})")


if __name__ == "__main__":
    main()
