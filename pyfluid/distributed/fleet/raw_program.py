"""The program rewrite of Paddle 2.6's ``RawProgramOptimizer`` (collective data parallelism,
the meta optimizer ``fleet`` picks by default), writing the ops Paddle writes:

- startup: ``c_gen_nccl_id`` + ``c_comm_init`` (join the ranks), a sync all-reduce
  (``fill_constant`` + ``c_allreduce_sum`` + ``c_sync_calc_stream``), then ``c_broadcast`` of
  every parameter from rank 0 and one ``c_sync_comm_stream``;
- main: ``scale`` of the loss gradient by ``1/nranks`` and ``c_allreduce_sum`` of the
  gradients, fused (the default: ``coalesce_tensor`` into buckets of ``fuse_grad_size_in_num``
  gradients, one all-reduce per bucket after its last gradient, ``depend`` ops ordering the
  updates after it) or one per gradient.
"""
from __future__ import annotations

import os

from ...framework import unique_name
from ...framework.program import Program
from ...framework.variable import Parameter
from ...ops.registry import EMPTY_VAR, ROLE_BACKWARD, ROLE_FORWARD, ROLE_LOSS, ROLE_OPTIMIZE
from ...ops.types import VarType

RING_ID = 0


def _role(op) -> int:
    return int(op.attrs.get("op_role", ROLE_FORWARD))


def is_backward_op(op) -> bool:
    return bool(_role(op) & ROLE_BACKWARD)


def is_optimizer_op(op) -> bool:
    return bool(_role(op) & ROLE_OPTIMIZE)


def init_communicator(startup: Program, endpoints: list[str], rank: int) -> None:
    """Join the ranks (ring 0) and check every rank got there."""
    block = startup.global_block()
    current = endpoints[rank]
    others = [e for e in endpoints if e != current]
    comm_id = block.create_var(name=unique_name.generate("comm_id"), persistable=True,
                               type=VarType.RAW)
    block.append_op(type="c_gen_nccl_id", inputs={}, outputs={"Out": [comm_id]},
                    attrs={"rank": rank, "endpoint": current, "other_endpoints": others,
                           "ring_id": RING_ID, "op_role": ROLE_FORWARD})
    block.append_op(type="c_comm_init", inputs={"X": [comm_id]}, outputs={},
                    attrs={"nranks": len(endpoints), "rank": rank, "ring_id": RING_ID,
                           "endpoints": ",".join(endpoints), "op_role": ROLE_FORWARD})
    sync_var = block.create_var(name=unique_name.generate("sync_var"), dtype=VarType.INT32,
                                persistable=False, stop_gradient=True)
    block.append_op(type="fill_constant", inputs={}, outputs={"Out": [sync_var]},
                    attrs={"shape": [1], "dtype": int(VarType.INT32), "value": 1.0,
                           "force_cpu": False, "op_role": ROLE_FORWARD})
    block.append_op(type="c_allreduce_sum", inputs={"X": [sync_var]},
                    outputs={"Out": [sync_var]},
                    attrs={"ring_id": RING_ID, "use_calc_stream": True,
                           "op_role": ROLE_FORWARD})
    block.append_op(type="c_sync_calc_stream", inputs={"X": [sync_var]},
                    outputs={"Out": [sync_var]}, attrs={"op_role": ROLE_FORWARD})


def broadcast_params(startup: Program) -> None:
    """Every rank starts from rank 0's parameters."""
    block = startup.global_block()
    params = sorted((v for v in block.vars.values() if isinstance(v, Parameter)
                     and not getattr(v, "is_distributed", False)), key=lambda v: v.name)
    for param in params:
        block.append_op(type="c_broadcast", inputs={"X": [param]}, outputs={"Out": [param]},
                        attrs={"ring_id": RING_ID, "root": 0, "op_role": ROLE_FORWARD})
    if params:
        block.append_op(type="c_sync_comm_stream", inputs={"X": [params[-1]]},
                        outputs={"Out": [params[-1]]},
                        attrs={"ring_id": RING_ID, "op_role": ROLE_FORWARD})


def scale_loss_grad(main: Program, nranks: int) -> None:
    """The mean over ranks: each rank's loss gradient times ``1/nranks``."""
    block = main.global_block()
    for index in range(len(block.ops) - 1, -1, -1):
        op = block.ops[index]
        if _role(op) == ROLE_BACKWARD | ROLE_LOSS:
            grad = op.output_arg_names[0]
            block._insert_op(index + 1, type="scale", inputs={"X": [grad]},
                             outputs={"Out": [grad]},
                             attrs={"scale": 1.0 / nranks, "op_role": ROLE_BACKWARD})


