"""Data-parallel scaling: the MNIST MLP (784-512-256-10) trained with a fixed batch per rank,
as one plain process and as 2 MPI ranks, in static mode (fleet) and eager mode (DataParallel).

Prints the median step time and the scaling efficiency: samples/s of n ranks divided by n
times the samples/s of the one-process run of the same invocation (1.0 = perfect scaling),
and the same for n plain processes run at once without communicating: the ceiling the
machine itself sets (cores, memory bandwidth, other load), which communication cannot beat.
Needs the MPI extra (pip install -e ".[distributed]"). One BLAS thread per rank.

    python benchmarks/data_parallel.py                 # 1 process and 2 ranks
    python benchmarks/data_parallel.py --ranks 1 2 4 --batch 256 --steps 60
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HIDDEN = (512, 256)


def worker(mode: str, batch: int, steps: int, distributed: bool) -> None:
    import time

    import numpy as np

    import pyfluid as paddle

    rng = np.random.default_rng(0)
    x = rng.random((batch, 784), dtype=np.float32)
    y = rng.integers(0, 10, (batch, 1)).astype(np.int64)
    if mode == "static":
        paddle.enable_static()
        fleet = paddle.distributed.fleet
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            h = image = paddle.static.data("image", [None, 784], "float32")
            label = paddle.static.data("label", [None, 1], "int64")
            for size in HIDDEN:
                h = paddle.static.nn.fc(h, size, activation="relu")
            loss = paddle.nn.functional.cross_entropy(paddle.static.nn.fc(h, 10), label)
            opt = paddle.optimizer.SGD(0.01)
            if distributed:
                fleet.init(is_collective=True)
                opt = fleet.distributed_optimizer(opt, fleet.DistributedStrategy())
            opt.minimize(loss)
        exe = paddle.static.Executor()
        exe.run(startup)
        feed = {image.name: x, label.name: y}

        def step():
            exe.run(main, feed=feed, fetch_list=[loss])
    else:
        paddle.disable_static()
        if distributed:
            paddle.distributed.init_parallel_env()
        layers, width = [], 784
        for size in HIDDEN:
            layers += [paddle.nn.Linear(width, size), paddle.nn.ReLU()]
            width = size
        model = paddle.nn.Sequential(*layers, paddle.nn.Linear(width, 10))
        if distributed:
            model = paddle.DataParallel(model)
        opt = paddle.optimizer.SGD(0.01, parameters=model.parameters())
        xt, yt = paddle.to_tensor(x), paddle.to_tensor(y)

        def step():
            paddle.nn.functional.cross_entropy(model(xt), yt).backward()
            opt.step()
            opt.clear_grad()
    for _ in range(5):
        step()
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    rank = paddle.distributed.get_rank() if distributed else 0
    if distributed:
        paddle.distributed.barrier()
    if rank == 0:
        print("RESULT " + json.dumps({"ms": 1e3 * float(np.median(times))}), flush=True)


def concurrent_plain(mode: str, count: int, batch: int, steps: int) -> float:
    """``count`` plain processes at once, no communication: what the machine alone allows."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    command = [sys.executable, __file__, "--worker", mode, "--batch", str(batch), "--steps",
               str(steps)]
    processes = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
                 for _ in range(count)]
    results = [json.loads(p.communicate()[0].split("RESULT ", 1)[1])["ms"] for p in processes]
    return max(results)


def run(mode: str, ranks: int, batch: int, steps: int) -> float:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    args = [__file__, "--worker", mode, "--batch", str(batch), "--steps", str(steps)]
    if ranks == 0:          # the plain one-process baseline: no MPI at all
        command = [sys.executable, *args]
    else:
        from pyfluid.distributed.launch import find_mpiexec
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        command = [find_mpiexec(None), "--oversubscribe", "-n", str(ranks), sys.executable,
                   *args, "--distributed"]
    output = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    line = next(line for line in output.splitlines() if line.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])["ms"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[2])
    parser.add_argument("--batch", type=int, default=128, help="samples per rank per step")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--modes", nargs="+", default=["static", "eager"])
    parser.add_argument("--worker", choices=["static", "eager"])
    parser.add_argument("--distributed", action="store_true")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.batch, args.steps, args.distributed)
        return
    print(f"MNIST MLP 784-{'-'.join(map(str, HIDDEN))}-10, {args.batch} samples per rank per "
          f"step, median of {args.steps} steps, {os.cpu_count()} cores")
    print(f"{'mode':<7}{'processes':>10}{'step ms':>10}{'samples/s':>11}{'efficiency':>12}")
    for mode in args.modes:
        base = run(mode, 0, args.batch, args.steps)
        print(f"{mode:<7}{'1 (plain)':>10}{base:>10.2f}{args.batch / base * 1e3:>11.0f}"
              f"{1.0:>12.2f}", flush=True)
        for ranks in args.ranks:
            ms = run(mode, ranks, args.batch, args.steps)
            efficiency = base / ms          # (ranks * batch / ms) / (ranks * batch / base)
            print(f"{mode:<7}{ranks:>10}{ms:>10.2f}{ranks * args.batch / ms * 1e3:>11.0f}"
                  f"{efficiency:>12.2f}", flush=True)
            if ranks > 1:
                alone = concurrent_plain(mode, ranks, args.batch, args.steps)
                print(f"{'':<7}{f'{ranks} x plain':>10}{alone:>10.2f}"
                      f"{ranks * args.batch / alone * 1e3:>11.0f}{base / alone:>12.2f}"
                      "   (no communication: the machine's own ceiling)", flush=True)


if __name__ == "__main__":
    main()
