"""PIR op <-> legacy (Fluid) op: one line per ``pd_op``, read both ways.

Facts from Paddle 3.3.1's ProgramTranslator (the legacy -> PIR converter): run on one op of
every legacy type, it gave each PIR op's operand order, result order and attribute names and
JSON types (``tools/paddle_models/pir_op_facts.py`` re-derives them).

A line ``"pir_name": "legacy(operands -> results) | attrs"``:

* operands, in PIR order: ``X`` a tensor for legacy input slot X; ``X?`` optional (PIR's null
  value when the slot is empty); ``X*`` a ``builtin.combine`` vector for duplicable slot X;
  ``_`` no legacy counterpart; ``=attr:KIND|Single|List`` a PIR *mutable attribute*: a
  constant (``pd_op.full_int_array`` for ``ia``, ``pd_op.full`` of dtype KIND for scalars)
  that is the legacy attribute ``attr``, or else a tensor for legacy slot ``Single``, or a
  vector of scalar tensors for legacy slot ``List`` (either may be left out); ``=:KIND`` a
  constant (0) the legacy op does not have.
* results, in PIR order: a legacy output slot, ``Out*`` for a vector result (unpacked by
  ``builtin.split``), ``_`` for none, ``Slot@i`` for an in-place result that is operand i.
* attrs, in PIR order: ``name:KIND`` (same legacy name), ``name:KIND=legacy`` or
  ``name:KIND=~default`` (PIR only; written with this default), ``name:KIND=!default`` (PIR
  only, and a file with another value is refused: the legacy op has no such choice). KIND:
  b, i32, i64, f32, f64, s, arrays ``i32s`` ``i64s`` ``f32s`` ``f64s`` ``ss``, dtype, place,
  ia; ``dtype=~out`` writes the dtype of the first result.

Ops needing more than renames (reductions' ``reduce_all``, cast's dtypes, control flow...)
get hooks in :mod:`.lower` and :mod:`.raise_`; their lines still give the plain mapping."""
from __future__ import annotations

import ast
from typing import Any, NamedTuple

_U = "X -> Out"                    # the plain unary form
_B = "X, Y -> Out"                 # the plain binary form

