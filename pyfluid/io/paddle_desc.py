"""What Paddle 2.6.2 puts in a saved inference program beyond the op declarations: which
attributes and outputs ``Program._remove_training_info(clip_extra=True)`` clips, the input
slots ``Operator`` writes, and the ``op_version_map`` it records. The tables were read from a
real PaddlePaddle 2.6.2 (``OpProtoHolder`` protos, ``core.get_op_extra_attrs``) and from the
files it writes (../shared/fixtures/paddle); docs/interop.md lists what still differs."""
from __future__ import annotations

from ..framework.operator import Operator
from ..framework.program import Program
from ..ops.registry import COMMON_ATTRS
from ..ops.types import VarType

# Ops whose Paddle 2.6 extra-attribute map is empty. For them Paddle clips only the
# attributes its proto does not declare, so op_callstack and with_quant_attr stay; for every
# other op it drops the extra attributes plus op_callstack and with_quant_attr.
OPS_WITHOUT_EXTRA_ATTRS = frozenset({
    "accuracy", "adam", "adamw", "arg_max", "assign", "assign_value", "cast", "cross_entropy",
    "cross_entropy2", "equal", "fc", "feed", "fetch", "fill_any_like",
    "flatten_contiguous_range", "fused_elemwise_activation", "greater_equal", "greater_than",
    "hard_sigmoid", "increment", "less_equal", "less_than", "lod_array_length", "logical_and",
    "logical_not", "logical_or", "logical_xor", "mean", "momentum", "not_equal", "py_func",
    "read_from_array", "select_input", "select_output", "softmax_with_cross_entropy", "split",
    "sum", "tensor_array_to_tensor", "top_k", "top_k_v2", "truncated_gaussian_random",
    "uniform_random", "unsqueeze2", "write_to_array",
})
# Attributes pyfluid declares as ordinary ones (its kernels read them) that Paddle 2.6 lists
# as extra, so a saved program has none of them.
DECLARED_EXTRA_ATTRS = {
    "dropout": frozenset({"fix_seed", "seed"}),
    "lookup_table_v2": frozenset({"is_distributed", "is_sparse", "remote_prefetch"}),
    "relu6": frozenset({"threshold"}),
    "swish": frozenset({"beta"}),
}
# Runtime-only attributes that are extra wherever they appear.
RUNTIME_ATTRS = frozenset({"use_mkldnn", "mkldnn_data_type", "use_quantizer"})
_CALLSTACK_ATTRS = frozenset({"op_callstack", "with_quant_attr"})

# Output slots whose VarDesc Paddle's compile-time shape inference leaves without a lod_level
# (their infer-meta does not share the input's LoD); every other op output gets lod_level 0.
OUTPUTS_WITHOUT_LOD = {
    "abs": ("Out",), "accuracy": ("Correct", "Total"), "arg_max": ("Out",),
    "batch_norm": ("SavedMean", "SavedVariance", "ReserveSpace"), "conv2d": ("Output",),
    "depthwise_conv2d": ("Output",), "dropout": ("Mask",), "fill_constant": ("Out",),
    "layer_norm": ("Mean", "Variance"), "matmul_v2": ("Out",), "reduce_max": ("Out",),
    "reduce_mean": ("Out",), "reduce_min": ("Out",), "reduce_prod": ("Out",),
    "reduce_sum": ("Out",), "transpose2": ("Out",),
}
# Ops whose Out shares the LoD of X only when their first dims are equal (compile time).
LOD_IF_SAME_FIRST_DIM = frozenset({"reshape2", "squeeze2", "unsqueeze2",
                                   "flatten_contiguous_range"})

