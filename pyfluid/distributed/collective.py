"""Paddle's collective API (``paddle.distributed.all_reduce``, ``broadcast``, ``all_gather``,
``barrier``, ``get_rank``...). In dynamic mode a call runs the collective on the tensor at once
(in place, as Paddle does); in static mode it appends Paddle's collective op to the program."""
from __future__ import annotations

import enum
from typing import Any

import numpy as np

from ..engine.tensor import Tensor
from ..framework.context import in_dynamic_mode
from ..framework.variable import Variable
from .world import env_rank_and_size, world


class ReduceOp(enum.IntEnum):
    """Paddle's ``paddle.distributed.ReduceOp``."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_REDUCTIONS = {ReduceOp.SUM: "sum", ReduceOp.MAX: "max", ReduceOp.MIN: "min",
               ReduceOp.PROD: "prod", ReduceOp.AVG: "sum"}


class Group:
    """The default group: every rank of the job (ring 0)."""

    def __init__(self, rank: int, nranks: int):
        self.rank, self.nranks, self.id = rank, nranks, 0
        self.ranks = list(range(nranks))

    @property
    def world_size(self) -> int:
        return self.nranks

    def __repr__(self) -> str:
        return f"Group(rank={self.rank}, nranks={self.nranks}, id=0)"


class ParallelEnv:
    """Paddle's ``paddle.distributed.ParallelEnv``: this process's place in the job."""

    @property
    def rank(self) -> int:
        return get_rank()

    local_rank = rank

    @property
    def world_size(self) -> int:
        return get_world_size()

    nranks = world_size

    @property
    def device_id(self) -> int:
        return 0

    dev_id = device_id


def init_parallel_env() -> Group:
    """Join the job's world (MPI when several processes were launched) and return its group."""
    comm = world()
    return Group(comm.rank, comm.size)


def is_initialized() -> bool:
    from ..ops.comm import _RINGS
    return 0 in _RINGS


def get_rank(group: Group | None = None) -> int:
    """This process's rank: from the joined world, else from the launcher's environment."""
    if is_initialized():
        return world().rank
    return env_rank_and_size()[0]


def get_world_size(group: Group | None = None) -> int:
    if is_initialized():
        return world().size
    return env_rank_and_size()[1]


def _check_op(op: Any) -> ReduceOp:
    try:
        return ReduceOp(int(op))
    except (ValueError, TypeError):
        raise ValueError(f"op must be a paddle.distributed.ReduceOp (SUM, MAX, MIN, PROD, AVG), "
                         f"got {op!r}") from None


def _static_collective(op_type: str, tensor: Variable, attrs: dict) -> None:
    block = tensor.block.program.current_block()
    block.append_op(type=op_type, inputs={"X": [tensor]}, outputs={"Out": [tensor]},
                    attrs={"ring_id": 0, **attrs})


def all_reduce(tensor: Any, op: Any = ReduceOp.SUM, group: Group | None = None,
               sync_op: bool = True) -> None:
    """Reduce ``tensor`` over every rank, in place."""
    op = _check_op(op)
    if isinstance(tensor, Variable) or not in_dynamic_mode():
        if op == ReduceOp.AVG:
            raise ValueError("ReduceOp.AVG is not supported in static mode; all_reduce with SUM "
                             "and scale by 1/nranks")
        _static_collective(f"c_allreduce_{_REDUCTIONS[op]}", tensor,
                           {"use_calc_stream": bool(sync_op)})
        return None
    comm = world()
    result = comm.allreduce(_array(tensor), _REDUCTIONS[op])
    if op == ReduceOp.AVG:
        result = (result / comm.size).astype(result.dtype, copy=False)
    _assign(tensor, result)
    return None


def broadcast(tensor: Any, src: int = 0, group: Group | None = None,
              sync_op: bool = True) -> None:
    """Overwrite ``tensor`` on every rank with rank ``src``'s value."""
    if isinstance(tensor, Variable) or not in_dynamic_mode():
        _static_collective("c_broadcast", tensor, {"root": int(src),
                                                   "use_calc_stream": bool(sync_op)})
        return None
    _assign(tensor, world().broadcast(_array(tensor), int(src)))
    return None


def all_gather(tensor_list: list, tensor: Any, group: Group | None = None,
               sync_op: bool = True) -> None:
    """Fill ``tensor_list`` with every rank's ``tensor`` (rank order)."""
    if isinstance(tensor, Variable) or not in_dynamic_mode():
        raise NotImplementedError("paddle.distributed.all_gather in static mode is not "
                                  "supported by pyfluid; use it in dynamic mode")
    comm = world()
    array = _array(tensor)
    parts = np.split(comm.allgather(array.reshape((1,) + array.shape)), comm.size)
    parts = [p.reshape(array.shape) for p in parts]
    if tensor_list and len(tensor_list) != comm.size:
        raise ValueError(f"tensor_list has {len(tensor_list)} tensors but there are "
                         f"{comm.size} ranks; pass an empty list or one tensor per rank")
    if not tensor_list:
        tensor_list.extend(Tensor._wrap(p) for p in parts)
    else:
        for target, part in zip(tensor_list, parts):
            _assign(target, part)
    return None


def barrier(group: Group | None = None) -> None:
    """Wait until every rank reaches this call."""
    world().barrier()


def _array(tensor: Any) -> np.ndarray:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"expected a paddle Tensor, got {type(tensor).__name__}")
    return tensor._array


def _assign(tensor: Tensor, value: np.ndarray) -> None:
    tensor._array = np.ascontiguousarray(value, dtype=tensor._array.dtype)
    tensor._version += 1
