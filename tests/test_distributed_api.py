"""Paddle's eager collective API on 2 ranks, and the DistributedBatchSampler's split (the
same batches as Paddle 2.6's, recorded from it)."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
from distributed_fixtures import TESTS, launch, mpiexec, needs_mpi


@needs_mpi
def test_eager_collectives_on_two_ranks(tmp_path):
    result = mpiexec([TESTS / "distributed_api_worker.py"], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "rank 0: api ok" in result.stdout and "rank 1: api ok" in result.stdout


@needs_mpi
@pytest.mark.parametrize("machines", [["--hostfile", "hosts"], ["--ips", "127.0.0.1"]])
def test_launcher_places_ranks_from_a_hostfile_or_ips(tmp_path, machines):
    """The several-machine options, on this machine (localhost)."""
    (tmp_path / "hosts").write_text("localhost slots=2\n")
    result = launch([*machines, TESTS / "distributed_api_worker.py"], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "rank 0: api ok" in result.stdout
    assert "rank 1: api ok" in (tmp_path / "log" / "workerlog.1").read_text()


@pytest.mark.parametrize("rank, expected", [(0, [[0, 1], [4, 5], [8]]),
                                            (1, [[2, 3], [6, 7], [9]])])
def test_distributed_batch_sampler_strides_ranks_like_paddle(rank, expected):
    dataset = paddle.io.TensorDataset([np.arange(10)])
    sampler = paddle.io.DistributedBatchSampler(dataset, 2, num_replicas=2, rank=rank)
    assert list(sampler) == expected and len(sampler) == 3


def test_distributed_batch_sampler_shuffles_the_same_on_every_rank_per_epoch():
    dataset = paddle.io.TensorDataset([np.arange(10)])
    samplers = [paddle.io.DistributedBatchSampler(dataset, 2, num_replicas=2, rank=r,
                                                  shuffle=True) for r in range(2)]
    for sampler in samplers:
        sampler.set_epoch(3)
    first = [list(s) for s in samplers]
    assert first[0] == [[5, 4], [9, 6], [3]]                  # Paddle 2.6's, epoch 3
    assert sorted(i for batches in first for b in batches for i in b) == list(range(10))
    for sampler in samplers:
        sampler.set_epoch(4)
    assert [list(s) for s in samplers] != first
    assert len(list(paddle.io.DistributedBatchSampler(dataset, 4, num_replicas=2, rank=0,
                                                      drop_last=True))) == 1
