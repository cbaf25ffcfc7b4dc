"""Layers' ops: matmul_v2, mul, fc, fused_elemwise_activation, batch_norm, layer_norm,
dropout and lookup_table_v2."""
from __future__ import annotations

import numpy as np

from .convert_math import aligned_pair
from .convert_shape import dims
from .registry import converter


def _swap_last(g, x: str, rank: int) -> str:
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return g.op("Transpose", x, perm=perm)


@converter("matmul_v2")
def matmul_v2(g, n):
    """1-D operands ignore trans_x / trans_y (NumPy's matmul rules, as Paddle)."""
    x, y = n.input("X"), n.input("Y")
    if n.attr("trans_x") and n.rank("X") >= 2:
        x = _swap_last(g, x, n.rank("X"))
    if n.attr("trans_y") and n.rank("Y") >= 2:
        y = _swap_last(g, y, n.rank("Y"))
    g.op("MatMul", x, y, outputs=[n.output("Out")])


def _flat_matmul(g, n, x: str, x_slot: str, k: int, w: str) -> tuple[str, bool]:
    """``flatten(x, k) @ w`` and whether x had to be flattened (then the result is reshaped to
    x's leading dims + w's columns)."""
    flat = n.rank(x_slot) != 2 or k != 1
    return g.op("MatMul", g.op("Flatten", x, axis=k) if flat else x, w), flat


def _unflatten(g, n, value: str, x: str, x_slot: str, k: int, tail: str, out: str) -> None:
    lead = dims(g, x, n.shape(x_slot), 0, k)
    g.reshape(value, g.op("Concat", lead, tail, axis=0), out=out)


@converter("mul")
def mul(g, n):
    """Both operands flattened to matrices (x_num_col_dims / y_num_col_dims), then MatMul."""
    x, y, out = n.input("X"), n.input("Y"), n.output("Out")
    k, m = int(n.attr("x_num_col_dims")), int(n.attr("y_num_col_dims"))
    if n.rank("X") == 2 and k == 1 and n.rank("Y") == 2 and m == 1:
        g.op("MatMul", x, y, outputs=[out])
        return
    y_flat = y if n.rank("Y") == 2 and m == 1 else g.op("Flatten", y, axis=m)
    product, _ = _flat_matmul(g, n, x, "X", k, y_flat)
    _unflatten(g, n, product, x, "X", k, dims(g, y, n.shape("Y"), m), out)


@converter("fc")
def fc(g, n):
    """``act(flatten(Input, in_num_col_dims) @ W + Bias)``."""
    w = n.input("W")
    if n.attr("padding_weights"):
        w = g.op("Slice", w, g.ints([0, 0]), g.ints([-4, -4]), g.ints([0, 1]))
    _fc(g, n, w, n.shape("W")[1] - (4 if n.attr("padding_weights") else 0))


@converter("fc_weight_transpose")
def fc_weight_transpose(g, n):
    g.op("Transpose", n.input("W"), perm=[1, 0], outputs=[n.output("Out")])


@converter("fc_transposed")
def fc_transposed(g, n):
    """fc from its transposed weight WT (framework/passes/fc_transposed.py)."""
    _fc(g, n, g.op("Transpose", n.input("WT"), perm=[1, 0]), n.shape("WT")[0])


def _fc(g, n, w, cols: int):
    x, out = n.input("Input"), n.output("Out")
    activation = n.attr("activation_type") or ""
    if activation not in ("", "relu"):
        n.fail(f"activation_type {activation!r} is not supported (fc supports '' and 'relu')")
    k = int(n.attr("in_num_col_dims"))
    value, flat = _flat_matmul(g, n, x, "Input", k, w)
    steps = []
    if n.has("Bias"):
        steps.append(lambda v, **o: g.op("Add", v, g.reshape(n.input("Bias"), [-1]), **o))
    if activation == "relu":
        steps.append(lambda v, **o: g.op("Relu", v, **o))
    for i, step in enumerate(steps):
        last = i == len(steps) - 1 and not flat
        value = step(value, **({"outputs": [out]} if last else {}))
    if flat:
        _unflatten(g, n, value, x, "Input", k, g.ints([cols]), out)
    elif not steps:
        g.op("Identity", value, outputs=[out])


