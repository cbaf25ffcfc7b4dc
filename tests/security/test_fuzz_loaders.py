"""Seeded mutation fuzzing of everything that reads untrusted files: .pdmodel, .pdiparams,
.pdparams and the ``pyfluid`` command. A mutated file must load correctly or fail with one of
pyfluid's documented errors (ModelFileError, a ValueError naming the file) within seconds;
the command must exit 0 or 1 with a one-line error. The default run takes a few seconds;
``PYFLUID_FUZZ_SECONDS=600`` fuzzes longer (the time is split between the four targets)."""
from __future__ import annotations

import contextlib
import os
import signal
import time

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.cli import main as cli_main
from pyfluid.executor import Scope, scope_guard
from pyfluid.io import ModelFileError

SECONDS = float(os.environ.get("PYFLUID_FUZZ_SECONDS", "4")) / 4
EXAMPLE_TIMEOUT = 20


class Hang(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    def alarm(signum, frame):
        raise Hang(f"no result after {seconds} s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def mutate(data: bytes, rng: np.random.RandomState) -> bytes:
    """One to three random edits: bit flips, boundary bytes, truncation, insertion, deletion,
    duplication of a chunk."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not out:
            out += bytes(rng.randint(0, 256, 8).astype(np.uint8))
        at = rng.randint(0, len(out))
        kind = rng.randint(0, 6)
        if kind == 0:
            out[at] ^= 1 << rng.randint(0, 8)
        elif kind == 1:
            out[at] = int(rng.choice([0x00, 0x01, 0x7f, 0x80, 0xff]))
        elif kind == 2:
            del out[at:]
        elif kind == 3:
            out[at:at] = bytes(rng.randint(0, 256, rng.randint(1, 16)).astype(np.uint8))
        elif kind == 4:
            del out[at:at + rng.randint(1, 32)]
        else:
            out[at:at] = out[at:at + rng.randint(1, 64)]
    return bytes(out)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    paddle.enable_static()
    with scope_guard(Scope()), paddle.static.program_guard(paddle.static.Program(),
                                                           paddle.static.Program()):
        x = paddle.static.data("x", [None, 3], "float32")
        out = paddle.scale(paddle.static.nn.fc(paddle.static.nn.fc(x, 4, activation="relu"), 2),
                           3.0)
        exe = paddle.static.Executor()
        exe.run(paddle.static.default_startup_program())
        paddle.static.save_inference_model(str(folder / "m"), [x], [out], exe)
        paddle.static.save(paddle.static.default_main_program(), str(folder / "ckpt"))
    np.save(folder / "x.npy", np.ones((2, 3), "float32"))
    return {name: (folder / name).read_bytes()
            for name in ("m.pdmodel", "m.pdiparams", "ckpt.pdparams", "x.npy")}


def _fuzz(pristine, tmp_path, seed: int, build_files, attempt) -> int:
    rng = np.random.RandomState(seed)
    deadline, examples = time.time() + SECONDS, 0
    while time.time() < deadline or examples < 20:
        files = build_files(rng)
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
        with _time_limit(EXAMPLE_TIMEOUT), scope_guard(Scope()):
            attempt(tmp_path)
        examples += 1
    return examples


def _load_inference(folder):
    try:
        paddle.static.load_inference_model(str(folder / "m"), paddle.static.Executor())
    except ModelFileError as exc:
        assert "m.pd" in str(exc)


def test_fuzz_pdmodel(pristine, tmp_path):
    _fuzz(pristine, tmp_path, 1, lambda rng: {
        "m.pdmodel": mutate(pristine["m.pdmodel"], rng), "m.pdiparams": pristine["m.pdiparams"]},
        _load_inference)


def test_fuzz_pdiparams(pristine, tmp_path):
    _fuzz(pristine, tmp_path, 2, lambda rng: {
        "m.pdmodel": pristine["m.pdmodel"], "m.pdiparams": mutate(pristine["m.pdiparams"], rng)},
        _load_inference)


def _load_checkpoint(folder):
    for load in (lambda: paddle.static.load_program_state(str(folder / "ckpt")),
                 lambda: paddle.load(str(folder / "ckpt.pdparams"))):
        try:
            state = load()
        except ModelFileError as exc:
            assert "ckpt.pdparams" in str(exc)
        else:
            assert all(isinstance(v, np.ndarray) or type(v) is dict for v in state.values())


def test_fuzz_pdparams(pristine, tmp_path):
    _fuzz(pristine, tmp_path, 3, lambda rng: {
        "ckpt.pdparams": mutate(pristine["ckpt.pdparams"], rng)}, _load_checkpoint)


def test_fuzz_cli(pristine, tmp_path, capsys):
    def build(rng):
        files = {"m.pdmodel": pristine["m.pdmodel"], "m.pdiparams": pristine["m.pdiparams"],
                 "x.npy": pristine["x.npy"]}
        target = ("m.pdmodel", "m.pdiparams", "x.npy")[rng.randint(0, 3)]
        files[target] = mutate(files[target], rng)
        return files

    def run_cli(folder):
        for argv in (["show", str(folder / "m")], ["dot", str(folder / "m"), "-o",
                                                   str(folder / "g.dot")],
                     ["run", str(folder / "m"), "--input", f"x={folder / 'x.npy'}"]):
            capsys.readouterr()
            assert cli_main(argv) in (0, 1)
            err = capsys.readouterr().err
            assert err == "" or (err.startswith("pyfluid: error: ") and err.count("\n") == 1), err
    _fuzz(pristine, tmp_path, 4, build, run_cli)
