"""What the CNN benchmarks share: each framework in a child process of its own (one thread,
nothing else loaded), asked over JSON lines (the protocol of benchmarks/paddle_side.py);
pyfluid's child is this file's ``serve``. :func:`compare` times the frameworks in rounds, each
round asking every framework in turn, so that load on the shared machine hits all of them;
ratios are taken per round, then their median and range over the rounds are reported.

    python benchmarks/cnn_children.py serve        # pyfluid's child
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ONE_THREAD = {var: "1" for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


class Child:
    """A framework's process: ``ask(kind, model, batch, reps)`` -> timings (ms) or error."""

    def __init__(self, python: str, args: list[str]):
        env = {**os.environ, **ONE_THREAD, "GLOG_minloglevel": "3",
               "FLAGS_call_stack_level": "0"}
        self.proc = subprocess.Popen([python, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, env=env, cwd=HERE)
        ready = self._read()
        if "ready" not in ready:
            raise RuntimeError(f"{python} {' '.join(args)} did not start: {ready}")

    def _read(self) -> dict:
        for line in self.proc.stdout:
            if line.startswith("{"):
                return json.loads(line)
        return {"error": "the child exited"}

    def ask(self, kind: str, model: str, batch: int, reps: int) -> dict:
        self.proc.stdin.write(json.dumps({"kind": kind, "model": model, "batch": batch,
                                          "reps": reps}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def children(paddle: bool = True, torch: bool = False) -> dict[str, Child]:
    """pyfluid's child, and Paddle's / PyTorch's when ``$PADDLE_PYTHON`` / ``$TORCH_PYTHON``
    name their Pythons."""
    found = {"pyfluid": Child(sys.executable, [os.path.join(HERE, "cnn_children.py"),
                                               "serve"])}
    for name, var, wanted in (("paddle", "PADDLE_PYTHON", paddle), ("torch", "TORCH_PYTHON",
                                                                    torch)):
        if wanted and os.environ.get(var):
            found[name] = Child(os.environ[var], [os.path.join(HERE, "paddle_side.py"),
                                                  "serve", name])
    return found


def compare(parties: dict, rounds: int) -> dict:
    """``parties``: label -> (child, kind, model, batch, reps). Per label: median wall and CPU
    ms over rounds; per label other than "pyfluid": pyfluid / label per round (wall, CPU),
    median and (min, max); errors as {"error": ...}."""
    samples: dict = {label: [] for label in parties}
    for round_ in range(rounds):
        order = list(parties) if round_ % 2 == 0 else list(reversed(parties))
        for label in order:
            child, kind, model, batch, reps = parties[label]
            samples[label].append(child.ask(kind, model, batch, reps))
    result = {}
    for label, got in samples.items():
        bad = next((g for g in got if "error" in g), None)
        result[label] = bad or {k: statistics.median(g[k] for g in got) for k in ("wall", "cpu")}
    ours = samples.get("pyfluid")
    for label, got in samples.items():
        if label == "pyfluid" or "error" in result[label] or "error" in result["pyfluid"]:
            continue
        for clock in ("wall", "cpu"):
            ratios = sorted(a[clock] / b[clock] for a, b in zip(ours, got))
            result[label][f"ratio_{clock}"] = (statistics.median(ratios), ratios[0], ratios[-1])
    return result


class PyfluidRunner:
    """pyfluid's side of the protocol: ``infer`` (an exported model, Executor, passes on) and
    ``train`` (a training step of benchmarks/cnn_nets.py)."""

    def __init__(self):
        import pyfluid as paddle
        self.paddle = paddle
        self.made: dict = {}

    def callable(self, kind: str, model: str, batch: int):
        key = (kind, model, batch)
        if key not in self.made:
            self.made[key] = getattr(self, kind)(model, batch)
        return self.made[key]

    def infer(self, prefix: str, batch: int):
        import numpy as np
        paddle = self.paddle
        paddle.enable_static()
        size = int(prefix.rsplit("_", 1)[1])
        x = np.random.default_rng(0).standard_normal((batch, 3, size, size)).astype("float32")
        exe, scope = paddle.static.Executor(), paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        return lambda: exe.run(program, feed={feeds[0]: x}, fetch_list=fetches, scope=scope)

    def train(self, net: str, batch: int):
        sys.path.insert(0, HERE)
        from cnn_nets import training_step
        return training_step(self.paddle, net, batch)


def serve() -> None:
    os.environ.update(ONE_THREAD)
    sys.path.insert(0, HERE)
    from paddle_side import time_calls
    runner = PyfluidRunner()
    print(json.dumps({"ready": "pyfluid"}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            fn = runner.callable(request["kind"], request["model"], int(request["batch"]))
            answer = time_calls(fn, int(request["reps"]))
        except Exception as exc:
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    if sys.argv[1:] != ["serve"]:
        raise SystemExit("usage: cnn_children.py serve")
    serve()