@converter("fused_elemwise_activation")
def fused_elemwise_activation(g, n):
    """``relu(binary(X, Y))``: functor_list = [unary, binary]."""
    functors = list(n.attr("functor_list"))
    binary = {"elementwise_add": "Add", "elementwise_mul": "Mul"}
    if len(functors) != 2 or functors[0] != "relu" or functors[1] not in binary:
        n.fail(f"functor_list {functors} is not supported (expected ['relu', "
               "'elementwise_add' | 'elementwise_mul'])")
    x, y = aligned_pair(g, n)
    wants_intermediate = n.has_output("IntermediateOut") and n.attr("save_intermediate_out")
    inner = g.op(binary[functors[1]], x, y,
                 **({"outputs": [n.output("IntermediateOut")]} if wants_intermediate else {}))
    g.op("Relu", inner, outputs=[n.output("Out")])


# -- normalization ---------------------------------------------------------------------------
def _channel_axis(n) -> int:
    rank = n.rank("X")
    return rank - 1 if n.attr("data_layout") == "NHWC" or rank == 2 else 1


@converter("batch_norm")
def batch_norm(g, n):
    """Running statistics (is_test, use_global_stats) or the batch's own, as Paddle picks."""
    x, rank, dtype = n.input("X"), n.rank("X"), n.np_dtype("X")
    axis = _channel_axis(n)
    stat_shape = [-1 if i == axis else 1 for i in range(rank)]
    eps = g.scalar(n.attr("epsilon"), dtype)
    use_global = (n.attr("is_test") and not n.attr("trainable_statistics")) or \
        n.attr("use_global_stats")
    if use_global and axis == 1:
        g.op("BatchNormalization", x, n.input("Scale"), n.input("Bias"), n.input("Mean"),
             n.input("Variance"), epsilon=float(n.attr("epsilon")), outputs=[n.output("Y")])
        return
    if use_global:
        mean, variance = n.input("Mean"), n.input("Variance")
    else:
        axes = [i for i in range(rank) if i != axis]
        mean = g.reduce("ReduceMean", x, axes, False)
        centered = g.op("Sub", x, g.reshape(mean, stat_shape))
        variance = g.reduce("ReduceMean", g.op("Mul", centered, centered), axes, False)
    inv_std = g.op("Reciprocal", g.op("Sqrt", g.op("Add", variance, eps)))
    gain = g.reshape(g.op("Mul", n.input("Scale"), inv_std), stat_shape)
    centered = g.op("Sub", x, g.reshape(mean, stat_shape))
    g.op("Add", g.op("Mul", centered, gain), g.reshape(n.input("Bias"), stat_shape),
         outputs=[n.output("Y")])
    if not use_global and n.has_output("SavedMean"):
        g.op("Identity", mean, outputs=[n.output("SavedMean")])
        g.op("Identity", inv_std, outputs=[n.output("SavedVariance")])


@converter("layer_norm")
def layer_norm(g, n):
    """Normalizes over the dims from begin_norm_axis; Scale and Bias are flat vectors."""
    x, shape, dtype = n.input("X"), n.shape("X"), n.np_dtype("X")
    begin = int(n.attr("begin_norm_axis"))
    axes = list(range(begin, len(shape)))
    eps = float(n.attr("epsilon"))
    tail = shape[begin:]
    affine_shape = list(tail) if min(tail) >= 0 else None
    if g.opset >= 17 and affine_shape is not None:
        ones = lambda: g.const(np.ones(affine_shape, dtype))  # noqa: E731
        scale = g.reshape(n.input("Scale"), affine_shape) if n.has("Scale") else ones()
        inputs = [x, scale]
        if n.has("Bias"):
            inputs.append(g.reshape(n.input("Bias"), affine_shape))
        g.op("LayerNormalization", *inputs, axis=begin, epsilon=eps,
             outputs=[n.output("Y")])
        return
    mean = g.reduce("ReduceMean", x, axes, True)
    centered = g.op("Sub", x, mean)
    variance = g.reduce("ReduceMean", g.op("Mul", centered, centered), axes, True)
    y = g.op("Div", centered, g.op("Sqrt", g.op("Add", variance, g.scalar(eps, dtype))))
    tail_shape = dims(g, x, shape, begin)
    if n.has("Scale"):
        y = g.op("Mul", y, g.reshape(n.input("Scale"), tail_shape))
    if n.has("Bias"):
        y = g.op("Add", y, g.reshape(n.input("Bias"), tail_shape))
    g.op("Identity", y, outputs=[n.output("Y")])


