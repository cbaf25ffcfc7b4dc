"""``paddle.distributed``: data-parallel training across processes and machines, on MPI.

Start the ranks with ``python -m pyfluid.distributed.launch --nproc_per_node N script.py``
(or ``mpiexec -n N python script.py``); see docs/distributed.md. MPI (``mpi4py``) is imported
only when a world of several processes is joined: ``pip install "pyfluid[distributed]"``."""
from __future__ import annotations

from ..ops import comm as _comm
from .collective import (Group, ParallelEnv, ReduceOp, all_gather, all_reduce, barrier,
                         broadcast, get_rank, get_world_size, init_parallel_env, is_initialized)
from .mpi import CollectiveTimeoutError, DistributedError
from .parallel import DataParallel
from .world import connect_ring as _connect_ring
from . import fleet  # noqa: E402
from . import io  # noqa: E402  (paddle.distributed.io)

_comm.set_connector(_connect_ring)     # c_comm_init joins the MPI world through it

__all__ = ["CollectiveTimeoutError", "DataParallel", "DistributedError", "Group", "ParallelEnv",
           "ReduceOp", "all_gather", "all_reduce", "barrier", "broadcast", "fleet", "get_rank",
           "get_world_size", "init_parallel_env", "io", "is_initialized"]
