"""``fleet.DistributedStrategy``, reduced to what collective data parallelism reads; the
other switches of Paddle's strategy may be read and set, and the ones that would change the
training (amp, recompute, sharding...) are refused when the program is built."""
from __future__ import annotations

from typing import Any

from ...static import BuildStrategy

# Paddle 2.6's defaults
_DEFAULTS: dict[str, Any] = {
    "without_graph_optimization": True, "fuse_all_reduce_ops": True,
    "fuse_grad_size_in_num": 8, "fuse_grad_size_in_MB": 32, "_calc_comm_same_stream": False,
    "nccl_comm_num": 1, "sync_nccl_allreduce": True, "use_hierarchical_allreduce": False,
    "find_unused_parameters": False, "last_comm_group_size_MB": 1,
}
# features that change what the program computes: not supported (False is Paddle's default)
UNSUPPORTED = ("amp", "recompute", "sharding", "pipeline", "tensor_parallel", "gradient_merge",
               "localsgd", "adaptive_localsgd", "dgc", "lars", "lamb", "a_sync", "heter_ccl_mode",
               "qat", "asp", "fp16_allreduce", "hybrid_configs")


class DistributedStrategy:
    """Paddle's ``paddle.distributed.fleet.DistributedStrategy`` for collective training."""

    def __init__(self) -> None:
        object.__setattr__(self, "_values", dict(_DEFAULTS))
        object.__setattr__(self, "build_strategy", BuildStrategy())
        for name in UNSUPPORTED:
            self._values[name] = False

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"DistributedStrategy has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "build_strategy" or isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
            return
        if name not in self._values and not name.endswith("_configs"):
            raise AttributeError(f"DistributedStrategy has no attribute {name!r}")
        self._values[name] = value

    @property
    def calc_comm_same_stream(self) -> bool:
        return bool(self._values["_calc_comm_same_stream"])

    @calc_comm_same_stream.setter
    def calc_comm_same_stream(self, value: bool) -> None:
        self._values["_calc_comm_same_stream"] = bool(value)

    def check_supported(self) -> None:
        enabled = [name for name in UNSUPPORTED if self._values.get(name)]
        if enabled:
            raise NotImplementedError(
                f"DistributedStrategy: {', '.join(enabled)} is not supported by pyfluid, which "
                "trains data-parallel only (collective all-reduce of gradients); set it to False")
        if int(self._values["nccl_comm_num"]) != 1:
            raise NotImplementedError("DistributedStrategy.nccl_comm_num must be 1: pyfluid "
                                      "communicates on one ring, the MPI world")

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self._values.items() if not k.startswith("_"))
        return f"DistributedStrategy({shown})"
