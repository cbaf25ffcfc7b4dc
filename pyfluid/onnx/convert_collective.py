"""Ops of data-parallel programs (pyfluid.distributed). The stream-ordering ops pass values
through; the collectives move data between processes, which one ONNX model cannot do: export
the single-process model (the test program, or the program before fleet rewrote it)."""
from __future__ import annotations

from .registry import converter, unsupported


@converter("depend", "c_sync_calc_stream")
def pass_through(g, n):
    g.op("Identity", n.input("X"), outputs=[n.output("Out")])


@converter("c_sync_comm_stream")
def pass_through_all(g, n):
    for i, x in enumerate(n.inputs("X")):
        g.op("Identity", x, outputs=[n.output("Out", i)])


_REASON = ("it communicates with the other processes of a data-parallel job; export the "
           "single-process model (e.g. the program cloned for test before fleet's "
           "distributed_optimizer rewrote it)")
for _op_type in ("c_allreduce_sum", "c_allreduce_max", "c_allreduce_min", "c_allreduce_prod",
                 "c_allreduce_start", "c_allreduce_wait", "c_allgather", "c_broadcast",
                 "barrier", "c_comm_init", "c_gen_nccl_id", "coalesce_tensor"):
    unsupported(_op_type, _REASON)