# Paddle 2.6.2 writes its whole op-version registry into every saved program, in this order.
OP_VERSION_MAP = (
    ("distribute_fpn_proposals", 2), ("elementwise_add", 1), ("elementwise_sub", 1),
    ("send_and_recv", 1), ("matrix_nms", 1), ("lstsq", 1), ("quantize", 2),
    ("depthwise_conv2d_transpose", 1), ("rank_attention", 1), ("roi_pool", 2), ("mish", 1),
    ("generate_proposals_v2", 1), ("flip", 1), ("collect_fpn_proposals", 1),
    ("fill_constant", 2), ("cumsum", 1), ("instance_norm", 1), ("coalesce_tensor", 2),
    ("for_pybind_test__", 4), ("lamb", 1), ("p_norm", 1), ("momentum", 1), ("cudnn_lstm", 1),
    ("hard_shrink", 1), ("transfer_layout", 1), ("conv3d_transpose", 1),
    ("fake_channel_wise_quantize_abs_max", 1), ("conv2d_transpose", 2), ("pixel_shuffle", 1),
    ("gather", 1), ("lookup_table", 1), ("depthwise_conv2d", 1), ("greater_equal", 1),
    ("dequantize", 1), ("generate_proposal_labels", 2), ("conv2d", 1), ("yolo_box", 1),
    ("less_equal", 1), ("linspace", 1), ("roll", 2), ("grid_sampler", 1), ("affine_grid", 1),
    ("allclose", 2), ("conv3d", 1), ("clip", 1), ("roi_align", 3), ("auc", 1),
    ("elementwise_div", 1), ("leaky_relu", 1), ("trace", 1), ("softplus", 1), ("print", 1),
    ("unique_consecutive", 1), ("elementwise_mul", 1), ("set_value", 4), ("seed", 1),
    ("requantize", 1), ("less_than", 1), ("data_norm", 1), ("matmul", 1),
    ("generate_proposals", 2), ("elementwise_pow", 1), ("lookup_table_v2", 1), ("equal", 1),
    ("greater_than", 1), ("not_equal", 1), ("moving_average_abs_max_scale", 2),
    ("fake_channel_wise_dequantize_max_abs", 2),
)


def add_empty_input_slots(program: Program) -> None:
    """Give every op each input slot its declaration has, empty when not given, as Paddle's
    ``Operator`` records them (``scale`` gets ``ScaleTensor: []``)."""
    for block in program.blocks:
        for op in block.ops:
            missing = [s.name for s in op.opdef.inputs if s.name not in op.inputs] \
                if op.opdef is not None else []
            if missing:
                op.inputs = dict(sorted({**op.inputs, **{name: [] for name in missing}}.items()))


def set_lod_levels(program: Program) -> None:
    """lod_level 0 on the non-persistable LoDTensor outputs that Paddle's shape inference
    gives one (see OUTPUTS_WITHOUT_LOD); variables that already have a level keep it."""
    for block in program.blocks:
        for op in block.ops:
            skip = OUTPUTS_WITHOUT_LOD.get(op.type, ())
            if op.type in LOD_IF_SAME_FIRST_DIM and not _same_first_dim(block, op):
                skip = ("Out",)
            for slot, names in op.outputs.items():
                if slot in skip:
                    continue
                for name in names:
                    var = block.vars.get(name)
                    if var is not None and var._lod_level is None and not var.persistable \
                            and var.type == VarType.LOD_TENSOR:
                        var._lod_level = 0


def _same_first_dim(block, op: Operator) -> bool:
    x, out = block.vars.get(op.input("X")[0]), block.vars.get(op.output("Out")[0])
    if x is None or out is None:
        return False
    x_shape, out_shape = x.shape or (), out.shape or ()
    return bool(x_shape) and bool(out_shape) and x_shape[0] == out_shape[0]


def clip_extra(op: Operator) -> None:
    """Paddle's ``clip_extra`` for one op: drop extra outputs, and attributes the op does not
    declare; ops with extra attributes also lose those, op_callstack and with_quant_attr.
    (Paddle keeps undeclared attributes of such ops, but in a program loaded from Paddle the
    attributes pyfluid does not declare are Paddle's extra ones: use_cudnn, is_test, ...)"""
    opdef = op.opdef
    if opdef is None:
        return
    for slot in opdef.outputs:
        if slot.extra:
            op.outputs.pop(slot.name, None)
    declared = opdef.attrs.keys() | COMMON_ATTRS.keys()
    if op.type in OPS_WITHOUT_EXTRA_ATTRS:
        dropped = frozenset()
        declared |= opdef.extra_attrs.keys()
    else:
        dropped = (opdef.extra_attrs.keys() | DECLARED_EXTRA_ATTRS.get(op.type, frozenset())
                   | RUNTIME_ATTRS | _CALLSTACK_ATTRS)
    for name in [n for n in op.attrs if n not in declared or n in dropped]:
        op._remove_attr(name)
