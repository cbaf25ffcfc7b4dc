"""Communicators by ring id, as the collective ops' kernels find them (Paddle's
``CommContextManager``: one global map ``ring_id -> communicator``, filled by ``c_comm_init``
or by the distributed runtime).

A communicator is any object with ``rank``, ``size`` and these methods (arrays are NumPy;
none modifies the array it is given unless it says so):

- ``allreduce(array, op) -> array`` with ``op`` one of ``"sum" "max" "min" "prod"``;
- ``start_allreduce(flat, op) -> request``: reduce ``flat`` in place, without blocking;
  ``request.wait() -> flat`` blocks until it is done (the overlap of gradient buckets);
- ``broadcast(array, root) -> array``, ``allgather(array) -> array`` (concatenated on axis 0),
  ``barrier()``.

The ops layer knows no MPI: ``pyfluid.distributed`` provides the MPI communicator and
registers the connector that ``c_comm_init`` calls (``set_connector``); a one-rank world needs
neither (:class:`LocalCommunicator`).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

REDUCE_OPS = ("sum", "max", "min", "prod")
INSTALL_HINT = ("install the MPI extra (pip install \"pyfluid[distributed]\", which brings "
                "mpi4py and Open MPI) or mpi4py built against your cluster's MPI")

_RINGS: dict[int, Any] = {}
_CONNECTOR: list[Callable] = []     # at most one: (ring_id, nranks, rank, endpoints) -> comm


class CommunicatorError(RuntimeError):
    """A collective op found no communicator, or one that does not match the program."""


class Done:
    """A request that has already completed (one rank, or a blocking reduction)."""

    __slots__ = ("value",)

    def __init__(self, value: np.ndarray):
        self.value = value

    def wait(self) -> np.ndarray:
        return self.value

    def test(self) -> bool:
        return True


class LocalCommunicator:
    """The world of one process: every collective is the identity (no MPI needed)."""

    rank, size = 0, 1

    def allreduce(self, array: np.ndarray, op: str = "sum") -> np.ndarray:
        return np.array(array, copy=True)

    def start_allreduce(self, flat: np.ndarray, op: str = "sum") -> Done:
        return Done(flat)

    def broadcast(self, array: np.ndarray, root: int = 0) -> np.ndarray:
        check_root(root, 1)
        return np.array(array, copy=True)

    def allgather(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def barrier(self) -> None:
        return None


def check_root(root: int, size: int) -> None:
    if not 0 <= root < size:
        raise CommunicatorError(f"root rank {root} is out of range: the communicator has "
                                f"{size} rank(s), so root must be in [0, {size})")


def set_communicator(ring_id: int, comm: Any) -> None:
    """Make ``comm`` the communicator of ``ring_id`` (None removes it)."""
    if comm is None:
        _RINGS.pop(int(ring_id), None)
    else:
        _RINGS[int(ring_id)] = comm


def set_connector(connector: Callable | None) -> None:
    """``connector(ring_id, nranks, rank, endpoints) -> communicator``: how ``c_comm_init``
    joins a world of several processes (registered by ``pyfluid.distributed``)."""
    _CONNECTOR.clear()
    if connector is not None:
        _CONNECTOR.append(connector)


def communicator(ring_id: int = 0) -> Any:
    """The communicator of ``ring_id``; a clear error when none was set up."""
    comm = _RINGS.get(int(ring_id))
    if comm is None:
        raise CommunicatorError(
            f"no communicator for ring_id {ring_id}: run the startup program (its c_comm_init "
            "op joins the ranks) or call paddle.distributed.init_parallel_env() / "
            "fleet.init(is_collective=True) first")
    return comm


def connect(ring_id: int, nranks: int, rank: int, endpoints: str = "") -> Any:
    """The communicator of ``ring_id`` for ``rank`` of ``nranks``, created when needed; it
    must match the process's place in the world the program was built for."""
    comm = _RINGS.get(int(ring_id))
    if comm is None:
        if nranks == 1:
            comm = LocalCommunicator()
        elif _CONNECTOR:
            comm = _CONNECTOR[0](ring_id, nranks, rank, endpoints)
        else:
            raise CommunicatorError(
                f"c_comm_init: the program trains on {nranks} ranks, which needs MPI: "
                f"{INSTALL_HINT}, then start the ranks with `python -m "
                "pyfluid.distributed.launch --nproc_per_node N script.py` or mpiexec")
        set_communicator(ring_id, comm)
    if comm.size != nranks or comm.rank != rank:
        raise CommunicatorError(
            f"c_comm_init (ring_id {ring_id}): the program was built for rank {rank} of "
            f"{nranks}, but this process is rank {comm.rank} of {comm.size}; build the program "
            "in every rank after fleet.init(is_collective=True) and start exactly "
            f"{nranks} processes")
    return comm


class Layout:
    """Where each array of a bucket lives in its flat buffer (shapes decided once)."""

    __slots__ = ("shapes", "bounds", "total")

    def __init__(self, shapes: Sequence[tuple]):
        self.shapes = [tuple(s) for s in shapes]
        sizes = [int(np.prod(s, dtype=np.int64)) for s in self.shapes]
        self.bounds = list(zip(np.cumsum([0] + sizes[:-1]).tolist(), np.cumsum(sizes).tolist()))
        self.total = int(sum(sizes))

    def flatten(self, arrays: Sequence[np.ndarray], dtype) -> np.ndarray:
        flat = np.empty(self.total, dtype=dtype)
        for (start, end), array in zip(self.bounds, arrays):
            flat[start:end] = np.ravel(array)
        return flat

    def split(self, flat: np.ndarray) -> list[np.ndarray]:
        """Views of ``flat``, one per array, in their shapes."""
        return [flat[start:end].reshape(shape)
                for (start, end), shape in zip(self.bounds, self.shapes)]


class PendingBucket:
    """A bucket of arrays being reduced: ``wait()`` gives them back, reduced."""

    __slots__ = ("request", "layout")

    def __init__(self, request: Any, layout: Layout):
        self.request, self.layout = request, layout

    def wait(self) -> list[np.ndarray]:
        return self.layout.split(self.request.wait())


def start_bucket(comm: Any, arrays: Sequence[np.ndarray], op: str = "sum") -> PendingBucket:
    """Flatten ``arrays`` into one buffer and start reducing it (one collective call)."""
    layout = Layout([np.shape(a) for a in arrays])
    dtype = np.result_type(*[np.asarray(a).dtype for a in arrays])
    return PendingBucket(comm.start_allreduce(layout.flatten(arrays, dtype), op), layout)
