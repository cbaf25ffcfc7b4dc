"""Data-parallel training on 2 MPI ranks gives the parameters of one process trained on the
same global batches (static mode through fleet, eager mode through DataParallel); a run
restarted from a rank-0 checkpoint continues exactly; the launcher's logs are Paddle's."""
from __future__ import annotations

import json

import numpy as np
import pytest

from distributed_fixtures import WORKER, launch, mpiexec, needs_mpi, run_reference

pytestmark = needs_mpi
STEPS, BATCH = 4, 64


def load(path) -> dict:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def assert_same(actual: dict, expected: dict, atol: float = 1e-6) -> None:
    assert sorted(actual) == sorted(expected)
    for name in expected:
        np.testing.assert_allclose(actual[name], expected[name], rtol=0, atol=atol,
                                   err_msg=name)


@pytest.fixture(scope="module")
def static_run(tmp_path_factory):
    """2 ranks, static mode, through the launcher: saves its programs and a checkpoint."""
    folder = tmp_path_factory.mktemp("static")
    result = launch([WORKER, "static", "out", "--distributed", "--steps", STEPS, "--batch",
                     BATCH, "--bucket", 4, "--save-at", 2, "--checkpoint", "ckpt/step2",
                     "--save-program", "saved/dist"], cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    return folder, result


def test_static_fleet_training_on_two_ranks_matches_one_process(static_run, tmp_path):
    folder, _ = static_run
    expected = run_reference(["static", tmp_path, "--steps", STEPS, "--batch", BATCH])
    assert_same(load(folder / "out" / "params.0.npz"), expected)
    assert_same(load(folder / "out" / "params.1.npz"), load(folder / "out" / "params.0.npz"),
                atol=0)


def test_launcher_shows_rank_0_and_logs_every_rank(static_run):
    folder, result = static_run
    assert "rank 0: done" in result.stdout and "rank 1: done" not in result.stdout
    assert "rank 0: done" in (folder / "log" / "workerlog.0").read_text()
    assert "rank 1: done" in (folder / "log" / "workerlog.1").read_text()


def test_checkpoint_is_written_by_rank_0_and_a_restart_continues_exactly(static_run):
    folder, _ = static_run
    checkpoint = folder / "ckpt"
    assert sorted(p.name for p in checkpoint.iterdir()) == [
        "step2.pdmodel", "step2.pdopt", "step2.pdparams",
        "step2.pdsha256"]     # the manifest of the save; no temporaries left behind
    result = launch([WORKER, "static", "resumed", "--distributed", "--steps", STEPS, "--batch",
                     BATCH, "--bucket", 4, "--resume", "ckpt/step2", "--start", 2], cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert_same(load(folder / "resumed" / "params.0.npz"), load(folder / "out" / "params.0.npz"),
                atol=0)


def test_eager_data_parallel_under_plain_mpiexec_matches_one_process(tmp_path):
    result = mpiexec([WORKER, "eager", "out", "--distributed", "--steps", STEPS, "--batch",
                      BATCH], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "rank 0: done" in result.stdout and "rank 1: done" in result.stdout
    expected = run_reference(["eager", tmp_path / "reference", "--steps", STEPS, "--batch",
                              BATCH])
    assert_same(load(tmp_path / "out" / "params.0.npz"), expected)
    assert_same(load(tmp_path / "out" / "params.1.npz"), load(tmp_path / "out" / "params.0.npz"),
                atol=0)


def test_mnist_example_trains_on_two_ranks_with_the_launcher(tmp_path):
    from test_examples import EXAMPLE, small_dataset
    data = tmp_path / "data"
    data.mkdir()
    small_dataset(str(data), use_cache=False, train_count=2000, test_count=300)
    result = launch([EXAMPLE, "--distributed", "--epochs", "3", "--hidden", "64",
                     "--batch-size", "32", "--optimizer", "sgd", "--data-dir", data,
                     "--out", "out"], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["test_accuracy"] > 0.8 and summary["reloaded_accuracy"] == summary[
        "test_accuracy"], summary
    assert "test accuracy" in result.stdout                        # rank 0, in the foreground
    assert "epoch 3: test loss" in (tmp_path / "log" / "workerlog.1").read_text()
