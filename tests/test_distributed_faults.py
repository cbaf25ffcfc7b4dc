"""A rank that is killed, raises, or hangs ends the whole job with an error naming the rank,
within a bounded time (no rank waits forever for a dead peer)."""
from __future__ import annotations

import re
import time

from distributed_fixtures import WORKER, launch, mpiexec, needs_mpi

pytestmark = needs_mpi
BOUND = 60.0      # seconds from the failure to every rank's exit


def test_killed_rank_ends_the_job_and_is_named(tmp_path):
    started = time.monotonic()
    result = launch([WORKER, "static", "out", "--distributed", "--steps", 6,
                     "--fail-rank", 1, "--fail-step", 2, "--fail-kind", "kill"], cwd=tmp_path,
                    timeout=BOUND + 60)
    elapsed = time.monotonic() - started
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert elapsed < BOUND, f"took {elapsed:.1f} s"
    assert re.search(r"rank 1\b.*(Killed|signal 9)", output, re.DOTALL), output
    assert "the job failed" in result.stderr
    assert not (tmp_path / "out").exists()          # no rank finished


def test_rank_that_raises_is_reported_and_the_others_are_aborted(tmp_path):
    started = time.monotonic()
    result = launch([WORKER, "eager", "out", "--distributed", "--steps", 6,
                     "--fail-rank", 1, "--fail-step", 1, "--fail-kind", "raise"], cwd=tmp_path,
                    timeout=BOUND + 60)
    assert result.returncode != 0
    assert time.monotonic() - started < BOUND
    log = (tmp_path / "log" / "workerlog.1").read_text()
    assert "[pyfluid.distributed] rank 1 of 2 failed" in log
    assert "RuntimeError: injected failure at step 1" in log
    # the launcher names the rank and shows the end of its log
    assert "rank 1 failed first" in result.stderr
    assert "injected failure at step 1" in result.stderr


def test_uncaught_error_under_plain_mpiexec_aborts_every_rank(tmp_path):
    started = time.monotonic()
    result = mpiexec([WORKER, "static", "out", "--distributed", "--steps", 6,
                      "--fail-rank", 0, "--fail-step", 1, "--fail-kind", "raise"],
                     cwd=tmp_path, timeout=BOUND + 60)
    assert result.returncode != 0
    assert time.monotonic() - started < BOUND
    assert "[pyfluid.distributed] rank 0 of 2 failed" in result.stderr
    assert "MPI_ABORT was invoked on rank 0" in result.stdout + result.stderr


def test_stuck_rank_makes_its_peer_time_out_instead_of_hanging(tmp_path):
    started = time.monotonic()
    result = launch([WORKER, "eager", "out", "--distributed", "--steps", 6,
                     "--fail-rank", 1, "--fail-step", 1, "--fail-kind", "hang"], cwd=tmp_path,
                    timeout=BOUND + 60, PYFLUID_COLLECTIVE_TIMEOUT="5")
    assert result.returncode != 0
    assert time.monotonic() - started < BOUND
    log = (tmp_path / "log" / "workerlog.0").read_text()
    assert "[pyfluid.distributed] rank 0 of 2 failed" in log
    assert "CollectiveTimeoutError: all_reduce did not complete within 5 s on rank 0" in log