@converter("dropout")
def dropout(g, n):
    """Inference only: downgrade_in_infer scales by 1 - p, upscale_in_train passes through."""
    if not n.attr("is_test"):
        n.fail("dropout in training mode (is_test=False) draws random masks; export an "
               "inference program (program.clone(for_test=True), or export_onnx, which "
               "sets is_test)")
    x, out = n.input("X"), n.output("Out")
    if n.attr("dropout_implementation") == "upscale_in_train":
        g.op("Identity", x, outputs=[out])
    else:
        keep = g.scalar(1.0 - n.attr("dropout_prob"), n.np_dtype("X"))
        g.op("Mul", x, keep, outputs=[out])


@converter("lookup_table_v2")
def lookup_table_v2(g, n):
    """Rows of W; the padding_idx row reads as zeros."""
    w, ids, out = n.input("W"), n.input("Ids"), n.output("Out")
    padding = n.attr("padding_idx")
    if padding is None or padding == -1:
        g.op("Gather", w, ids, axis=0, outputs=[out])
        return
    rows = g.op("Gather", w, ids, axis=0)
    if padding < 0:
        padding += n.shape("W")[0]
    keep = g.op("Not", g.op("Equal", ids, g.scalar(padding, n.np_dtype("Ids"))))
    mask = g.unsqueeze(g.cast(keep, n.np_dtype("W")), [n.rank("Ids")])
    g.op("Mul", rows, mask, outputs=[out])



@converter("group_norm")
def group_norm(g, n):
    """Each sample's channels in ``groups`` groups normalized together, then per-channel
    Scale and Bias."""
    x, shape, dtype = n.input("X"), n.shape("X"), n.np_dtype("X")
    channel_last = n.attr("data_layout") == "NHWC"
    if channel_last:
        perm = [0, len(shape) - 1] + list(range(1, len(shape) - 1))
        x = g.op("Transpose", x, perm=perm)
    grouped = g.reshape(x, [0, int(n.attr("groups")), -1])
    mean = g.reduce("ReduceMean", grouped, [2], True)
    centered = g.op("Sub", grouped, mean)
    variance = g.reduce("ReduceMean", g.op("Mul", centered, centered), [2], True)
    eps = g.scalar(n.attr("epsilon"), dtype)
    normed = g.reshape(g.op("Div", centered, g.op("Sqrt", g.op("Add", variance, eps))),
                       g.shape(x))
    per_channel = [-1] + [1] * (len(shape) - 2)
    if n.has("Scale"):
        normed = g.op("Mul", normed, g.reshape(n.input("Scale"), per_channel))
    if n.has("Bias"):
        normed = g.op("Add", normed, g.reshape(n.input("Bias"), per_channel))
    if channel_last:
        normed = g.op("Transpose", normed, perm=[0] + list(range(2, len(shape))) + [1])
    g.op("Identity", normed, outputs=[n.output("Y")])


@converter("instance_norm")
def instance_norm(g, n):
    x, dtype, channels = n.input("X"), n.np_dtype("X"), n.shape("X")[1]
    if (not n.has("Scale") or not n.has("Bias")) and channels < 0:
        n.fail("instance_norm without Scale/Bias needs the channel count, unknown here")
    scale = n.input("Scale") if n.has("Scale") else g.const(np.ones(channels, dtype))
    bias = n.input("Bias") if n.has("Bias") else g.const(np.zeros(channels, dtype))
    g.op("InstanceNormalization", x, scale, bias, epsilon=float(n.attr("epsilon")),
         outputs=[n.output("Y")])


@converter("bmm")
def bmm(g, n):
    g.op("MatMul", n.input("X"), n.input("Y"), outputs=[n.output("Out")])


@converter("einsum")
def einsum(g, n):
    g.op("Einsum", *n.inputs("Operands"), equation=n.attr("equation"),
         outputs=[n.output("Out")])