TABLE = {
    # -- element-wise and activations --
    **{name: f"{name}({_U})" for name in (
        "abs", "ceil", "cos", "exp", "floor", "log", "logsigmoid", "reciprocal", "relu",
        "relu6", "rsqrt", "sigmoid", "sign", "silu", "sin", "softsign", "sqrt", "square",
        "tanh", "tanh_shrink", "logical_not", "tan", "acos", "asin", "atan", "cosh", "sinh",
        "erf", "expm1", "log1p", "log2", "log10", "trunc", "bitwise_not")},
    **{name: f"{name}_v2({_U})" for name in ("isfinite", "isnan", "isinf")},
    **{name: f"{name}({_B})" for name in (
        "equal", "not_equal", "greater_than", "greater_equal", "less_than", "less_equal",
        "logical_and", "logical_or", "logical_xor", "bmm", "elementwise_pow", "bitwise_and",
        "bitwise_or", "bitwise_xor")},
    "add": f"elementwise_add({_B})", "subtract": f"elementwise_sub({_B})",
    "multiply": f"elementwise_mul({_B})", "divide": f"elementwise_div({_B})",
    "maximum": f"elementwise_max({_B})", "minimum": f"elementwise_min({_B})",
    "remainder": f"elementwise_mod({_B})", "floor_divide": f"elementwise_floordiv({_B})",
    "matmul": "matmul_v2(X, Y -> Out) | transpose_x:b=trans_x, transpose_y:b=trans_y",
    "gelu": "gelu(X -> Out) | approximate:b",
    "celu": "celu(X -> Out) | alpha:f32",
    "elu": "elu(X -> Out) | alpha:f32",
    "selu": "selu(X -> Out) | scale:f32, alpha:f32",
    "leaky_relu": "leaky_relu(X -> Out) | negative_slope:f64=alpha",
    "hardtanh": "brelu(X -> Out) | t_min:f32, t_max:f32",
    "hardshrink": "hard_shrink(X -> Out) | threshold:f32",
    "softshrink": "softshrink(X -> Out) | threshold:f32=lambda",
    "hardsigmoid": "hard_sigmoid(X -> Out) | slope:f32, offset:f32",
    "hardswish": "hard_swish(X -> Out)",
    "swish": "swish(X -> Out)",
    "mish": "mish(X -> Out) | lambda:f32=threshold",
    "softplus": "softplus(X -> Out) | beta:f64, threshold:f64",
    "thresholded_relu": "thresholded_relu(X -> Out) | threshold:f32, value:f32=!0.0",
    "prelu": "prelu(X, Alpha -> Out) | data_format:s, mode:s",
    "pow": "pow(X -> Out) | y:f32=factor",
    "round": "round(X -> Out) | decimals:i32",
    "scale": "scale(X, =scale:f32|ScaleTensor -> Out) | bias:f32, bias_after_scale:b",
    "clip": "clip(X, =min:f32|Min, =max:f32|Max -> Out)",
    "increment": "increment(X -> Out) | value:f32=step",
    "where": "where(Condition, X, Y -> Out)",
    "cumsum": "cumsum(X, =axis:i32 -> Out) | flatten:b, exclusive:b, reverse:b",
    "log_softmax": "log_softmax(X -> Out) | axis:i32",
    "softmax": "softmax(X -> Out) | axis:i32",
    "logsumexp": "logsumexp(X -> Out) | axis:i32s, keepdim:b, reduce_all:b",
    "p_norm": "p_norm(X -> Out) | porder:f32, axis:i32, epsilon:f32, keepdim:b, asvector:b",
    "assign": "assign(X -> Out)",
    "assign_out_": "assign(X, _ -> Out@1)",
    # -- reductions (reduce_all / in_dtype / out_dtype: hooks) --
    **{pir: f"{legacy}(X, =dim:ia -> Out) | keepdim:b=keep_dim" for pir, legacy in (
        ("mean", "reduce_mean"), ("max", "reduce_max"), ("min", "reduce_min"))},
    "sum": "reduce_sum(X, =dim:ia -> Out) | dtype:dtype=out_dtype, keepdim:b=keep_dim",
    "prod": "reduce_prod(X, =dim:ia -> Out) | keepdim:b=keep_dim, reduce_all:b",
    "all": "reduce_all(X -> Out) | axis:i64s=dim, keepdim:b=keep_dim",
    "any": "reduce_any(X -> Out) | axis:i64s=dim, keepdim:b=keep_dim",
    "mean_all": "mean(X -> Out)",
    "add_n": "sum(X* -> Out)",
    "argmax": "arg_max(X, =axis:i64 -> Out) | keepdims:b, flatten:b, dtype:dtype",
    "argmin": "arg_min(X, =axis:i64 -> Out) | keepdims:b, flatten:b, dtype:dtype",
    "argsort": "argsort(X -> Out, Indices) | axis:i32, descending:b, stable:b=~False",
    "topk": "top_k_v2(X, =k:i32|K -> Out, Indices) | axis:i32, largest:b, sorted:b",
    "accuracy": "accuracy(Out, Indices, Label -> Accuracy, Correct, Total)",
    "auc": "auc(Predict, Label, StatPos, StatNeg, InsTagWeight? -> AUC, StatPosOut, "
           "StatNegOut) | curve:s, num_thresholds:i32, slide_steps:i32",
    # -- shapes and layout --
    "reshape": "reshape2(X, =shape:ia|Shape|ShapeTensor -> Out)",
    "transpose": "transpose2(X -> Out) | perm:i32s=axis",
    "flatten": "flatten_contiguous_range(X -> Out) | start_axis:i32, stop_axis:i32",
    "squeeze": "squeeze2(X, =axes:ia -> Out)",
    "unsqueeze": "unsqueeze2(X, =axes:ia|AxesTensor|AxesTensorList -> Out)",
    "expand": "expand_v2(X, =shape:ia|Shape|expand_shapes_tensor -> Out)",
    "tile": "tile(X, =repeat_times:ia|RepeatTimes|repeat_times_tensor -> Out)",
    "concat": "concat(X*, =axis:i32|AxisTensor -> Out)",
    "stack": "stack(X* -> Y) | axis:i32",
    "split": "split(X, =sections:ia||SectionsTensorList, =axis:i32|AxisTensor -> Out*)",
    "split_with_num": "split(X, =axis:i32|AxisTensor -> Out*) | num:i32",
    "slice": "slice(Input, =starts:ia|StartsTensor|StartsTensorList, "
             "=ends:ia|EndsTensor|EndsTensorList -> Out) "
             "| axes:i64s, infer_flags:i64s, decrease_axis:i64s",
    "strided_slice": "strided_slice(Input, =starts:ia|StartsTensor|StartsTensorList, "
                     "=ends:ia|EndsTensor|EndsTensorList, "
                     "=strides:ia|StridesTensor|StridesTensorList -> Out) | axes:i32s",
    "gather": "gather(X, Index, =axis:i32|Axis -> Out)",
    "gather_nd": "gather_nd(X, Index -> Out)",
    "nonzero": "where_index(Condition -> Out)",
    "index_put": "index_put(x, indices*, value -> out) | accumulate:b",
    "broadcast_tensors": "broadcast_tensors(X* -> Out*)",
    "share_data_": "share_data(X -> Out)",
    "unique_consecutive": "unique_consecutive(X -> Out, Index, Counts) | return_inverse:b, "
                          "return_counts:b, axis:i32s, dtype:dtype",
    "set_value": "set_value(Input, =starts:ia||StartsTensorList, =ends:ia||EndsTensorList, "
                 "=steps:ia||StepsTensorList -> Out) | axes:i64s, decrease_axes:i64s, "
                 "none_axes:i64s, shape:i64s, values:f64s",
    "set_value_with_tensor": "set_value(Input, ValueTensor, =starts:ia||StartsTensorList, "
                             "=ends:ia||EndsTensorList, =steps:ia||StepsTensorList -> Out) "
                             "| axes:i64s, decrease_axes:i64s, none_axes:i64s",
    "index_select": "index_select(X, Index -> Out) | axis:i32=dim",
    "take_along_axis": "take_along_axis(Input, Index -> Result) | axis:i32=Axis",
    "one_hot": "one_hot_v2(X, =depth:i32|depth_tensor -> Out)",
    "embedding": "lookup_table_v2(Ids, W -> Out) | padding_idx:i64, sparse:b=is_sparse",
    "pad": "pad(X, =pad_value:f32 -> Out) | paddings:i32s",
    "pad3d": "pad3d(X, =paddings:ia|Paddings -> Out) | mode:s, pad_value:f64=value, "
             "data_format:s",
    "tril": "tril_triu(X -> Out) | diagonal:i32",
    "triu": "tril_triu(X -> Out) | diagonal:i32",
    "shape": "shape(Input -> Out)",
    "numel": "size(Input -> Out)",
    "cast": "cast(X -> Out) | dtype:dtype=out_dtype",
    # -- creation (fill_constant / assign_value / arange: hooks) --
    "full_like": "fill_any_like(X, =value:f32 -> Out) | dtype:dtype, place:place=~",
    "arange": "range(Start, End, Step -> Out) | dtype:dtype=~out, place:place=~",
    "gaussian": "gaussian_random(=shape:ia|ShapeTensor|ShapeTensorList -> Out) "
                "| mean:f32, std:f32, seed:i32, dtype:dtype, place:place=~",
    "uniform": "uniform_random(=shape:ia|ShapeTensor|ShapeTensorList, =min:f32, =max:f32 "
               "-> Out) | dtype:dtype, seed:i32, place:place=~",
    "truncated_gaussian_random": "truncated_gaussian_random(-> Out) | shape:i32s, mean:f32, "
                                 "std:f32, seed:i32, a:f32, b:f32, dtype:dtype, place:place=~",
    # -- neural network --
    "conv2d": "conv2d(Input, Filter -> Output) | strides:i32s, paddings:i32s, "
              "padding_algorithm:s, dilations:i32s, groups:i32, data_format:s",
    "depthwise_conv2d": "depthwise_conv2d(Input, Filter -> Output) | strides:i32s, "
                        "paddings:i32s, padding_algorithm:s, groups:i32, dilations:i32s, "
                        "data_format:s",
    "conv3d": "conv3d(Input, Filter -> Output) | strides:i32s, paddings:i32s, "
              "padding_algorithm:s, groups:i32, dilations:i32s, data_format:s",
    **{name: f"{name}(Input, Filter, =output_size:ia -> Output) | strides:i32s, paddings:i32s, "
             "output_padding:i32s, padding_algorithm:s, groups:i32, dilations:i32s, "
             "data_format:s" for name in ("conv2d_transpose", "depthwise_conv2d_transpose")},
    "conv3d_transpose": "conv3d_transpose(Input, Filter -> Output) | strides:i32s, "
                        "paddings:i32s, output_padding:i32s, output_size:i32s, "
                        "padding_algorithm:s, groups:i32, dilations:i32s, data_format:s",
    "pool2d": "pool2d(X, =ksize:ia -> Out) | strides:i64s, paddings:i64s, ceil_mode:b, "
              "exclusive:b, data_format:s, pooling_type:s, global_pooling:b, adaptive:b, "
              "padding_algorithm:s",
    "max_pool2d_with_index": "max_pool2d_with_index(X -> Out, Mask) | kernel_size:i32s=ksize, "
                             "strides:i32s, paddings:i32s, global_pooling:b, adaptive:b, "
                             "ceil_mode:b=!False",
    "batch_norm": "batch_norm(X, Mean, Variance, Scale?, Bias? -> Y, MeanOut, VarianceOut, "
                  "SavedMean, SavedVariance, ReserveSpace) | is_test:b, momentum:f32, "
                  "epsilon:f32, data_format:s=data_layout, use_global_stats:b, "
                  "trainable_statistics:b",
    "batch_norm_": "batch_norm(X, Mean, Variance, Scale?, Bias? -> Y, MeanOut@1, "
                   "VarianceOut@2, SavedMean, SavedVariance, ReserveSpace) | is_test:b, "
                   "momentum:f32, epsilon:f32, data_format:s=data_layout, use_global_stats:b, "
                   "trainable_statistics:b",
    "layer_norm": "layer_norm(X, Scale?, Bias? -> Y, Mean, Variance) | epsilon:f32, "
                  "begin_norm_axis:i32",
    "group_norm": "group_norm(X, Scale?, Bias? -> Y, Mean, Variance) | epsilon:f64, groups:i32, "
                  "data_format:s=data_layout",
    "instance_norm": "instance_norm(X, Scale?, Bias? -> Y, SavedMean, SavedVariance) "
                     "| epsilon:f32",
    "dropout": "dropout(X, Seed?, =dropout_prob:f32 -> Out, Mask) | is_test:b, "
               "mode:s=dropout_implementation, seed:i32, fix_seed:b",
    **{f"{kind}_interp": f"{kind}_interp_v2(X, OutSize?, SizeTensor*?, Scale? -> Out) "
                         "| data_format:s=data_layout, out_d:i32, out_h:i32, out_w:i32, "
                         "scale:f64s, interp_method:s, align_corners:b, align_mode:i32"
       for kind in ("linear", "bilinear", "trilinear", "nearest", "bicubic")},
    "rnn": "rnn(Input, PreState*, WeightList*, SequenceLength?, =:f32 -> Out, DropoutState, "
           "State*, Reserve) | dropout_prob:f32, is_bidirec:b, input_size:i32, "
           "hidden_size:i32, num_layers:i32, mode:s, seed:i32, is_test:b",
    "cross_entropy_with_softmax": "softmax_with_cross_entropy(Logits, Label -> Softmax, Loss) "
                                  "| soft_label:b, use_softmax:b, numeric_stable_mode:b, "
                                  "ignore_index:i32, axis:i32",
    "sigmoid_cross_entropy_with_logits": "sigmoid_cross_entropy_with_logits(X, Label, "
                                         "pos_weight? -> Out) | normalize:b, ignore_index:i32",
    "bce_loss": "bce_loss(X, Label -> Out)",
    "huber_loss": "huber_loss(X, Y -> Out, Residual) | delta:f32",
    "kldiv_loss": "kldiv_loss(X, Target -> Loss) | reduction:s, log_target:b=!False",
    "einsum": "einsum(Operands* -> Out, InnerCache*, XShape*) | equation:s",
    "nll_loss": "nll_loss(X, Label, Weight? -> Out, Total_weight) | ignore_index:i64, "
                "reduction:s",
    # -- tensor arrays (create_array: a hook) --
    "array_write_": "write_to_array(_, X, I -> Out@0)",
    "array_read": "read_from_array(X, I -> Out)",
    "array_length": "lod_array_length(X -> Out)",
    "array_to_tensor": "tensor_array_to_tensor(X -> Out, OutIndex) | axis:i32, use_stack:b",
    # -- control flow and structure (their lowering is a hook) --
    "select_input": "select_input(Mask, X, X -> Out)",
    "feed": "feed(-> Out) | name:s=~, col:i32",
    "fetch": "fetch(X -> Out) | name:s=~, col:i32",
}


