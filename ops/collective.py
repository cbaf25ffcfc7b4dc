"""Paddle's collective ops (the ones ``fleet`` writes into data-parallel programs), with the
slots and attributes of Paddle 2.6. Kernels reach the other ranks through the communicator of
their ``ring_id`` (ops/comm.py), so this module imports no MPI.

On one process the communicator is :class:`~.comm.LocalCommunicator` and every collective is
the identity. Paddle's stream ops (``c_sync_calc_stream``, ``c_sync_comm_stream``,
``depend``) order GPU streams; here kernels run in program order, so they pass values through.
``c_gen_nccl_id`` and ``c_comm_init`` set up the communicator: the id is a token (MPI needs no
exchanged id) and ``c_comm_init`` joins the world of ``nranks`` processes.

``c_allreduce_start`` / ``c_allreduce_wait`` are pyfluid's own: the Executor rewrites a
program's gradient all-reduces into them when it compiles a plan (executor/collectives.py),
so a bucket's reduction runs while the rest of backward computes. They never appear in a
program a user builds, prints or saves.
"""
from __future__ import annotations

import numpy as np

from .comm import REDUCE_OPS, CommunicatorError, Layout, communicator, connect, start_bucket
from .registry import register_op, same_as
from .types import AttrType, Meta, VarType, to_numpy_dtype

_COMM_ATTRS = {"ring_id": 0, "use_calc_stream": False}


def register_collective(op_type: str, **declaration):
    """An op every rank must run: ``side_effects`` tells graph passes never to drop it
    (framework/passes/graph.py)."""
    opdef = register_op(op_type, **declaration)
    opdef.side_effects = True
    return opdef


def _allreduce(op_name: str, reduce: str, inputs: list):
    opdef = register_collective(op_name, inputs=inputs, outputs=["Out"],
                        attrs={**_COMM_ATTRS, "use_model_parallel": False},
                        infer_shape=same_as(), differentiable=False)

    def kernel(x, cond=None, *, ring_id):
        if cond is not None and not bool(np.asarray(cond).reshape(-1)[0]):
            return np.array(x, copy=True)   # Paddle's Cond: no reduction when it is false
        return communicator(ring_id).allreduce(x, reduce)

    if len(inputs) == 1:
        opdef.def_kernel(lambda x, *, ring_id: kernel(x, None, ring_id=ring_id))
    else:
        opdef.def_kernel(kernel)
    return opdef


c_allreduce_sum = _allreduce("c_allreduce_sum", "sum", ["X", "Cond?"])
c_allreduce_max = _allreduce("c_allreduce_max", "max", ["X"])
c_allreduce_min = _allreduce("c_allreduce_min", "min", ["X"])
c_allreduce_prod = _allreduce("c_allreduce_prod", "prod", ["X"])
assert {"sum", "max", "min", "prod"} == set(REDUCE_OPS)

c_broadcast = register_collective("c_broadcast", inputs=["X"], outputs=["Out"],
                          attrs={**_COMM_ATTRS, "root": 0}, infer_shape=same_as(),
                          differentiable=False)


@c_broadcast.def_kernel
def c_broadcast_kernel(x, *, ring_id, root):
    return communicator(ring_id).broadcast(x, root)


def _allgather_shape(x: Meta, *, nranks: int, **_) -> Meta:
    if not x.shape:
        return x
    first = x.shape[0] * nranks if x.shape[0] >= 0 else -1
    return Meta((first,) + tuple(x.shape[1:]), x.dtype)


c_allgather = register_collective("c_allgather", inputs=["X"], outputs=["Out"],
                          attrs={**_COMM_ATTRS, "nranks": 1}, infer_shape=_allgather_shape,
                          differentiable=False)


@c_allgather.def_kernel
def c_allgather_kernel(x, *, ring_id, nranks):
    comm = communicator(ring_id)
    if nranks != comm.size:
        raise CommunicatorError(f"c_allgather: attribute nranks is {nranks} but the "
                                f"communicator of ring_id {ring_id} has {comm.size} ranks")
    return comm.allgather(x)


barrier = register_collective("barrier", inputs=["X"], outputs=["Out"], attrs={"ring_id": 0},
                      infer_shape=same_as(), differentiable=False,
                      views_input=True)


