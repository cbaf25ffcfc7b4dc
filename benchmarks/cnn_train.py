"""CNN training steps on one thread: pyfluid's static Executor against Paddle 2.6's
(``$PADDLE_PYTHON``, a Python with paddlepaddle 2.6), the same network code
(benchmarks/cnn_nets.py: LeNet on 1x28x28 with Adam, ResNet-18 on 3x64x64 with Momentum)
run by both, each in its own process, timed in alternating rounds
(benchmarks/cnn_children.py).

    PADDLE_PYTHON=... python benchmarks/cnn_train.py [--nets lenet:64,resnet18:8]
        [--rounds 5] [--seconds 1.0]
"""
from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cnn_children import children, compare  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nets", default="lenet:64,resnet18:8", help="NET:BATCH,...")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per block of steps")
    args = parser.parse_args(argv)
    kids = children(paddle=True, torch=False)
    print("| net | batch | pyfluid ms | Paddle exe ms | ratio wall | ratio cpu |")
    print("|---|---|---|---|---|---|")
    try:
        for spec in args.nets.split(","):
            net, batch = spec.split(":")
            probe = kids["pyfluid"].ask("train", net, int(batch), 2)
            if "error" in probe:
                print(f"| {net} | {batch} | {probe['error']} |", flush=True)
                continue
            reps = max(2, min(50, int(args.seconds * 1e3 / probe["wall"])))
            parties = {"pyfluid": (kids["pyfluid"], "train", net, int(batch), reps)}
            if "paddle" in kids:
                parties["paddle"] = (kids["paddle"], "train", net, int(batch), reps)
            result = compare(parties, args.rounds)
            row = [net, batch, f"{result['pyfluid']['wall']:.1f}"]
            other = result.get("paddle")
            if other is None:
                row += ["(PADDLE_PYTHON not set)", "", ""]
            elif "error" in other:
                row += [other["error"][:40], "", ""]
            else:
                row.append(f"{other['wall']:.1f}")
                for clock in ("wall", "cpu"):
                    median, low, high = other[f"ratio_{clock}"]
                    row.append(f"{median:.2f} [{low:.2f}-{high:.2f}]")
            print("| " + " | ".join(row) + " |", flush=True)
    finally:
        for child in kids.values():
            child.close()
    print(f"\n(one thread each; {args.rounds} rounds; load average "
          f"{os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