def _param_grads(block) -> list[tuple]:
    """(param, grad) variables named by the op_role_var of backward ops, in op order."""
    pairs = []
    for op in block.ops:
        names = op.attrs.get("op_role_var") or []
        if not is_backward_op(op) or not names:
            continue
        for i in range(0, len(names), 2):
            param = block.var(names[i])
            if not getattr(param, "is_distributed", False):
                pairs.append((param, block.var(names[i + 1])))
    return pairs


def insert_allreduce_ops(main: Program) -> None:
    """One ``c_allreduce_sum`` per gradient, right after the op that produced it."""
    block = main.global_block()
    for index in range(len(block.ops) - 1, -1, -1):
        op = block.ops[index]
        names = op.attrs.get("op_role_var") or []
        if not is_backward_op(op) or not names:
            continue
        for i in range(0, len(names), 2):
            if getattr(block.var(names[i]), "is_distributed", False):
                continue
            block._insert_op(index + 1, type="c_allreduce_sum",
                             inputs={"X": [names[i + 1]]}, outputs={"Out": [names[i + 1]]},
                             attrs={"ring_id": RING_ID, "op_role": ROLE_BACKWARD})


def _output_positions(block, first_backward: int) -> dict[str, tuple[int, int]]:
    """var name -> (index of the first, of the last backward op writing it)."""
    positions: dict[str, tuple[int, int]] = {}
    for index in range(first_backward, len(block.ops)):
        op = block.ops[index]
        if is_optimizer_op(op):
            break
        for name in op.output_arg_names:
            if name != EMPTY_VAR:
                first = positions.get(name, (index, index))[0]
                positions[name] = (first, index)
    return positions


def fuse_allreduce_ops(main: Program, bucket_size: int, same_stream: bool) -> None:
    """Buckets of ``bucket_size`` gradients of one dtype: ``coalesce_tensor`` before backward,
    one ``c_allreduce_sum`` of the fused buffer after the bucket's last gradient."""
    block = main.global_block()
    first_backward = next((i for i, op in enumerate(block.ops) if is_backward_op(op)), -1)
    pairs = _param_grads(block)
    if not pairs:
        return
    positions = _output_positions(block, first_backward)
    by_dtype: dict = {}
    for param, grad in pairs:
        segments = by_dtype.setdefault(grad.dtype, [([], [])])
        if len(segments[-1][1]) == bucket_size:
            segments.append(([], []))
        segments[-1][0].append(grad)
        segments[-1][1].append(param)
    segments = [s for group in by_dtype.values() for s in group]
    segments.sort(key=lambda s: max(positions[g.name][1] for g in s[0]))
    sync_first = not same_stream and bool(os.environ.get("FLAGS_sync_before_allreduce"))
    fused = [None] * len(segments)
    for i in range(len(segments) - 1, -1, -1):
        grads = segments[i][0]
        fused[i] = block.create_var(name=unique_name.generate(f"FusedOutput_{grads[0].name}"),
                                    dtype=grads[0].dtype, persistable=False, stop_gradient=True)
        after = max(positions[g.name][1] for g in grads)
        block._insert_op(after + 1, type="c_allreduce_sum", inputs={"X": [fused[i]]},
                         outputs={"Out": [fused[i]]},
                         attrs={"ring_id": RING_ID, "use_calc_stream": same_stream,
                                "op_role": ROLE_BACKWARD})
        if sync_first:
            block._insert_op(after + 1, type="c_sync_calc_stream", inputs={"X": [fused[i]]},
                             outputs={"Out": [fused[i]]}, attrs={"op_role": ROLE_BACKWARD})
    if not same_stream and not sync_first:
        index = 0
        for i, (grads, _) in enumerate(segments):
            while not (block.ops[index].type == "c_allreduce_sum"
                       and fused[i].name in block.ops[index].input_arg_names):
                index += 1
            for grad in grads:
                index += 1
                block._insert_op(index, type="depend",
                                 inputs={"X": [grad], "Dep": [fused[i]]}, outputs={"Out": [grad]},
                                 attrs={"op_role": ROLE_FORWARD})
    # Paddle puts every bucket's coalesce_tensor where the first gradient op is
    before = min(first for first, _ in _output_positions(block, first_backward).values())
    for i in range(len(segments) - 1, -1, -1):
        grads, params = segments[i]
        block._insert_op(before, type="coalesce_tensor", inputs={"Input": params},
                         outputs={"Output": grads, "FusedOutput": [fused[i]]},
                         attrs={"copy_data": False, "use_align": True,
                                "dtype": int(grads[0].dtype), "op_role": ROLE_BACKWARD})
    if sync_first:
        index = next(i for i, op in enumerate(block.ops) if is_optimizer_op(op))
        block._insert_op(index, type="c_sync_comm_stream", inputs={"X": fused},
                         outputs={"Out": fused},
                         attrs={"ring_id": RING_ID, "op_role": ROLE_BACKWARD})