@barrier.def_kernel
def barrier_kernel(x, *, ring_id):
    communicator(ring_id).barrier()
    return x


c_sync_calc_stream = register_op("c_sync_calc_stream", inputs=["X"], outputs=["Out"],
                                 infer_shape=same_as(), differentiable=False, views_input=True)
c_sync_calc_stream.def_kernel(lambda x: x)

c_sync_comm_stream = register_op("c_sync_comm_stream", inputs=["X*"], outputs=["Out*"],
                                 attrs={"ring_id": 0}, differentiable=False, views_input=True)
c_sync_comm_stream.def_kernel(lambda xs: list(xs))

depend = register_op("depend", inputs=["X", "Dep*"], outputs=["Out"], infer_shape=same_as(),
                     differentiable=False, views_input=True)
depend.def_kernel(lambda x, deps: x)

c_gen_nccl_id = register_collective("c_gen_nccl_id", outputs=["Out"],
                            attrs={"endpoint": "", "other_endpoints": (AttrType.STRINGS, []),
                                   "rank": 0, "ring_id": 0},
                            differentiable=False)


@c_gen_nccl_id.def_kernel
def c_gen_nccl_id_kernel():
    # NCCL needs an id exchanged over TCP before its communicator exists; MPI's world is
    # joined at start-up, so the id variable only carries a token for c_comm_init
    return np.zeros(0, dtype=np.uint8)


c_comm_init = register_collective("c_comm_init", inputs=["X"], outputs=[],
                          attrs={"nranks": 0, "rank": 0, "device_id": -1, "ring_id": 0,
                                 "endpoints": ""},
                          differentiable=False)


@c_comm_init.def_kernel
def c_comm_init_kernel(comm_id, *, nranks, rank, ring_id, endpoints):
    connect(ring_id, nranks, rank, endpoints)


def _coalesce_shapes(inputs, *, dtype, **_):
    """The outputs and the fused buffer keep their variables' shapes (the buffer's length is
    known only when the op runs: alignment and the inputs' sizes decide it)."""
    return [None] * len(inputs), None


coalesce_tensor = register_op(
    "coalesce_tensor", inputs=["Input*"], outputs=["Output*", "FusedOutput"],
    attrs={"dtype": 5, "copy_data": False, "set_constant": False, "persist_output": False,
           "constant": 0.0, "use_align": True, "align_size": -1,
           "user_defined_size_of_dtype": -1, "concated_shapes": (AttrType.LONGS, []),
           "concated_ranks": (AttrType.LONGS, [])},
    infer_shape=_coalesce_shapes, differentiable=False)


@coalesce_tensor.def_kernel
def coalesce_tensor_kernel(inputs, *, dtype, copy_data, set_constant, constant):
    """One contiguous buffer holding every input (copied when ``copy_data``, else filled with
    ``constant`` or zeros); the outputs are views of it, as Paddle's outputs share its memory."""
    layout = Layout([np.shape(x) for x in inputs])
    numpy_dtype = to_numpy_dtype(VarType(dtype))
    if copy_data:
        fused = layout.flatten(inputs, numpy_dtype)
    else:
        fused = np.full(layout.total, constant if set_constant else 0, dtype=numpy_dtype)
    return layout.split(fused), fused


# -- pyfluid's own: what the Executor runs in place of a bucket's all-reduce ----------------
c_allreduce_start = register_collective("c_allreduce_start", inputs=["X*"], outputs=["Out"],
                                attrs={"ring_id": 0, "reduce_type": "sum"},
                                differentiable=False)


@c_allreduce_start.def_kernel
def c_allreduce_start_kernel(xs, *, ring_id, reduce_type):
    """Flatten the bucket into one buffer and start reducing it; ``Out`` is the request."""
    return start_bucket(communicator(ring_id), xs, reduce_type)


c_allreduce_wait = register_collective("c_allreduce_wait", inputs=["X"], outputs=["Out*"],
                               differentiable=False)


@c_allreduce_wait.def_kernel
def c_allreduce_wait_kernel(pending):
    """The bucket's arrays, reduced (views of its flat buffer)."""
    return pending.wait()
