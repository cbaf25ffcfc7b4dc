"""CNN inference on one thread: pyfluid (Executor, inference passes on) against Paddle 2.6's
inference predictor with oneDNN and its static Executor (``$PADDLE_PYTHON``, a Python with
paddlepaddle 2.6) and against PyTorch (``$TORCH_PYTHON``; benchmarks/torch_models.py), in one
run.

    PADDLE_PYTHON=... [TORCH_PYTHON=...] python benchmarks/cnn_inference.py \\
        [--models resnet18,resnet50,mobilenet_v2,shufflenet_v2_x1_0] [--sizes 224,64] \\
        [--batches 1,8] [--rounds 5] [--seconds 0.6] [--cache DIR]

The models are ``paddle.vision.models`` with random weights, exported by Paddle 2.6 once
into ``--cache`` (default ``<tmp>/pyfluid_cnn_models``; never part of the repository), so
pyfluid and Paddle run the same files. Each framework runs in its own process; every round
asks each in turn for a block of runs (about ``--seconds`` long) and takes the block's
median; the table shows medians over rounds of the wall time per run, and the ratio pyfluid
/ other per round (median [min-max]) by wall time and by CPU time of the process (CPU time
does not count the time another process holds the core: steadier on a shared machine).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cnn_children import children, compare  # noqa: E402

MODELS = ("resnet18", "resnet50", "mobilenet_v2", "shufflenet_v2_x1_0")


def exported(model: str, size: int, cache: str) -> str:
    """The prefix of the Paddle 2.6 export of ``model`` for size x size inputs."""
    prefix = os.path.join(cache, f"{model}_{size}")
    if not os.path.exists(prefix + ".pdiparams"):
        paddle_python = os.environ.get("PADDLE_PYTHON")
        if not paddle_python:
            raise SystemExit(f"{prefix}.pdmodel is not in the cache and PADDLE_PYTHON is not "
                             "set: the models are exported by PaddlePaddle 2.6")
        os.makedirs(cache, exist_ok=True)
        subprocess.run([paddle_python, os.path.join(HERE, "paddle_side.py"), "export", model,
                        str(size), cache], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return prefix


def _ratio(entry: dict, clock: str) -> str:
    if "error" in entry:
        return "error"
    median, low, high = entry[f"ratio_{clock}"]
    return f"{median:.2f} [{low:.2f}-{high:.2f}]"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--sizes", default="224,64")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.6, help="per block of runs")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(),
                                                         "pyfluid_cnn_models"))
    args = parser.parse_args(argv)
    kids = children(paddle=True, torch=True)
    others = [("paddle", "predictor", "Paddle oneDNN"), ("paddle", "executor", "Paddle exe"),
              ("torch", "torch", "PyTorch")]
    others = [o for o in others if o[0] in kids]
    header = ["model", "size", "batch", "pyfluid ms"]
    for _, _, label in others:
        header += [f"{label} ms", f"ratio wall", "ratio cpu"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    try:
        for model in args.models.split(","):
            for size in (int(s) for s in args.sizes.split(",")):
                prefix = exported(model, size, args.cache)
                for batch in (int(b) for b in args.batches.split(",")):
                    probe = kids["pyfluid"].ask("infer", prefix, batch, 1)
                    if "error" in probe:
                        print(f"| {model} | {size} | {batch} | {probe['error']} |", flush=True)
                        continue
                    reps = max(1, min(50, int(args.seconds * 1e3 / probe["wall"])))
                    parties = {"pyfluid": (kids["pyfluid"], "infer", prefix, batch, reps)}
                    for child, kind, label in others:
                        parties[label] = (kids[child], kind, prefix, batch, reps)
                    result = compare(parties, args.rounds)
                    row = [model, str(size), str(batch), f"{result['pyfluid']['wall']:.1f}"]
                    for _, _, label in others:
                        entry = result[label]
                        row += ([f"{entry['wall']:.1f}", _ratio(entry, "wall"),
                                 _ratio(entry, "cpu")] if "error" not in entry
                                else [entry["error"][:40], "", ""])
                    print("| " + " | ".join(row) + " |", flush=True)
    finally:
        for child in kids.values():
            child.close()
    print(f"\n(one thread each; {args.rounds} rounds; load average "
          f"{os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
