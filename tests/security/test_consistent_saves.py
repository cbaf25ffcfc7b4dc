"""Finding 3: a save interrupted at any instant leaves the old generation, the new one, or
files that loading refuses with a clear error, never a silent mix; stale temporaries are
removed by the next save; saving keeps a file's permissions."""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.io import ModelFileError

from .generations import (checkpoint_generation, inference_generation, save_checkpoint,
                          save_inference, temporaries)


class Crash(BaseException):
    """Stands for the process dying: not an Exception, so nothing handles it."""


def _crash_at(monkeypatch, name: str, step: int) -> list:
    """Make ``os.<name>`` raise Crash on its ``step``-th call (0-based)."""
    real, calls = getattr(os, name), []

    def patched(*args, **kwargs):
        calls.append(args)
        if len(calls) - 1 == step:
            raise Crash(f"crash at os.{name} #{step}")
        return real(*args, **kwargs)
    monkeypatch.setattr(os, name, patched)
    return calls


SAVES = {"save_inference_model": (save_inference, inference_generation),
         "static.save": (save_checkpoint, checkpoint_generation)}


@pytest.mark.parametrize("primitive", ["replace", "fsync"])
@pytest.mark.parametrize("kind", sorted(SAVES))
def test_a_crash_at_any_step_leaves_one_generation_or_a_refusal(kind, primitive, tmp_path,
                                                               monkeypatch):
    save, generation_of = SAVES[kind]
    prefix = str(tmp_path / "model")
    save(prefix, 1)
    calls = _crash_at(monkeypatch, primitive, -1)
    save(prefix, 2)                      # counts the calls of one uninterrupted save
    monkeypatch.undo()
    steps = len(calls)
    assert steps >= 2
    outcomes = set()
    for step in range(steps):
        save(prefix, 1)
        _crash_at(monkeypatch, primitive, step)
        with pytest.raises(Crash):
            save(prefix, 2)
        monkeypatch.undo()
        outcomes.add(generation_of(prefix))         # asserts there is no mix
    assert outcomes <= {1, 2, None}
    save(prefix, 3)
    assert generation_of(prefix) == 3 and temporaries(tmp_path) == []


def test_paddle_save_crash_leaves_old_or_new(tmp_path, monkeypatch):
    path = str(tmp_path / "state.pdparams")
    paddle.save({"w": np.full(3, 1.0)}, path)
    calls = _crash_at(monkeypatch, "replace", -1)
    paddle.save({"w": np.full(3, 2.0)}, path)
    monkeypatch.undo()
    steps = len(calls)
    assert steps >= 1
    for step in range(steps):
        _crash_at(monkeypatch, "replace", step)
        with pytest.raises(Crash):
            paddle.save({"w": np.full(3, 3.0)}, path)
        monkeypatch.undo()
        assert float(paddle.load(path)["w"][0]) in (2.0, 3.0)


SAVER = """
import sys, time
sys.path.insert(0, sys.argv[3])
from security.generations import save_checkpoint, save_inference
import pyfluid as paddle
paddle.enable_static()
save = save_inference if sys.argv[1] == "inference" else save_checkpoint
generation = 1
while True:
    save(sys.argv[2], generation)
    print("saved", generation, flush=True)
    generation = 3 - generation
"""


@pytest.mark.parametrize("kind", ["inference", "checkpoint"])
def test_kill_9_while_saving_repeatedly(kind, tmp_path):
    """A child saves generations 1 and 2 in turn; SIGKILL it at random instants (seeded);
    every time the files hold one generation or are refused; the next save cleans up."""
    prefix = str(tmp_path / "model")
    generation_of = inference_generation if kind == "inference" else checkpoint_generation
    save = save_inference if kind == "inference" else save_checkpoint
    tests_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rng = np.random.RandomState(7)
    seen = []
    for _ in range(12):
        child = subprocess.Popen([sys.executable, "-c", SAVER, kind, prefix, tests_dir],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().startswith("saved"), "the child did not save"
        time.sleep(rng.uniform(0, 0.3))          # somewhere in the following saves
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        seen.append(generation_of(prefix))      # asserts there is no mix
    assert set(seen) <= {1, 2, None}
    save(prefix, 3)
    assert generation_of(prefix) == 3
    assert temporaries(tmp_path) == [], "the next save must remove stale temporaries"


STUCK_SAVER = """
import os, sys, time
sys.path.insert(0, sys.argv[2])
from security.generations import save_inference
import pyfluid as paddle
paddle.enable_static()
def stuck(*args):
    print("renaming", flush=True)
    time.sleep(600)
os.replace = stuck
save_inference(sys.argv[1], 2)
"""


def test_temporaries_of_a_killed_save_are_removed_by_the_next_save(tmp_path):
    prefix = str(tmp_path / "model")
    save_inference(prefix, 1)
    tests_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    child = subprocess.Popen([sys.executable, "-c", STUCK_SAVER, prefix, tests_dir],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "renaming"
    finally:
        child.kill()
        child.wait()
    assert temporaries(tmp_path), "the killed save left no temporaries to clean up"
    assert inference_generation(prefix) == 1
    save_inference(prefix, 2)
    assert temporaries(tmp_path) == []
    assert inference_generation(prefix) == 2


@pytest.mark.parametrize("kind", ["inference", "checkpoint", "paddle.save"])
def test_saving_keeps_the_permissions_of_the_files_it_replaces(kind, tmp_path):
    prefix = str(tmp_path / "model")
    if kind == "paddle.save":
        def save():
            paddle.save({"w": np.zeros(2)}, prefix + ".pdparams")
    else:
        def save():
            (save_inference if kind == "inference" else save_checkpoint)(prefix, 1)
    save()
    written = [n for n in os.listdir(tmp_path) if n.startswith("model.pd")]
    for name in written:
        os.chmod(tmp_path / name, 0o600)
    save()
    for name in written:
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o600, name


def test_files_replaced_by_hand_are_refused_with_a_clear_error(tmp_path):
    """Params of another save under the same prefix: the model knows they are not its own."""
    save_inference(str(tmp_path / "a"), 1)
    save_inference(str(tmp_path / "b"), 2)
    os.replace(tmp_path / "b.pdiparams", tmp_path / "a.pdiparams")
    with pytest.raises(ModelFileError, match="a.pdiparams") as info:
        paddle.static.load_inference_model(str(tmp_path / "a"), paddle.static.Executor())
    assert "different saves" in str(info.value)
