"""Running scripts on several MPI ranks from the tests. Tests that need MPI are skipped with
:data:`MPI_SKIP_REASON` when the ``distributed`` extra is not installed (the session summary
says how many)."""
from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
WORKER = TESTS / "distributed_worker.py"
MPI_SKIP_REASON = ("the distributed extra is not installed (pip install -e \".[distributed]\": "
                   "mpi4py and Open MPI)")
_MPIEXEC = Path(sys.executable).parent / "mpiexec"
HAVE_MPI = importlib.util.find_spec("mpi4py") is not None and _MPIEXEC.exists()

needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason=MPI_SKIP_REASON)


def environment(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_", "PADDLE_"))}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", **extra)
    return env


def launch(args: list, cwd: Path, nproc: int = 2, timeout: float = 240, **env: str):
    """``python -m pyfluid.distributed.launch --nproc_per_node nproc *args`` in ``cwd``."""
    command = [sys.executable, "-m", "pyfluid.distributed.launch", "--nproc_per_node",
               str(nproc), *map(str, args)]
    return run(command, cwd, environment(**env), timeout)


def run(command: list, cwd: Path, env: dict, timeout: float) -> subprocess.CompletedProcess:
    """Run ``command`` in its own process group; on timeout, kill the whole group (mpiexec and
    every rank), not only the first process."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def mpiexec(args: list, cwd: Path, nproc: int = 2, timeout: float = 240, **env: str):
    """``mpiexec -n nproc python *args``: a script started by MPI without the launcher."""
    extra = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", **env}
    command = [str(_MPIEXEC), "--oversubscribe", "-n", str(nproc), sys.executable,
               *map(str, args)]
    return run(command, cwd, environment(**extra), timeout)


def run_reference(args: list) -> dict:
    """The one-process run of tests/distributed_worker.py, in this process."""
    spec = importlib.util.spec_from_file_location("distributed_worker", WORKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main([str(a) for a in args])
