"""The MPI communicator: pyfluid's collectives on ``mpi4py`` (imported only when a world of
several processes is joined, so pyfluid works without the ``distributed`` extra).

Every collective is non-blocking underneath (``Iallreduce``, ``Ibcast``...) and waited for by
polling with a deadline (``PYFLUID_COLLECTIVE_TIMEOUT`` seconds, default 1800, Paddle's 30
minutes): a rank whose peer is stuck fails with an error instead of hanging."""
from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from ..ops.comm import INSTALL_HINT, REDUCE_OPS, check_root

DEFAULT_TIMEOUT = 1800.0


class DistributedError(RuntimeError):
    """A distributed run could not start or continue."""


class CollectiveTimeoutError(DistributedError):
    """A collective did not complete in time: another rank is stuck or gone."""


def import_mpi():
    """``mpi4py.MPI``, or an error that says what to install."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise DistributedError(f"pyfluid.distributed needs MPI for more than one process: "
                               f"{INSTALL_HINT} ({exc})") from None
    return MPI


def collective_timeout() -> float:
    value = os.environ.get("PYFLUID_COLLECTIVE_TIMEOUT", "")
    try:
        return float(value) if value else DEFAULT_TIMEOUT
    except ValueError:
        raise DistributedError(f"PYFLUID_COLLECTIVE_TIMEOUT must be a number of seconds, got "
                               f"{value!r}") from None


class Request:
    """A started collective; ``wait()`` returns its buffer once every rank took part."""

    __slots__ = ("comm", "request", "buffer", "what")

    def __init__(self, comm: "MPICommunicator", request: Any, buffer: np.ndarray, what: str):
        self.comm, self.request, self.buffer, self.what = comm, request, buffer, what

    def test(self) -> bool:
        return self.request is None or bool(self.request.Test())

    def wait(self) -> np.ndarray:
        if self.request is not None:
            self.comm._wait(self.request, self.what)
            self.request = None
        return self.buffer


class MPICommunicator:
    """An MPI communicator behind the interface of ``pyfluid.ops.comm``."""

    def __init__(self, comm: Any, MPI: Any, timeout: float | None = None):
        self.comm, self.MPI = comm, MPI
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.timeout = collective_timeout() if timeout is None else float(timeout)
        self._ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}
        self._pending: list[Request] = []
        assert set(self._ops) == set(REDUCE_OPS)

    def _reduce_op(self, op: str):
        try:
            return self._ops[op]
        except KeyError:
            raise DistributedError(f"unknown reduction {op!r}; expected one of "
                                   f"{list(self._ops)}") from None

    def _wait(self, request: Any, what: str) -> None:
        """Poll ``request`` until done; past the deadline, fail naming this rank."""
        if request.Test():
            return
        deadline = time.monotonic() + self.timeout
        pause = 0.0
        while not request.Test():
            if time.monotonic() > deadline:
                raise CollectiveTimeoutError(
                    f"{what} did not complete within {self.timeout:g} s on rank {self.rank} of "
                    f"{self.size}: another rank is stuck or has died (its log says which). "
                    "Set PYFLUID_COLLECTIVE_TIMEOUT to wait longer.")
            if pause:
                time.sleep(pause)
            pause = min(pause * 2 or 1e-5, 1e-3)

    def _progress(self) -> None:
        """Let MPI move earlier non-blocking reductions along (it progresses inside calls)."""
        self._pending = [r for r in self._pending if not r.test()]

    # -- the communicator interface ---------------------------------------------------------
    def allreduce(self, array: np.ndarray, op: str = "sum") -> np.ndarray:
        send = np.ascontiguousarray(array)
        result = np.empty_like(send)
        self._wait(self.comm.Iallreduce(send, result, self._reduce_op(op)), "all_reduce")
        return result

    def start_allreduce(self, flat: np.ndarray, op: str = "sum") -> Request:
        self._progress()
        request = Request(self, self.comm.Iallreduce(self.MPI.IN_PLACE, flat,
                                                     self._reduce_op(op)), flat, "all_reduce")
        self._pending.append(request)
        return request

    def broadcast(self, array: np.ndarray, root: int = 0) -> np.ndarray:
        check_root(root, self.size)
        buffer = np.array(array, copy=True, order="C")
        self._wait(self.comm.Ibcast(buffer, root=root), "broadcast")
        return buffer

    def allgather(self, array: np.ndarray) -> np.ndarray:
        send = np.ascontiguousarray(array)
        if send.ndim == 0:
            send = send.reshape(1)
        result = np.empty((self.size * send.shape[0],) + send.shape[1:], dtype=send.dtype)
        self._wait(self.comm.Iallgather(send, result), "all_gather")
        return result

    def barrier(self) -> None:
        self._wait(self.comm.Ibarrier(), "barrier")

    def abort(self, code: int = 1) -> None:
        self.comm.Abort(code)
