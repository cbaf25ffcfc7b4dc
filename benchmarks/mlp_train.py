"""MLP training step: pyfluid's static API vs the same math hand-written in NumPy.

Runs each configuration in a child process per thread count (BLAS threads must be fixed
before NumPy loads), on random data, and prints median ms per step, the ratio
(pyfluid / NumPy) and the peak traced memory of one step.

    python benchmarks/mlp_train.py            # 1 and 2 threads
    python benchmarks/mlp_train.py --threads 1
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CONFIGS = [((784, 100, 10), 256), ((784, 512, 512, 10), 64)]


def child(threads: int, steps: int, py_func_relu: bool) -> list[dict]:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    import time
    import tracemalloc

    import numpy as np

    import pyfluid as paddle

    paddle.enable_static()

    def numpy_step(params, x, y, lr):
        """Forward, softmax cross entropy (mean), backward and SGD, all float32."""
        acts, h = [x], x
        for i in range(0, len(params) - 2, 2):
            z = h @ params[i]
            z += params[i + 1]
            h = np.maximum(z, 0, out=z)
            acts.append(h)
        logits = h @ params[-2]
        logits += params[-1]
        n = len(x)
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        p = e / e.sum(axis=1, keepdims=True)
        rows = np.arange(n)
        loss = -np.log(p[rows, y]).mean()
        d = p
        d[rows, y] -= 1
        d /= np.float32(n)
        for i in range(len(params) - 2, -1, -2):
            a = acts[i // 2]
            dw = a.T @ d
            db = d.sum(axis=0)
            if i:
                d = d @ params[i].T
                d *= a > 0
            params[i] -= lr * dw
            params[i + 1] -= lr * db
        return loss

    def build(sizes, lr):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, sizes[0]], "float32")
            y = paddle.static.data("y", [None, 1], "int64")
            h = x
            for size in sizes[1:-1]:
                h = paddle.static.nn.fc(h, size, activation=None if py_func_relu else "relu")
                if py_func_relu:
                    out = main.current_block().create_var(name=h.name + ".relu", dtype="float32",
                                                          shape=h.shape)
                    h = paddle.static.py_func(func=_relu, x=h, out=out, backward_func=_relu_grad,
                                              skip_vars_in_backward_input=h)
            logits = paddle.static.nn.fc(h, sizes[-1])
            loss = paddle.nn.functional.cross_entropy(logits, y)
            paddle.optimizer.SGD(learning_rate=float(lr)).minimize(loss)
        return main, startup, loss

    results = []
    rng = np.random.default_rng(0)
    for sizes, batch in CONFIGS:
        lr = np.float32(0.01)
        main, startup, loss = build(sizes, lr)
        scope = paddle.static.Scope()
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup, scope=scope)
        names = sorted(p.name for p in main.all_parameters())
        names = sorted(names, key=lambda n: (int(n.split("_")[1].split(".")[0]), n[-3:] != "w_0"))
        params = [np.array(scope.find_var(n).get_tensor()) for n in names]
        xs = rng.standard_normal((8, batch, sizes[0])).astype("float32")
        ys = rng.integers(0, sizes[-1], (8, batch))

        def ours(i):
            exe.run(main, feed={"x": xs[i % 8], "y": ys[i % 8][:, None]}, fetch_list=[loss],
                    scope=scope)

        def theirs(i):
            numpy_step(params, xs[i % 8], ys[i % 8], lr)

        timings = {}
        for name, fn in (("pyfluid", ours), ("numpy", theirs)):
            for i in range(10):
                fn(i)
        samples = {"pyfluid": [], "numpy": []}
        for rep in range(7):
            for name, fn in (("pyfluid", ours), ("numpy", theirs)):
                start = time.perf_counter()
                for i in range(steps):
                    fn(i)
                samples[name].append((time.perf_counter() - start) / steps * 1e3)
        for name in samples:
            timings[name] = float(np.median(samples[name]))
        peaks = {}
        for name, fn in (("pyfluid", ours), ("numpy", theirs)):
            tracemalloc.start()
            fn(0)
            peaks[name] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        results.append({"sizes": sizes, "batch": batch, "ms": timings, "peak_mib": peaks})
    return results


def _relu(x):
    import numpy as np
    return np.maximum(x, 0.0)


def _relu_grad(y, dy):
    import numpy as np
    return np.array(dy) * (np.asarray(y) > 0)


def report(threads: int, results: list[dict], label: str = "") -> None:
    for r in results:
        ms, mem = r["ms"], r["peak_mib"]
        arch = "-".join(map(str, r["sizes"]))
        print(f"{label}threads={threads} MLP {arch} batch {r['batch']}: "
              f"pyfluid {ms['pyfluid']:.3f} ms, numpy {ms['numpy']:.3f} ms, "
              f"ratio {ms['pyfluid'] / ms['numpy']:.3f}; peak memory pyfluid {mem['pyfluid']:.2f} MiB, "
              f"numpy {mem['numpy']:.2f} MiB, ratio {mem['pyfluid'] / mem['numpy']:.2f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--py-func-relu", action="store_true", help="ReLU as a py_func op")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.threads[0], args.steps, args.py_func_relu)))
        return
    for threads in args.threads:
        cmd = [sys.executable, __file__, "--child", "--threads", str(threads), "--steps",
               str(args.steps)] + (["--py-func-relu"] if args.py_func_relu else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        report(threads, json.loads(out.strip().splitlines()[-1]))


if __name__ == "__main__":
    main()
