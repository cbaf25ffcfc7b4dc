"""Control-flow ops: ``conditional_block`` and ``while`` (each runs the block named by its
``sub_block`` attribute), their grad ops, and ``select_input`` / ``select_output``, which pick
one of several values by an int32 mask (how ``cond`` merges its two branches).

The block-running ops have no kernel: the Executor compiles them into the plan itself, as an
``if`` or a ``while`` around the sub-block's code (executor/control_flow.py). Their outputs may
share buffers with their inputs (``may_alias``: a branch may pass a value, or a view of it,
out as it is). Their grad ops
are made by the framework's grad pass, which differentiates the sub-block into a grad block
(framework/grad_blocks.py). Slots, attributes and defaults are Paddle 2.6's.
"""
from __future__ import annotations

import numpy as np

from .registry import grad_name, register_op
from .types import AttrType

_BLOCK = (AttrType.BLOCK, 0)
_RUNTIME = {"skip_eager_deletion_vars": (AttrType.STRINGS, [])}

# -- ops that run a sub-block (compiled by the Executor) -----------------------------------------
register_op("conditional_block", inputs=["Cond*", "Input*"], outputs=["Out*", "Scope"],
            attrs={"sub_block": _BLOCK, "is_scalar_condition": False}, extra_attrs=_RUNTIME,
            has_kernel=False, may_alias=True)
register_op("conditional_block_grad",
            inputs=["Cond*", "Input*", "Out*", "Out@GRAD*", "Scope"], outputs=["Input@GRAD*"],
            attrs={"sub_block": _BLOCK, "is_scalar_condition": False}, extra_attrs=_RUNTIME,
            has_kernel=False, differentiable=False, may_alias=True)
register_op("while", inputs=["X*", "Condition*"], outputs=["Out*", "StepScopes"],
            attrs={"sub_block": _BLOCK, "is_test": False}, extra_attrs=_RUNTIME,
            has_kernel=False, may_alias=True)
register_op("while_grad", inputs=["X*", "Out*", "Out@GRAD*", "StepScopes"],
            outputs=["X@GRAD*"],
            attrs={"sub_block": _BLOCK, "is_test": False,
                   "original_output_grad": (AttrType.STRINGS, [])},
            extra_attrs=_RUNTIME, has_kernel=False, differentiable=False, may_alias=True)


# the ops whose ``sub_block`` the Executor runs
BLOCK_OPS = frozenset({"conditional_block", "conditional_block_grad", "while", "while_grad"})


# -- select_input / select_output -------------------------------------------------------------
def mask_index(mask: np.ndarray, op_type: str) -> int:
    mask = np.asarray(mask)
    if mask.size != 1:
        raise ValueError(f"(InvalidArgument) The numel of Input(Mask) in SelectInputOp or "
                         f"SelectOutputOp must be 1. But received {mask.size}, and it's shape "
                         f"is [{', '.join(str(d) for d in mask.shape)}].")
    return int(mask.reshape(-1)[0])


def _copy(value):
    return list(value) if isinstance(value, list) else np.array(value, copy=True)


def _select_input_shape(xs, mask):
    first, second = xs[0], xs[-1]
    if len(first.shape) != len(second.shape):
        return second
    return second._replace(shape=tuple(a if a == b else -1
                                       for a, b in zip(first.shape, second.shape)))


select_input = register_op("select_input", inputs=["X*", "Mask"], outputs=["Out"],
                           infer_shape=_select_input_shape,
                           runtime_shaped=["Out"])    # the picked branch may differ (Paddle)


@select_input.def_kernel
def select_input_kernel(xs, mask):
    index = mask_index(mask, "select_input")
    if not 0 <= index < len(xs):
        raise ValueError(f"(InvalidArgument) Input 'Mask' in SelectInputOp is invalid. 'Mask' "
                         f"must be less than the size of input vector 'X'. But received Mask = "
                         f"{index}, X's size = {len(xs)}.")
    return _copy(xs[index])


@select_input.def_grad_maker
def select_input_grad(op, no_grad_names: set) -> list[dict]:
    grads = [grad_name(x) for x in op.input("X")]
    if all(g in no_grad_names for g in grads):
        return []
    return [{"type": "select_output",
             "inputs": {"X": [grad_name(op.output("Out")[0])], "Mask": op.input("Mask")},
             "outputs": {"Out": grads}, "attrs": {}}]


select_output = register_op("select_output", inputs=["X", "Mask"], outputs=["Out*"],
                            reads_outputs=["Out"])


@select_output.def_kernel
def select_output_kernel(x, mask, outs):
    """X copied into ``Out[mask]``; the other outputs keep their values."""
    index = mask_index(mask, "select_output")
    if not 0 <= index < len(outs):
        raise ValueError(f"(InvalidArgument) Input 'Mask' in SelectOutputOp is invalid. 'Mask' "
                         f"must be less than the size of output vector 'Out'. But received "
                         f"Mask = {index}, Out's size = {len(outs)}.")
    result = list(outs)
    result[index] = _copy(x)
    return result


@select_output.def_grad_maker
def select_output_grad(op, no_grad_names: set) -> list[dict]:
    x = op.input("X")[0]
    if grad_name(x) in no_grad_names:
        return []
    return [{"type": "select_input",
             "inputs": {"X": [grad_name(o) for o in op.output("Out")], "Mask": op.input("Mask")},
             "outputs": {"Out": [grad_name(x)]}, "attrs": {}}]
