"""``paddle.distributed.fleet`` for collective (data-parallel) training over MPI.

Static mode::

    fleet.init(is_collective=True)
    optimizer = fleet.distributed_optimizer(paddle.optimizer.SGD(0.1), strategy)
    optimizer.minimize(loss)          # Paddle's collective ops go into the programs

Dynamic mode: ``fleet.distributed_model(layer)`` is ``paddle.DataParallel(layer)``.
"""
from __future__ import annotations

from typing import Any

from ...framework.context import default_startup_program, in_dynamic_mode
from ...framework.variable import Variable
from ..collective import init_parallel_env
from ..mpi import DistributedError
from ..parallel import DataParallel
from ..world import endpoints, world
from . import raw_program
from .strategy import DistributedStrategy

__all__ = ["DistributedStrategy", "Fleet", "barrier_worker", "distributed_model",
           "distributed_optimizer", "init", "is_first_worker", "is_worker", "worker_endpoints",
           "worker_index", "worker_num"]


class Fleet:
    """The collective side of Paddle's ``Fleet`` (one instance: ``paddle.distributed.fleet``)."""

    def __init__(self) -> None:
        self._comm: Any = None
        self._endpoints: list[str] = []
        self._strategy: DistributedStrategy | None = None

    def init(self, role_maker: Any = None, is_collective: bool = False,
             strategy: DistributedStrategy | None = None, log_level: Any = "INFO") -> None:
        """Join the job: every process started by the launcher (or mpiexec) is one worker."""
        if not is_collective and role_maker is None:
            raise NotImplementedError("fleet.init: pyfluid supports collective training only; "
                                      "call fleet.init(is_collective=True)")
        if role_maker is not None and not getattr(role_maker, "_is_collective", True):
            raise NotImplementedError("fleet.init: parameter-server training is not supported; "
                                      "use a collective role maker")
        self._comm = world()
        self._endpoints = endpoints(self._comm)
        self._strategy = strategy
        if in_dynamic_mode():
            init_parallel_env()

    def _world(self) -> Any:
        if self._comm is None:
            raise DistributedError("call fleet.init(is_collective=True) first")
        return self._comm

    def worker_index(self) -> int:
        return self._world().rank

    def worker_num(self) -> int:
        return self._world().size

    def is_first_worker(self) -> bool:
        return self.worker_index() == 0

    def is_worker(self) -> bool:
        return True

    def is_server(self) -> bool:
        return False

    def server_num(self) -> int:
        return 0

    def worker_endpoints(self, to_string: bool = False):
        self._world()
        return ",".join(self._endpoints) if to_string else list(self._endpoints)

    def barrier_worker(self) -> None:
        self._world().barrier()

    def distributed_optimizer(self, optimizer: Any, strategy: DistributedStrategy | None = None
                              ) -> "DistributedOptimizer":
        strategy = strategy or self._strategy or DistributedStrategy()
        strategy.check_supported()
        return DistributedOptimizer(self, optimizer, strategy)

    def distributed_model(self, model: Any) -> DataParallel:
        self._world()
        return DataParallel(model)


class DistributedOptimizer:
    """What ``fleet.distributed_optimizer`` returns: the user's optimizer, whose static
    ``minimize`` also writes the collective ops (``RawProgramOptimizer``); every other
    attribute is the user's optimizer's."""

    def __init__(self, fleet: Fleet, optimizer: Any, strategy: DistributedStrategy):
        self._fleet, self.user_defined_optimizer, self.user_defined_strategy = (
            fleet, optimizer, strategy)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.user_defined_optimizer, name)

    def minimize(self, loss: Any, startup_program: Any = None, parameter_list: Any = None,
                 no_grad_set: Any = None) -> tuple:
        inner = self.user_defined_optimizer
        if not isinstance(loss, Variable):          # dynamic mode: gradients are averaged
            return inner.minimize(loss, startup_program, parameter_list, no_grad_set)
        comm = self._fleet._world()
        startup = startup_program or default_startup_program()
        result = inner.minimize(loss, startup, parameter_list, no_grad_set)
        if comm.size == 1:                          # Paddle adds nothing for one worker
            return result
        strategy = self.user_defined_strategy
        main = loss.block.program
        raw_program.init_communicator(startup, self._fleet._endpoints, comm.rank)
        raw_program.broadcast_params(startup)
        raw_program.scale_loss_grad(main, comm.size)
        if strategy.fuse_all_reduce_ops and int(strategy.fuse_grad_size_in_num) > 1:
            raw_program.fuse_allreduce_ops(main, int(strategy.fuse_grad_size_in_num),
                                           strategy.calc_comm_same_stream)
        else:
            raw_program.insert_allreduce_ops(main)
        return result


fleet = Fleet()
init = fleet.init
worker_index = fleet.worker_index
worker_num = fleet.worker_num
is_first_worker = fleet.is_first_worker
is_worker = fleet.is_worker
is_server = fleet.is_server
server_num = fleet.server_num
worker_endpoints = fleet.worker_endpoints
barrier_worker = fleet.barrier_worker
distributed_optimizer = fleet.distributed_optimizer
distributed_model = fleet.distributed_model