class Operand(NamedTuple):
    kind: str                   # slot, vector, mutable, none
    slot: str | None = None     # legacy input slot (the single-tensor form for a mutable)
    attr: str | None = None     # mutable: the legacy attribute
    list_slot: str | None = None
    value_kind: str | None = None  # mutable: ia, i32, i64, f32, f64
    optional: bool = False


class Result(NamedTuple):
    slot: str | None
    vector: bool = False
    inplace_of: int | None = None


class Attr(NamedTuple):
    name: str                   # PIR name
    kind: str
    legacy: str | None          # None: PIR only
    default: Any = None
    strict: bool = False        # PIR only, and the legacy op computes only the default


class OpSpec(NamedTuple):
    pir: str                    # "pd_op.matmul"
    legacy: str                 # "matmul_v2"
    operands: tuple
    results: tuple
    attrs: tuple


def _parse(pir: str, text: str) -> OpSpec:
    legacy, _, rest = text.partition("(")
    inner, _, attr_text = rest.partition(")")
    ins, _, outs = inner.partition("->")
    attr_text = attr_text.strip().lstrip("|")
    operands = tuple(_operand(tok.strip()) for tok in ins.split(",") if tok.strip())
    results = tuple(_result(tok.strip()) for tok in outs.split(",") if tok.strip())
    attrs = tuple(_attr(tok.strip()) for tok in attr_text.split(",") if tok.strip())
    return OpSpec("pd_op." + pir, legacy.strip(), operands, results, attrs)


