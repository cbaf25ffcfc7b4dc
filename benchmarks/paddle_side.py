"""The other frameworks' side of the CNN benchmarks: a child process run under
``$PADDLE_PYTHON`` (PaddlePaddle 2.6) or ``$TORCH_PYTHON`` (PyTorch), never imported by
pyfluid, one thread:

    $PADDLE_PYTHON benchmarks/paddle_side.py export MODEL SIZE DIR   # DIR/MODEL_SIZE.pd*
    PYTHON benchmarks/paddle_side.py serve {paddle,torch}            # JSON lines on stdin

``export`` saves ``paddle.vision.models.MODEL`` (random weights, seeded, 1000 classes, batch
norm running statistics randomised) with ``paddle.jit.save`` for [N, 3, SIZE, SIZE] inputs.
``serve`` answers one JSON request per line with one JSON line: ``{"kind": K, "model":
PREFIX or NET, "batch": N, "reps": R}`` times R calls of K and answers the median and total
wall and CPU milliseconds. Paddle's kinds: ``predictor`` (its inference predictor with oneDNN
on the exported model), ``executor`` (its static Executor on the same files), ``train`` (a
training step of benchmarks/cnn_nets.py); PyTorch's: ``torch`` (the model of that name in
benchmarks/torch_models.py, torchvision's architectures, eval mode, ``no_grad``).
"""
from __future__ import annotations

import json
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"


def export(model: str, size: int, out_dir: str) -> None:
    import numpy as np
    import paddle
    from paddle.static import InputSpec

    paddle.seed(7)
    rng = np.random.default_rng(7)
    layer = getattr(paddle.vision.models, model)()
    for sub in layer.sublayers(include_self=True):
        if isinstance(sub, paddle.nn.BatchNorm2D):
            sub._mean.set_value(rng.uniform(-0.1, 0.1, sub._mean.shape).astype("float32"))
            sub._variance.set_value(rng.uniform(0.5, 1.5, sub._variance.shape).astype("float32"))
    layer.eval()
    spec = [InputSpec([None, 3, size, size], "float32", "image")]
    paddle.jit.save(layer, os.path.join(out_dir, f"{model}_{size}"), input_spec=spec)


def time_calls(fn, reps: int) -> dict:
    """Median and total wall / CPU ms of ``reps`` calls (after one warm-up call)."""
    fn()
    wall, cpu = [], []
    for _ in range(reps):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpu.append((time.process_time() - c) * 1e3)
        wall.append((time.perf_counter() - w) * 1e3)
    return {"wall": sorted(wall)[len(wall) // 2], "cpu": sorted(cpu)[len(cpu) // 2]}


def _image(prefix: str, batch: int):
    import numpy as np
    size = int(prefix.rsplit("_", 1)[1])
    return np.random.default_rng(0).standard_normal((batch, 3, size, size)).astype("float32")


class PaddleRunner:
    def __init__(self):
        import paddle
        self.paddle = paddle
        self.made: dict = {}

    def callable(self, kind: str, model: str, batch: int):
        key = (kind, model, batch)
        if key not in self.made:
            self.made[key] = getattr(self, kind)(model, batch)
        return self.made[key]

    def predictor(self, prefix: str, batch: int):
        import paddle.inference as pi
        x = _image(prefix, batch)
        config = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        config.disable_gpu()
        config.set_cpu_math_library_num_threads(1)
        config.enable_mkldnn()
        config.disable_glog_info()
        predictor = pi.create_predictor(config)
        feed = predictor.get_input_handle(predictor.get_input_names()[0])
        fetch = predictor.get_output_handle(predictor.get_output_names()[0])

        def run():
            feed.reshape(x.shape)
            feed.copy_from_cpu(x)
            predictor.run()
            return fetch.copy_to_cpu()
        return run

    def executor(self, prefix: str, batch: int):
        paddle = self.paddle
        paddle.enable_static()
        x = _image(prefix, batch)
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)

        def run():
            with paddle.static.scope_guard(scope):
                return exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)
        return run

    def train(self, net: str, batch: int):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from cnn_nets import training_step
        return training_step(self.paddle, net, batch)


class TorchRunner:
    def __init__(self):
        import torch
        torch.set_num_threads(1)
        self.torch = torch
        self.made: dict = {}

    def callable(self, kind: str, prefix: str, batch: int):
        key = (prefix, batch)
        if key not in self.made:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            from torch_models import MODELS
            torch = self.torch
            torch.manual_seed(7)
            model = MODELS[os.path.basename(prefix).rsplit("_", 1)[0]]().eval()
            x = torch.from_numpy(_image(prefix, batch))

            def run():
                with torch.no_grad():
                    return model(x)
            self.made[key] = run
        return self.made[key]


def serve(which: str) -> None:
    runner = PaddleRunner() if which == "paddle" else TorchRunner()
    print(json.dumps({"ready": which}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            fn = runner.callable(request["kind"], request["model"], int(request["batch"]))
            answer = time_calls(fn, int(request["reps"]))
        except Exception as exc:             # reported to the benchmark, which goes on
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "export":
        export(args[0], int(args[1]), args[2])
    elif command == "serve":
        serve(args[0])
    else:
        raise SystemExit(f"unknown command {command!r}: export or serve")
