"""Training run of the distributed tests: the MNIST MLP on synthetic MNIST-shaped data, static
(fleet) or eager (DataParallel), as one process (the reference) or as one rank of several
(started by tests/test_distributed_*.py through the launcher or mpiexec).

    python distributed_worker.py static|eager OUT_DIR [--steps N] [--batch B] [--distributed]
        [--save-at K --checkpoint PREFIX] [--resume PREFIX --start K]
        [--fail-rank R --fail-step S --fail-kind kill|raise|hang]

``--batch`` is the global batch; a rank of n reads batch/n rows of it (DistributedBatchSampler).
Each rank writes its final parameters to OUT_DIR/params.<rank>.npz.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import pyfluid as paddle  # noqa: E402

HIDDEN = (512, 256)


def synthetic_mnist(rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    images = rng.random((rows, 784), dtype=np.float32)
    labels = rng.integers(0, 10, size=rows).astype(np.int64)
    return images, labels


def batches(args, images, labels, world: int, rank: int):
    """This rank's (images, labels [B, 1]) for every step of epoch 0 (shuffled, as Paddle)."""
    dataset = paddle.io.TensorDataset([images, labels])
    sampler = paddle.io.DistributedBatchSampler(dataset, args.batch // world, num_replicas=world,
                                                rank=rank, shuffle=True, drop_last=True)
    sampler.set_epoch(0)
    for step, indices in enumerate(sampler):
        if step >= args.steps:
            return
        yield step, images[indices], labels[indices].reshape(-1, 1)


def maybe_fail(args, rank: int, step: int) -> None:
    if rank != args.fail_rank or step != args.fail_step:
        return
    print(f"rank {rank}: injected failure '{args.fail_kind}' at step {step}", flush=True)
    if args.fail_kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif args.fail_kind == "raise":
        raise RuntimeError(f"injected failure at step {step}")
    elif args.fail_kind == "hang":
        time.sleep(3600)


def run_static(args, images, labels) -> dict:
    paddle.enable_static()
    paddle.seed(args.seed)
    fleet = paddle.distributed.fleet
    if args.distributed:
        fleet.init(is_collective=True)
    world, rank = (fleet.worker_num(), fleet.worker_index()) if args.distributed else (1, 0)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        image = paddle.static.data(name="image", shape=[None, 784], dtype="float32")
        label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
        features = image
        for size in HIDDEN:
            features = paddle.static.nn.fc(features, size=size, activation="relu")
        loss = paddle.nn.functional.cross_entropy(paddle.static.nn.fc(features, size=10), label)
        optimizer = paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9)
        if args.distributed:
            strategy = fleet.DistributedStrategy()
            strategy.fuse_grad_size_in_num = args.bucket
            optimizer = fleet.distributed_optimizer(optimizer, strategy)
        optimizer.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    if args.print_programs and rank == 0:
        print(main)
        print(startup)
    if args.save_program and rank == 0:
        paddle.static.save(main, args.save_program)
    if args.resume:
        paddle.static.load(main, args.resume, exe)
    for step, x, y in batches(args, images, labels, world, rank):
        if step < args.start:
            continue
        maybe_fail(args, rank, step)
        exe.run(main, feed={"image": x, "label": y}, fetch_list=[loss])
        if args.save_at == step + 1 and rank == 0:     # checkpoints: rank 0 only
            paddle.static.save(main, args.checkpoint)
    scope = paddle.static.global_scope()
    return {p.name: np.array(scope.find_var(p.name).get_tensor())
            for p in main.all_parameters()}


def run_eager(args, images, labels) -> dict:
    paddle.disable_static()
    paddle.seed(args.seed)
    dist = paddle.distributed
    if args.distributed:
        dist.init_parallel_env()
    world, rank = dist.get_world_size(), dist.get_rank()
    layers = []
    width = 784
    for size in HIDDEN:
        layers += [paddle.nn.Linear(width, size), paddle.nn.ReLU()]
        width = size
    net = paddle.nn.Sequential(*layers, paddle.nn.Linear(width, 10))
    model = paddle.DataParallel(net) if args.distributed else net
    optimizer = paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9,
                                          parameters=model.parameters())
    for step, x, y in batches(args, images, labels, world, rank):
        maybe_fail(args, rank, step)
        loss = paddle.nn.functional.cross_entropy(model(paddle.to_tensor(x)),
                                                  paddle.to_tensor(y))
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
    return {name: p.numpy() for name, p in net.named_parameters()}


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["static", "eager"])
    parser.add_argument("out")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--bucket", type=int, default=8, help="fuse_grad_size_in_num")
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--save-at", type=int, default=0)
    parser.add_argument("--checkpoint", default="")
    parser.add_argument("--resume", default="")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--save-program", default="")
    parser.add_argument("--print-programs", action="store_true")
    parser.add_argument("--fail-rank", type=int, default=-1)
    parser.add_argument("--fail-step", type=int, default=-1)
    parser.add_argument("--fail-kind", default="raise", choices=["kill", "raise", "hang"])
    return parser.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    images, labels = synthetic_mnist(args.steps * args.batch)
    params = (run_static if args.mode == "static" else run_eager)(args, images, labels)
    rank = paddle.distributed.get_rank() if args.distributed else 0
    os.makedirs(args.out, exist_ok=True)
    np.savez(os.path.join(args.out, f"params.{rank}.npz"), **params)
    print(f"rank {rank}: done", flush=True)
    return params


if __name__ == "__main__":
    main(sys.argv[1:])
