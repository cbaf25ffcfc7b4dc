"""The world of processes this one belongs to: found from the MPI launcher's environment,
joined through MPI (ring 0 of ``pyfluid.ops.comm``), with a fault handler that turns one
rank's failure into the whole job's exit.

A process started by ``mpiexec`` (directly, or by ``python -m pyfluid.distributed.launch``)
joins MPI's world; any other process is a world of one and never imports MPI."""
from __future__ import annotations

import os
import socket
import sys
import traceback
from typing import Any

import numpy as np

from ..ops import comm as comm_registry
from .mpi import DistributedError, MPICommunicator, import_mpi

# rank variables set by the MPI launchers: Open MPI, PMIx (Open MPI 5), MPICH/Hydra, MVAPICH
_RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK")
_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE")
BASE_PORT = 6170      # Paddle's launcher numbers endpoints from this port


def launched_by_mpi() -> bool:
    return any(name in os.environ for name in _RANK_VARIABLES)


def env_rank_and_size() -> tuple[int, int]:
    """(rank, size) from the launcher's variables, without joining MPI (Paddle's
    ``PADDLE_TRAINER_ID`` / ``PADDLE_TRAINERS_NUM`` when no MPI launcher set any)."""
    rank = next((os.environ[n] for n in _RANK_VARIABLES if n in os.environ), None)
    size = next((os.environ[n] for n in _SIZE_VARIABLES if n in os.environ), None)
    if rank is None:
        rank = os.environ.get("PADDLE_TRAINER_ID", "0")
    if size is None:
        size = os.environ.get("PADDLE_TRAINERS_NUM", "1")
    return int(rank), int(size)


def world() -> Any:
    """The communicator of every process of the job (ring 0), joined on first use."""
    comm = comm_registry._RINGS.get(0)
    if comm is None:
        comm = _join()
        comm_registry.set_communicator(0, comm)
    return comm


def _join() -> Any:
    if not launched_by_mpi():
        _, size = env_rank_and_size()
        if size > 1:
            raise DistributedError(
                f"PADDLE_TRAINERS_NUM is {size} but this process was not started by MPI: start "
                "the ranks with `python -m pyfluid.distributed.launch --nproc_per_node N "
                "script.py` or `mpiexec -n N python script.py`")
        return comm_registry.LocalCommunicator()
    MPI = import_mpi()
    communicator = MPICommunicator(MPI.COMM_WORLD, MPI)
    install_fault_handler(communicator)
    return communicator


def connect_ring(ring_id: int, nranks: int, rank: int, endpoints: str = "") -> Any:
    """``c_comm_init``'s connector: ring 0 is the MPI world."""
    if ring_id != 0:
        raise DistributedError(f"c_comm_init: ring_id {ring_id} is not supported: pyfluid runs "
                               "data parallelism on one ring (ring_id 0), the MPI world")
    return world()


def endpoints(comm: Any) -> list[str]:
    """``host:port`` of every rank, as Paddle names trainers (``PADDLE_TRAINER_ENDPOINTS`` when
    the launcher set it; otherwise each rank's host name and a port counted per host)."""
    given = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "")
    if given and len(given.split(",")) == comm.size:
        return given.split(",")
    host = socket.gethostname() if comm.size > 1 else "127.0.0.1"
    if comm.size == 1:
        return [f"{host}:{BASE_PORT}"]
    encoded = np.zeros(256, dtype=np.uint8)
    raw = host.encode()[:255]
    encoded[:len(raw)] = np.frombuffer(raw, dtype=np.uint8)
    hosts = [bytes(row).rstrip(b"\0").decode() for row in comm.allgather(encoded).reshape(
        comm.size, 256)]
    seen: dict[str, int] = {}
    result = []
    for name in hosts:
        result.append(f"{name}:{BASE_PORT + seen.get(name, 0)}")
        seen[name] = seen.get(name, 0) + 1
    return result


def install_fault_handler(communicator: MPICommunicator) -> None:
    """On an uncaught exception: report it with this rank's number, then abort every rank
    (``MPI_Abort``), so the job ends instead of the others waiting for this one forever."""
    previous = sys.excepthook

    def abort_job(kind, value, tb):
        report_failure(communicator.rank, communicator.size,
                       "".join(traceback.format_exception(kind, value, tb)))
        if previous is not sys.__excepthook__:
            previous(kind, value, tb)
        communicator.abort(1)

    sys.excepthook = abort_job


def report_failure(rank: int, size: int, details: str) -> None:
    message = (f"\n[pyfluid.distributed] rank {rank} of {size} failed; aborting all ranks.\n"
               f"{details}")
    try:
        sys.stdout.flush()
        sys.stderr.write(message)
        sys.stderr.flush()
    except (OSError, ValueError):
        os.write(2, message.encode(errors="replace"))
