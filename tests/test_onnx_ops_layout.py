"""Converters of shape, creation, layer, convolution/pooling and loss ops: one small program
per op and attribute convention, pyfluid's Executor against onnxruntime."""
from __future__ import annotations

import numpy as np
import pytest

from onnx_check import check_op
from test_onnx_ops import Case, case, distinct, f32, i64, pos

_rng = np.random.default_rng(8)
IMG = f32(2, 3, 9, 9)


def conv_case(id: str, x=IMG, w=None, **attrs):
    w = f32(4, 3 // attrs.get("groups", 1) if attrs.get("groups", 1) != 3 else 1, 3, 3) \
        if w is None else w
    return case("conv2d", {"Input": x, "Filter": w}, id, params=("Filter",), **attrs)


def pool_case(id: str, x=IMG, **attrs):
    return case("pool2d", {"X": x}, id, **attrs)


CASES = [
    # -- shape and layout --------------------------------------------------------------------
    case("reshape2", {"X": f32(2, 3, 4)}, shape=[0, -1]),
    case("reshape2", {"X": f32(2, 3, 4)}, "reshape2_zero_mid", shape=[0, 3, 2, 2]),
    case("reshape2", {"X": f32(2, 3, 4), "Shape": np.array([2, 12], np.int32)},
         "reshape2_shape_tensor", shape=[-1, 12], dynamic=False),
    case("reshape2", {"X": f32(2, 3, 4), "ShapeTensor": [np.array([4], np.int64),
                                                          np.array([6], np.int64)]},
         "reshape2_shape_list", shape=[-1, 6], dynamic=False),
    case("transpose2", {"X": f32(2, 3, 4)}, axis=[2, 0, 1]),
    case("transpose2", {"X": f32(2, 3, 4)}, "transpose2_negative", axis=[0, -1, -2]),
    case("squeeze2", {"X": f32(2, 1, 4, 1)}, axes=[1, 3]),
    case("squeeze2", {"X": f32(2, 1, 4, 1)}, "squeeze2_all", dynamic=False),
    case("squeeze2", {"X": f32(2, 1, 4)}, "squeeze2_keeps_non_one", axes=[1, 2]),
    case("unsqueeze2", {"X": f32(2, 3)}, axes=[0, 2]),
    case("unsqueeze2", {"X": f32(2, 3)}, "unsqueeze2_negative", axes=[-1, 1]),
    case("flatten_contiguous_range", {"X": f32(2, 3, 4, 5)}, start_axis=1, stop_axis=-1),
    case("flatten_contiguous_range", {"X": f32(2, 3, 4, 5)}, "flatten_mid", start_axis=1,
         stop_axis=2),
    case("flatten_contiguous_range", {"X": f32(2, 3, 4, 5)}, "flatten_head", start_axis=0,
         stop_axis=1),
    case("slice", {"Input": f32(3, 6, 5)}, axes=[1, 2], starts=[1, -3], ends=[100, -1]),
    case("slice", {"Input": f32(3, 6, 5)}, "slice_decrease", axes=[1], starts=[2], ends=[3],
         decrease_axis=[1]),
    case("slice", {"Input": f32(3, 6), "StartsTensorList": [np.array([1], np.int64)],
                   "EndsTensorList": [np.array([4], np.int64)]},
         "slice_tensor_bounds", axes=[1], starts=[-1], ends=[-1]),
    case("strided_slice", {"Input": f32(3, 8)}, axes=[1], starts=[1], ends=[8], strides=[3]),
    case("strided_slice", {"Input": f32(3, 8)}, "strided_slice_reverse", axes=[1],
         starts=[-1], ends=[-9], strides=[-2]),
    case("concat", {"X": [f32(2, 3), f32(2, 2)]}, axis=1),
    case("concat", {"X": [f32(2, 3), f32(4, 3)]}, "concat_axis0", axis=-2, dynamic=False),
    case("split", {"X": f32(2, 6)}, num=3, axis=1, counts={"Out": 3}),
    case("split", {"X": f32(2, 6)}, "split_sections", sections=[1, -1, 2], axis=1,
         counts={"Out": 3}),
    case("split", {"X": f32(2, 6)}, "split_opset18", num=2, axis=1, counts={"Out": 2}, opset=18),
    case("stack", {"X": [f32(2, 3), f32(2, 3)]}, axis=1, fetch=["Y"]),
    case("expand_v2", {"X": f32(3, 1)}, shape=[2, -1, 4], dynamic=False),
    case("expand_v2", {"X": f32(3, 1), "Shape": np.array([-1, 5], np.int32)},
         "expand_v2_shape_tensor", dynamic=False),
    case("tile", {"X": f32(2, 3)}, repeat_times=[2, 1, 2]),
    case("tile", {"X": f32(2, 3)}, "tile_short_repeats", repeat_times=[3]),
    case("gather", {"X": f32(5, 3), "Index": np.array([4, 0, 4], np.int64)}),
    case("gather", {"X": f32(5, 3), "Index": np.array([[2], [1]], np.int32)}, "gather_n1",
         dynamic=False),
    case("gather", {"X": f32(2, 5), "Index": np.array([1, 3], np.int64)}, "gather_axis1",
         axis=1),
    case("cast", {"X": f32(3, 4) * 3}, out_dtype=3),
    case("cast", {"X": i64(3, 4)}, "cast_to_bool", out_dtype=0),
    # -- creation ----------------------------------------------------------------------------
    case("fill_constant", {}, shape=[2, 3], value=1.5, dtype=5),
    case("fill_constant", {}, "fill_constant_int64_str", shape=[2], str_value="9007199254740993",
         dtype=3),
    case("fill_constant", {"ShapeTensor": np.array([2, 3], np.int64)}, "fill_constant_shape",
         value=2.0, dtype=5, dynamic=False),
    case("fill_constant", {"ValueTensor": np.array([4.0], np.float32),
                           "ShapeTensorList": [np.array([2], np.int64), np.array([2], np.int64)]},
         "fill_constant_value_tensor", dtype=5, dynamic=False),
    case("assign_value", {}, shape=[2, 2], dtype=2, int32_values=[1, 2, 3, 4]),
    case("assign", {"X": f32(3, 4)}),
    case("fill_any_like", {"X": f32(3, 4)}, value=7.0),
    case("fill_any_like", {"X": f32(3, 4)}, "fill_any_like_int", value=3.0, dtype=3),
    case("one_hot_v2", {"X": i64(4, 1, hi=6)}, depth=6),
    case("one_hot_v2", {"X": np.array([0, 7, 2], np.int64)}, "one_hot_out_of_range", depth=4,
         allow_out_of_range=True),
    # -- layers ------------------------------------------------------------------------------
    case("matmul_v2", {"X": f32(2, 3, 4), "Y": f32(4, 5)}),
    case("matmul_v2", {"X": f32(2, 4, 3), "Y": f32(2, 5, 4)}, "matmul_v2_trans",
         trans_x=True, trans_y=True),
    case("matmul_v2", {"X": f32(3, 4), "Y": f32(4)}, "matmul_v2_vector", trans_y=True),
    case("mul", {"X": f32(3, 4), "Y": f32(4, 5)}, params=("Y",)),
    case("mul", {"X": f32(2, 3, 4), "Y": f32(12, 5)}, "mul_flatten_x", x_num_col_dims=1,
         params=("Y",)),
    case("mul", {"X": f32(2, 3, 4), "Y": f32(4, 5, 2)}, "mul_col_dims", x_num_col_dims=2,
         params=("Y",)),
    case("fc", {"Input": f32(3, 4), "W": f32(4, 5), "Bias": f32(5)}, params=("W", "Bias"),
         activation_type="relu"),
    case("fc", {"Input": f32(2, 3, 4), "W": f32(4, 5)}, "fc_3d", in_num_col_dims=2,
         params=("W",)),
    case("fc", {"Input": f32(3, 4), "W": f32(8, 9), "Bias": f32(5)}, "fc_padding_weights",
         padding_weights=True, params=("W", "Bias")),
    case("fused_elemwise_activation", {"X": f32(3, 4), "Y": f32(4)}, axis=-1,
         functor_list=["relu", "elementwise_add"], fetch=["Out"]),
    case("batch_norm", {"X": f32(2, 3, 4, 4), "Scale": pos(3), "Bias": f32(3), "Mean": f32(3),
                        "Variance": pos(3)}, is_test=True,
         params=("Scale", "Bias", "Mean", "Variance"), fetch=["Y"]),
    case("batch_norm", {"X": f32(4, 3), "Scale": pos(3), "Bias": f32(3), "Mean": f32(3),
                        "Variance": pos(3)}, "batch_norm_2d", is_test=True,
         params=("Scale", "Bias", "Mean", "Variance"), fetch=["Y"]),
    case("batch_norm", {"X": f32(2, 4, 4, 3), "Scale": pos(3), "Bias": f32(3), "Mean": f32(3),
                        "Variance": pos(3)}, "batch_norm_nhwc", is_test=True,
         data_layout="NHWC", params=("Scale", "Bias", "Mean", "Variance"), fetch=["Y"]),
    case("batch_norm", {"X": f32(2, 3, 4, 4), "Scale": pos(3), "Bias": f32(3), "Mean": f32(3),
                        "Variance": pos(3)}, "batch_norm_batch_stats", is_test=False,
         params=("Scale", "Bias", "Mean", "Variance"), fetch=["Y", "SavedMean"]),
    case("layer_norm", {"X": f32(2, 3, 4), "Scale": pos(12), "Bias": f32(12)},
         begin_norm_axis=1, params=("Scale", "Bias"), fetch=["Y"]),
    case("layer_norm", {"X": f32(2, 3, 4), "Scale": pos(4)}, "layer_norm_last_no_bias",
         begin_norm_axis=2, params=("Scale",), fetch=["Y"]),
    case("layer_norm", {"X": f32(2, 3, 4), "Scale": pos(4), "Bias": f32(4)},
         "layer_norm_opset13", begin_norm_axis=2, params=("Scale", "Bias"), fetch=["Y"],
         opset=13),
    case("dropout", {"X": f32(3, 4)}, is_test=True, dropout_prob=0.3, fetch=["Out"]),
    case("dropout", {"X": f32(3, 4)}, "dropout_upscale", is_test=True, dropout_prob=0.3,
         dropout_implementation="upscale_in_train", fetch=["Out"]),
    case("lookup_table_v2", {"W": f32(6, 3), "Ids": i64(2, 4, hi=6)}, params=("W",)),
    case("lookup_table_v2", {"W": f32(6, 3), "Ids": np.array([[0, 2, 2, 5]], np.int64)},
         "lookup_table_v2_padding", padding_idx=2, params=("W",)),
    # -- convolution and pooling -------------------------------------------------------------
    conv_case("conv2d"),
    conv_case("conv2d_pad_stride", strides=[2, 2], paddings=[1, 2]),
    conv_case("conv2d_pad4_dilation", paddings=[1, 0, 2, 1], dilations=[2, 1]),
    conv_case("conv2d_same", padding_algorithm="SAME", strides=[2, 2], dilations=[2, 2]),
    conv_case("conv2d_valid", padding_algorithm="VALID", paddings=[3, 3]),
    conv_case("conv2d_groups", w=f32(6, 1, 3, 3), groups=3),
    conv_case("conv2d_nhwc", x=f32(2, 9, 9, 3), data_format="NHWC", paddings=[1, 1]),
    case("depthwise_conv2d", {"Input": IMG, "Filter": f32(3, 1, 3, 3)}, groups=3,
         params=("Filter",)),
    # conv3d_transpose as paddle.nn.functional writes it (data_format NCHW / NHWC for 5-D)
    case("conv3d_transpose", {"Input": f32(2, 4, 3, 4, 2), "Filter": f32(4, 3, 3, 2, 2)},
         "conv3d_transpose_groups", params=("Filter",), groups=2, strides=[2, 1, 2],
         paddings=[1, 0, 1], output_padding=[1, 0, 1], dilations=[1, 2, 1]),
    case("conv3d_transpose", {"Input": f32(1, 3, 2, 4, 2), "Filter": f32(2, 3, 2, 2, 1)},
         "conv3d_transpose_nhwc_size", params=("Filter",), data_format="NHWC",
         strides=[2, 2, 1], paddings=[0, 1, 1, 0, 0, 0], output_size=[6, 4, 4]),
    pool_case("pool2d_max", ksize=[3, 3], strides=[2, 2]),
    pool_case("pool2d_max_pad_ceil", ksize=[3, 3], strides=[2, 2], paddings=[1, 1],
              ceil_mode=True),
    pool_case("pool2d_avg_exclusive", pooling_type="avg", ksize=[3, 3], strides=[2, 2],
              paddings=[1, 1]),
    pool_case("pool2d_avg_inclusive", pooling_type="avg", ksize=[3, 3], strides=[2, 2],
              paddings=[1, 1], exclusive=False),
    pool_case("pool2d_avg_ceil_asym", pooling_type="avg", ksize=[2, 3], strides=[2, 2],
              paddings=[0, 1, 1, 0], ceil_mode=True, exclusive=False),
    pool_case("pool2d_avg_same", pooling_type="avg", ksize=[2, 2], strides=[2, 2],
              padding_algorithm="SAME"),
    pool_case("pool2d_max_valid", ksize=[2, 2], strides=[2, 2], padding_algorithm="VALID",
              paddings=[1, 1]),
    pool_case("pool2d_global", pooling_type="avg", ksize=[1, 1], global_pooling=True),
    pool_case("pool2d_adaptive_1", pooling_type="max", ksize=[1, 1], adaptive=True),
    pool_case("pool2d_adaptive_divisible", x=f32(2, 3, 8, 6), pooling_type="avg",
              ksize=[4, 3], adaptive=True),
    pool_case("pool2d_adaptive_avg", pooling_type="avg", ksize=[4, 5], adaptive=True),
    pool_case("pool2d_adaptive_max", pooling_type="max", ksize=[4, 5], adaptive=True),
    pool_case("pool2d_nhwc", x=f32(2, 9, 9, 3), pooling_type="avg", ksize=[3, 3],
              data_format="NHWC"),
    # -- losses and metrics ------------------------------------------------------------------
    case("softmax_with_cross_entropy", {"Logits": f32(4, 5), "Label": np.array(
        [[1], [-100], [4], [0]], np.int64)}),
    case("softmax_with_cross_entropy", {"Logits": f32(4, 5), "Label": np.full(
        (4, 5), 0.2, np.float32)}, "swce_soft", soft_label=True),
    case("softmax_with_cross_entropy", {"Logits": f32(2, 5, 3), "Label": i64(2, 1, 3)},
         "swce_axis1", axis=1),
    case("cross_entropy", {"X": pos(4, 5) / 10, "Label": i64(4, 1)}),
    case("cross_entropy", {"X": pos(4, 5) / 10, "Label": np.full((4, 5), .2, np.float32)},
         "cross_entropy_soft", soft_label=True),
    case("cross_entropy2", {"X": pos(4, 5) / 10, "Label": np.array([[1], [3], [-100], [0]])},
         fetch=["Y", "MatchX"]),
    case("bce_loss", {"X": f32(3, 4, lo=0, hi=1), "Label": f32(3, 4, lo=0, hi=1)}),
    case("sigmoid_cross_entropy_with_logits", {"X": f32(3, 4) * 5, "Label": np.array(
        [[0, 1, -100, 1]] * 3, np.float32)}),
    case("sigmoid_cross_entropy_with_logits", {"X": f32(3, 4), "Label": np.array(
        [[0, 1, -100, 1]] * 3, np.float32), "pos_weight": pos(3, 4)}, "sigmoid_ce_normalize",
        normalize=True),
    case("huber_loss", {"X": f32(3, 4), "Y": f32(3, 4)}, delta=0.7),
    case("kldiv_loss", {"X": f32(3, 4), "Target": f32(3, 4, lo=-0.2, hi=1)}),
    case("kldiv_loss", {"X": f32(3, 4), "Target": f32(3, 4, lo=0, hi=1)}, "kldiv_batchmean",
         reduction="batchmean"),
    case("kldiv_loss", {"X": f32(3, 4), "Target": f32(3, 4, lo=0, hi=1)}, "kldiv_none",
         reduction="none"),
    case("nll_loss", {"X": f32(4, 5), "Label": np.array([1, -100, 4, 0], np.int64),
                      "Weight": pos(5)}, params=("Weight",)),
    case("nll_loss", {"X": f32(4, 5), "Label": i64(4)}, "nll_loss_sum", reduction="sum"),
    case("accuracy", {"Out": f32(5, 2), "Indices": i64(5, 2), "Label": i64(5, 1)}),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_converter_matches_pyfluid(c: Case):
    check_op(c.op, c.inputs, c.attrs, **c.options)