def _operand(tok: str) -> Operand:
    if tok == "_":
        return Operand("none")
    if tok.startswith("="):
        spec, *alts = tok[1:].split("|")
        attr, _, kind = spec.partition(":")
        single = alts[0] if alts and alts[0] else None
        listed = alts[1] if len(alts) > 1 and alts[1] else None
        return Operand("mutable", single, attr or None, listed, kind)
    optional = tok.endswith("?")
    tok = tok.rstrip("?")
    if tok.endswith("*"):
        return Operand("vector", tok[:-1], optional=optional)
    return Operand("slot", tok, optional=optional)


def _result(tok: str) -> Result:
    if tok == "_":
        return Result(None)
    slot, _, inplace = tok.partition("@")
    return Result(slot.rstrip("*"), slot.endswith("*"), int(inplace) if inplace else None)


def _attr(tok: str) -> Attr:
    name, _, rest = tok.partition(":")
    kind, eq, legacy = rest.partition("=")
    if legacy.startswith("!"):
        return Attr(name, kind, None, ast.literal_eval(legacy[1:]), strict=True)
    if legacy.startswith("~"):
        text = legacy[1:]
        default = text if text == "out" else ast.literal_eval(text) if text else None
        return Attr(name, kind, None, default)
    return Attr(name, kind, legacy if eq else name)


SPECS: dict[str, OpSpec] = {"pd_op." + k: _parse(k, v) for k, v in TABLE.items()}
"""pd_op name -> its spec."""

BY_LEGACY: dict[str, OpSpec] = {}
"""legacy op type -> the spec used to write it (the first line naming it; an in-place
``name_`` line only when the op has no other)."""
for _spec in sorted(SPECS.values(), key=lambda spec: spec.pir.endswith("_")):
    BY_LEGACY.setdefault(_spec.legacy, _spec)
