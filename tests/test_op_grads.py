"""Every differentiable op's grad rule against float64 central differences (tests/op_test.py).
One line per case; test_registry_coverage.py checks that every op with a grad rule has one."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pytest

from op_test import ArrayInput, check_grad
from pyfluid.ops import get_op
from pyfluid.static import py_func_name, register_py_func

_rng = np.random.default_rng(11)


def u(*shape, lo=-1.0, hi=1.0):
    return _rng.uniform(lo, hi, size=shape)


def pos(*shape):
    return u(*shape, lo=0.5, hi=2.0)


def away(*shape, points=(0.0,), margin=0.15):
    """Random values at least ``margin`` from every point (kinks of relu, abs, clip...)."""
    x = u(*shape, lo=-1.0, hi=1.0)
    for p in points:
        near = np.abs(x - p) < margin
        x = np.where(near, p + np.copysign(margin + 0.05, x - p + 1e-12), x)
    return x


def distinct(*shape):
    """Values whose pairwise gaps are >= 0.1 (stable top_k / max choices)."""
    return _rng.permutation(np.arange(int(np.prod(shape))) * 0.1 - 1.0).reshape(shape)


def labels(n, classes, *, rows=1):
    return _rng.integers(0, classes, size=(n, rows)).astype(np.int64)


def cube(x):
    return x ** 3


def cube_backward(x, out, dout):
    return 3 * x * x * dout


class Case(NamedTuple):
    op_type: str
    inputs: dict
    attrs: dict = {}
    wrt: tuple = ("X",)
    no_grad_set: tuple = ()
    outputs: Any = None
    output_counts: Any = None
    array_outputs: Any = None


_X = u(2, 3)
_PROBS = pos(4, 5) / 10
_SOFT = pos(4, 5)
_SOFT = _SOFT / _SOFT.sum(axis=1, keepdims=True)
_LABEL_WITH_IGNORED = np.array([[1], [2], [4], [2]], dtype=np.int64)


def _rnn_case(mode: str, *, layers=1, bidirec=False, seq_len=None, steps=4, batch=2, size=3,
              hidden=2, dropout=0.0) -> Case:
    """An rnn op case with Paddle's WeightList layout (all weights, then all biases)."""
    gates, dirs = {"LSTM": 4, "GRU": 3}.get(mode, 1), 2 if bidirec else 1
    weights, biases = [], []
    for layer in range(layers):
        width = size if layer == 0 else hidden * dirs
        for _ in range(dirs):
            weights += [u(gates * hidden, width), u(gates * hidden, hidden)]
            biases += [u(gates * hidden), u(gates * hidden)]
    states = [u(layers * dirs, batch, hidden) for _ in range(2 if mode == "LSTM" else 1)]
    inputs = {"Input": u(steps, batch, size), "PreState": states, "WeightList": weights + biases}
    if seq_len is not None:
        inputs["SequenceLength"] = np.array(seq_len, dtype=np.int32)
    attrs = {"mode": mode, "num_layers": layers, "is_bidirec": bidirec, "input_size": size,
             "hidden_size": hidden, "is_test": not dropout, "dropout_prob": dropout, "seed": 5}
    return Case("rnn", inputs, attrs, wrt=("Input", "PreState", "WeightList"),
                outputs=["Out", "State"], output_counts={"State": len(states)})


_TWO = {"InnerCache": 2, "XShape": 2}     # einsum's extra outputs: one per operand

RNN_CASES = [
    _rnn_case("LSTM"),
    _rnn_case("LSTM", layers=2, bidirec=True, seq_len=[4, 2]),
    _rnn_case("GRU", bidirec=True),
    _rnn_case("GRU", layers=2, seq_len=[3, 1]),
    _rnn_case("RNN_TANH", layers=2, bidirec=True, seq_len=[2, 4]),
    _rnn_case("RNN_RELU", steps=3),
    _rnn_case("LSTM", layers=3, dropout=0.4),     # training: dropout between layers, seeded
]

CASES = [
    Case("abs", {"X": away(3, 4)}),
    Case("assign", {"X": u(3, 4)}),
    Case("cast", {"X": u(2, 3)}, {"in_dtype": 6, "out_dtype": 6}),
    Case("clip", {"X": away(3, 4, points=(-0.5, 0.5), margin=0.05)}, {"min": -0.5, "max": 0.5}),
    Case("concat", {"X": [u(2, 3), u(1, 3)]}, {"axis": 0}),
    Case("concat", {"X": [u(2, 1), u(2, 3), u(2, 2)]}, {"axis": -1}),
    Case("concat", {"X": [u(2, 1), u(2, 3)], "AxisTensor": np.array([1])}, {"axis": 1}),
    Case("cross_entropy", {"X": _PROBS, "Label": labels(4, 5)}),
    Case("cross_entropy", {"X": _PROBS, "Label": _SOFT}, {"soft_label": True}),
    Case("cross_entropy", {"X": _PROBS, "Label": _LABEL_WITH_IGNORED}, {"ignore_index": 2}),
    Case("cross_entropy2", {"X": _PROBS, "Label": labels(4, 5)}),
    Case("cross_entropy2", {"X": _PROBS, "Label": _LABEL_WITH_IGNORED}, {"ignore_index": 2}),
    Case("dropout", {"X": u(4, 5)}, {"dropout_prob": 0.3, "fix_seed": True, "seed": 7},
         outputs=["Out"]),
    Case("dropout", {"X": u(4, 5)}, {"dropout_prob": 0.3, "fix_seed": True, "seed": 7,
                                     "dropout_implementation": "upscale_in_train"},
         outputs=["Out"]),
    Case("elementwise_add", {"X": u(2, 3, 4), "Y": u(3, 4)}, wrt=("X", "Y")),
    Case("elementwise_add", {"X": u(2, 3, 4), "Y": u(3)}, {"axis": 1}, wrt=("X", "Y")),
    Case("elementwise_add", {"X": u(), "Y": u()}, wrt=("X", "Y")),
    Case("elementwise_sub", {"X": u(2, 3), "Y": u(2, 1)}, wrt=("X", "Y")),
    Case("elementwise_mul", {"X": u(2, 3), "Y": u(3)}, wrt=("X", "Y")),
    Case("elementwise_mul", {"X": u(2, 3), "Y": u(2, 3)}, wrt=("X",), no_grad_set=("Y",)),
    Case("elementwise_mul", {"X": u(1, 3), "Y": u(2, 1)}, wrt=("X", "Y")),
    Case("elementwise_div", {"X": u(2, 3), "Y": pos(2, 3)}, wrt=("X", "Y")),
    Case("elementwise_div", {"X": u(2, 3), "Y": pos(2, 1)}, wrt=("X", "Y")),
    Case("elementwise_pow", {"X": pos(2, 3), "Y": u(2, 3)}, wrt=("X", "Y")),
    Case("elementwise_pow", {"X": pos(2, 3), "Y": u(3)}, wrt=("X", "Y")),
    Case("elementwise_max", {"X": _X, "Y": _X + away(2, 3)}, wrt=("X", "Y")),
    Case("elementwise_max", {"X": away(2, 3), "Y": np.zeros(3)}, wrt=("X", "Y")),
    Case("elementwise_min", {"X": _X, "Y": _X + away(2, 3)}, wrt=("X", "Y")),
    Case("elementwise_add_grad", {"X": u(2, 3), "Y": u(2, 3), "Out@GRAD": u(2, 3)},
         wrt=("Out@GRAD",), outputs=["X@GRAD", "Y@GRAD"]),
    Case("elementwise_sub_grad", {"X": u(2, 3), "Y": u(2, 3), "Out@GRAD": u(2, 3)},
         wrt=("Out@GRAD",), outputs=["X@GRAD", "Y@GRAD"]),
    Case("elementwise_mul_grad", {"X": u(2, 3), "Y": u(2, 3), "Out@GRAD": u(2, 3)},
         wrt=("X", "Y", "Out@GRAD"), outputs=["X@GRAD", "Y@GRAD"]),
    Case("scale_grad", {"Out@GRAD": u(2, 3)}, {"scale": -1.5}, wrt=("Out@GRAD",),
         outputs=["X@GRAD"]),
    Case("reduce_sum_grad", {"X": u(3, 4), "Out@GRAD": u(4)}, {"dim": [0]},
         wrt=("Out@GRAD",), outputs=["X@GRAD"]),
    Case("reduce_mean_grad", {"X": u(2, 3, 2), "Out@GRAD": u(2, 1, 2)},
         {"dim": [1], "keep_dim": True}, wrt=("Out@GRAD",), outputs=["X@GRAD"]),
    Case("mean_grad", {"X": u(3, 4), "Out@GRAD": u()}, wrt=("Out@GRAD",), outputs=["X@GRAD"]),
    Case("sum_grad", {"X": [u(2, 3), u(2, 3)], "Out@GRAD": u(2, 3)}, wrt=("Out@GRAD",),
         outputs=["X@GRAD"], output_counts={"X@GRAD": 2}),
    Case("relu_grad", {"Out": away(3, 4), "Out@GRAD": u(3, 4)}, wrt=("Out@GRAD",),
         outputs=["X@GRAD"]),
    Case("square_grad", {"X": u(3, 4), "Out@GRAD": u(3, 4)}, wrt=("X", "Out@GRAD"),
         outputs=["X@GRAD"]),
    Case("matmul_v2_grad", {"X": u(2, 3), "Y": u(3, 4), "Out@GRAD": u(2, 4)},
         wrt=("X", "Y", "Out@GRAD"), outputs=["X@GRAD", "Y@GRAD"]),
    Case("exp", {"X": u(3, 4)}),
    Case("log", {"X": pos(3, 4)}),
    Case("log_softmax", {"X": u(3, 4)}),
    Case("log_softmax", {"X": u(3, 4)}, {"axis": 0}),
    Case("lookup_table_v2", {"W": u(6, 3), "Ids": np.array([[0, 2, 2], [5, 1, 0]])},
         wrt=("W",)),
    Case("lookup_table_v2", {"W": u(6, 3), "Ids": np.array([[0, 2, 1], [1, 1, 3]])},
         {"padding_idx": 1}, wrt=("W",)),
    Case("matmul_v2", {"X": u(2, 3), "Y": u(3, 4)}, wrt=("X", "Y")),
    Case("matmul_v2", {"X": u(3, 2), "Y": u(4, 3)}, {"trans_x": True, "trans_y": True},
         wrt=("X", "Y")),
    Case("matmul_v2", {"X": u(2, 2, 3), "Y": u(3, 4)}, wrt=("X", "Y")),
    Case("matmul_v2", {"X": u(1, 2, 3), "Y": u(2, 3, 2)}, wrt=("X", "Y")),
    Case("matmul_v2", {"X": u(3), "Y": u(3)}, wrt=("X", "Y")),
    Case("matmul_v2", {"X": u(3), "Y": u(2, 3, 4)}, wrt=("X", "Y")),
    Case("mean", {"X": u(3, 4)}),
    Case("mul", {"X": u(2, 3), "Y": u(3, 4)}, wrt=("X", "Y")),
    Case("mul", {"X": u(2, 3, 2), "Y": u(2, 2, 2)}, {"x_num_col_dims": 2, "y_num_col_dims": 1},
         wrt=("X", "Y")),
    Case("reduce_mean", {"X": u(3, 4)}, {"dim": [1]}),
    Case("reduce_mean", {"X": u(2, 3, 2)}, {"dim": [0, 2], "keep_dim": True}),
    Case("reduce_mean", {"X": u(3, 4)}, {"reduce_all": True}),
    Case("reduce_sum", {"X": u(3, 4)}, {"dim": [0], "keep_dim": True}),
    Case("reduce_sum", {"X": u(3, 4)}, {"dim": [-1]}),
    Case("reduce_sum", {"X": u()}, {"reduce_all": True}),
    Case("relu", {"X": away(3, 4)}),
    Case("reshape2", {"X": u(2, 6)}, {"shape": [3, 4]}, outputs=["Out"]),
    Case("reshape2", {"X": u(2, 6)}, {"shape": [0, -1, 2]}, outputs=["Out"]),
    Case("scale", {"X": u(3)}, {"scale": 2.5, "bias": 0.3}),
    Case("scale", {"X": u(3)}, {"scale": -2.0, "bias": 1.0, "bias_after_scale": False}),
    Case("scale", {"X": u(3), "ScaleTensor": np.array([1.7])}, {"scale": 5.0}),
    Case("sigmoid", {"X": u(3, 4)}),
    Case("softmax", {"X": u(3, 4)}),
    Case("softmax", {"X": u(3, 4)}, {"axis": 0}),
    Case("softmax_with_cross_entropy", {"Logits": u(4, 5), "Label": labels(4, 5)},
         wrt=("Logits",)),
    Case("softmax_with_cross_entropy", {"Logits": u(4, 5), "Label": _SOFT}, {"soft_label": True},
         wrt=("Logits",)),
    Case("softmax_with_cross_entropy", {"Logits": u(4, 5), "Label": _LABEL_WITH_IGNORED},
         {"ignore_index": 2}, wrt=("Logits",)),
    Case("softmax_with_cross_entropy", {"Logits": u(3, 4), "Label": labels(1, 3, rows=4)},
         {"axis": 0}, wrt=("Logits",)),
    Case("softmax_with_cross_entropy", {"Logits": _PROBS, "Label": labels(4, 5)},
         {"use_softmax": False}, wrt=("Logits",)),
    Case("softmax_with_cross_entropy", {"Logits": _PROBS, "Label": _SOFT},
         {"use_softmax": False, "soft_label": True}, wrt=("Logits",)),
    Case("softmax_with_cross_entropy", {"Logits": u(2, 3, 4), "Label": labels(2, 4, rows=3)
                                        .reshape(2, 3, 1)}, wrt=("Logits",)),
    Case("sqrt", {"X": pos(3, 4)}),
    Case("square", {"X": u(3, 4)}),
    Case("square", {"X": u()}),
    Case("sum", {"X": [u(2, 3), u(2, 3), u(2, 3)]}),
    Case("tanh", {"X": u(3, 4)}),
    Case("top_k", {"X": distinct(3, 5)}, {"k": 2}, outputs=["Out"]),
    Case("top_k_v2", {"X": distinct(4, 3)}, {"k": 2, "axis": 0, "largest": False},
         outputs=["Out"]),
    Case("transpose2", {"X": u(2, 3, 4)}, {"axis": [2, 0, 1]}, outputs=["Out"]),
    Case("transpose2", {"X": u(2, 3)}, {"axis": [-1, 0]}, outputs=["Out"]),
    # ops of the inference-model, shape and activation work
    Case("batch_norm", {"X": u(2, 3, 2), "Scale": pos(3), "Bias": u(3), "Mean": u(3),
                        "Variance": pos(3)}, wrt=("X", "Scale", "Bias"), outputs=["Y"]),
    Case("conv2d", {"Input": u(1, 2, 4, 4), "Filter": u(3, 2, 2, 2)},
         {"strides": [2, 1], "paddings": [1, 0]}, wrt=("Input", "Filter")),
    Case("depthwise_conv2d", {"Input": u(1, 2, 4, 4), "Filter": u(2, 1, 3, 3)},
         {"groups": 2, "paddings": [1, 1]}, wrt=("Input", "Filter")),
    Case("flatten_contiguous_range", {"X": u(2, 3, 2)}, {"start_axis": 1, "stop_axis": 2},
         outputs=["Out"]),
    Case("gelu", {"X": u(3, 4)}),
    Case("gelu", {"X": u(3, 4)}, {"approximate": True}),
    Case("hard_sigmoid", {"X": u(3, 4)}),
    Case("hard_swish", {"X": u(3, 4)}),
    Case("layer_norm", {"X": u(2, 3, 2), "Scale": pos(6), "Bias": u(6)},
         wrt=("X", "Scale", "Bias"), outputs=["Y"]),
    Case("leaky_relu", {"X": away(3, 4)}, {"alpha": 0.1}),
    Case("pool2d", {"X": distinct(1, 2, 4, 4)}, {"ksize": [2, 2], "strides": [2, 2]}),
    Case("pool2d", {"X": u(1, 1, 4, 4)}, {"pooling_type": "avg", "ksize": [3, 3],
                                          "paddings": [1, 1]}),
    Case("relu6", {"X": away(3, 4) * 4 + 2, }),
    Case("silu", {"X": u(3, 4)}),
    Case("swish", {"X": u(3, 4)}, {"beta": 1.5}),
    Case("slice", {"Input": u(3, 4)}, {"axes": [0, 1], "starts": [1, 0], "ends": [3, 3]},
         wrt=("Input",)),
    Case("split", {"X": u(4, 3)}, {"axis": 0, "num": 2}, output_counts={"Out": 2}),
    Case("squeeze2", {"X": u(2, 1, 3)}, {"axes": [1]}, outputs=["Out"]),
    Case("stack", {"X": [u(2, 3), u(2, 3)]}, {"axis": 1}),
    Case("unsqueeze2", {"X": u(2, 3)}, {"axes": [1]}, outputs=["Out"]),
    # attribute variants of the CNN ops (tests/test_cnn_ops.py checks their forward values)
    Case("conv2d", {"Input": u(1, 4, 5, 4), "Filter": u(4, 2, 2, 3)},
         {"paddings": [1, 0, 2, 1], "dilations": [2, 1], "groups": 2}, wrt=("Input", "Filter")),
    Case("conv2d", {"Input": u(1, 5, 4, 2), "Filter": u(3, 2, 3, 3)},
         {"padding_algorithm": "SAME", "strides": [2, 2], "data_format": "NHWC"},
         wrt=("Input", "Filter")),
    Case("pool2d", {"X": distinct(1, 2, 5, 5)}, {"ksize": [3, 3], "strides": [2, 2],
                                                 "paddings": [1, 1], "ceil_mode": True}),
    Case("pool2d", {"X": u(1, 2, 5, 5)}, {"pooling_type": "avg", "ksize": [3, 3],
                                          "strides": [2, 2], "paddings": [1, 1],
                                          "exclusive": False, "ceil_mode": True}),
    Case("pool2d", {"X": distinct(1, 2, 5, 7)}, {"ksize": [3, 4], "adaptive": True}),
    Case("pool2d", {"X": u(1, 2, 5, 7)}, {"pooling_type": "avg", "ksize": [3, 4],
                                          "adaptive": True}),
    Case("pool2d", {"X": u(1, 3, 4, 2)}, {"pooling_type": "avg", "ksize": [1, 1],
                                          "global_pooling": True, "data_format": "NHWC"}),
    Case("batch_norm", {"X": u(3, 2, 2, 2), "Scale": u(2), "Bias": u(2), "Mean": u(2),
                        "Variance": pos(2)}, {"use_global_stats": True},
         wrt=("X", "Scale", "Bias"), outputs=["Y"]),
    Case("batch_norm", {"X": u(2, 2, 2, 3), "Scale": u(3), "Bias": u(3), "Mean": u(3),
                        "Variance": pos(3)}, {"data_layout": "NHWC"},
         wrt=("X", "Scale", "Bias"), outputs=["Y"]),
    Case("layer_norm", {"X": u(2, 3, 4)}, {"begin_norm_axis": 2}, outputs=["Y"]),
    Case("slice", {"Input": u(3, 4, 5)}, {"axes": [0, 2], "starts": [1, -3], "ends": [2, 10],
                                          "decrease_axis": [0]}, wrt=("Input",)),
    # ops of the wider tensor API (tests/test_api_surface.py checks their forward values)
    Case("pow", {"X": pos(3, 4)}, {"factor": 2.5}),
    Case("reduce_max", {"X": distinct(3, 4)}, {"dim": [1]}),
    Case("reduce_min", {"X": distinct(2, 3, 2)}, {"dim": [0, 2], "keep_dim": True}),
    Case("where", {"Condition": u(3, 4) > 0, "X": u(3, 4), "Y": u(1, 4)}, wrt=("X", "Y")),
    Case("cumsum", {"X": u(3, 4)}, {"axis": 0, "exclusive": True}),
    Case("cumsum", {"X": u(2, 3)}, {"flatten": True, "reverse": True}),
    Case("gather", {"X": u(4, 3), "Index": np.array([3, 0, 3])}, {"axis": 0}),
    Case("gather", {"X": u(2, 4), "Index": np.array([1, 2])}, {"axis": 1}),
    Case("gather_nd", {"X": u(3, 4, 2), "Index": np.array([[2, 1], [0, 3], [2, 1]])}),
    Case("gather_nd", {"X": u(3, 2), "Index": np.array([[[1]], [[1]]])}),
    Case("index_select", {"X": u(3, 4), "Index": np.array([3, 0, 3])}, {"dim": 1}),
    Case("broadcast_tensors", {"X": [u(2, 1), u(3)]}, output_counts={"Out": 2}),
    Case("index_put", {"x": u(3, 4), "indices": [np.array([2, 0]), np.array([1, 1])],
                       "value": u(1)}, wrt=("x", "value")),
    Case("index_put", {"x": u(3, 2), "indices": [np.array([True, False, True])],
                       "value": u(2)}, {"accumulate": True}, wrt=("x", "value")),
    Case("set_value", {"Input": u(3, 4), "ValueTensor": u(4)},
         {"axes": [0], "starts": [1], "ends": [2], "steps": [1], "decrease_axes": [0]},
         wrt=("Input", "ValueTensor")),
    Case("set_value", {"Input": u(4, 3)}, {"axes": [0, 1], "starts": [0, 2], "ends": [4, 3],
                                          "steps": [2, 1], "values": [0.5], "shape": [1],
                                          "dtype": 6}, wrt=("Input",)),
    Case("tile", {"X": u(2, 3)}, {"repeat_times": [2, 1, 2]}),
    Case("expand_v2", {"X": u(3, 1)}, {"shape": [2, -1, 4]}),
    Case("argsort", {"X": distinct(3, 4)}, {"axis": 0, "descending": True}, outputs=["Out"]),
    Case("p_norm", {"X": away(3, 4)}, {"axis": 1, "keepdim": True}),
    Case("p_norm", {"X": away(2, 3)}, {"porder": 3.0, "asvector": True}),
    Case("p_norm", {"X": distinct(3, 4)}, {"porder": float("inf"), "axis": 0}),
    # more of the math API (tests/test_paddle_corpus.py checks their forward values against Paddle)
    Case("sign", {"X": away(3, 4)}),
    Case("floor", {"X": away(3, 4, points=(-1.0, 0.0, 1.0))}),
    Case("round", {"X": away(3, 4, points=(-0.5, 0.5))}),
    Case("reciprocal", {"X": pos(3, 4)}),
    Case("rsqrt", {"X": pos(3, 4)}),
    Case("elu", {"X": away(3, 4)}, {"alpha": 0.7}),
    Case("reduce_prod", {"X": pos(3, 4)}, {"dim": [1]}),
    Case("reduce_prod", {"X": pos(2, 3)}, {"reduce_all": True}),
    Case("logsumexp", {"X": u(3, 4)}, {"axis": [1], "keepdim": True}),
    Case("logsumexp", {"X": u(2, 3)}, {"reduce_all": True}),
    Case("strided_slice", {"Input": u(4, 5)}, {"axes": [0, 1], "starts": [0, 1], "ends": [4, 5],
                                               "strides": [2, 3], "decrease_axis": []},
         wrt=("Input",)),
    Case("sigmoid_cross_entropy_with_logits", {"X": u(3, 4), "Label": u(3, 4, lo=0.0)}),
    Case("sigmoid_cross_entropy_with_logits", {"X": u(2, 3), "Label": u(2, 3, lo=0.0),
                                               "pos_weight": pos(2, 3)}),
    Case("bce_loss", {"X": u(3, 4, lo=0.1, hi=0.9), "Label": u(3, 4, lo=0.0)}),
    Case("huber_loss", {"X": away(3, 4, points=(-0.5, 0.5)), "Y": np.zeros((3, 4))},
         {"delta": 0.5}, wrt=("X", "Y"), outputs=["Out"]),
    Case("nll_loss", {"X": u(4, 3), "Label": np.array([0, 2, 1, 2])}, outputs=["Out"]),
    Case("nll_loss", {"X": u(3, 3), "Label": np.array([1, 0, 2]), "Weight": pos(3)},
         {"reduction": "none"}, outputs=["Out"]),
    Case("kldiv_loss", {"X": u(3, 4), "Target": pos(3, 4)}, {"reduction": "batchmean"}),
    # control flow and tensor arrays
    Case("select_input", {"X": [u(2, 3)], "Mask": np.array([0], np.int32)}),
    Case("select_output", {"X": u(2, 3), "Mask": np.array([0], np.int32)}),
    Case("write_to_array", {"X": u(2, 3), "I": np.array([0])}, array_outputs={"Out": 1}),
    Case("read_from_array", {"X": ArrayInput([u(2, 3), u(2, 3), u(2, 3)]),
                             "I": np.array([1])}),
    Case("tensor_array_to_tensor", {"X": ArrayInput([u(2, 3), u(2, 1)])}, {"axis": 1},
         outputs=["Out"]),
    Case("tensor_array_to_tensor", {"X": ArrayInput([u(2, 3), u(2, 3)])},
         {"axis": 0, "use_stack": True}, outputs=["Out"]),
    Case("py_func", {"X": [u(2, 3)]},
         {"forward_callable_name": py_func_name(register_py_func(cube)),
          "backward_callable_name": py_func_name(register_py_func(cube_backward))}),
    # sequence models and general ops (ops/rnn.py, einsum.py, index.py, creation.py, linalg.py)
    Case("sin", {"X": u(3, 4)}),
    Case("cos", {"X": u(3, 4)}),
    Case("ceil", {"X": away(3, 4, points=(-1.0, 0.0, 1.0))}),
    Case("tril_triu", {"X": u(3, 4)}, {"diagonal": 0, "lower": True}),
    Case("tril_triu", {"X": u(2, 3, 4)}, {"diagonal": 1, "lower": False}),
    Case("index_select", {"X": u(4, 3), "Index": np.array([3, 0, 3])}, {"dim": 0}),
    Case("index_select", {"X": u(2, 5), "Index": np.array([4, 1])}, {"dim": -1}),
    Case("take_along_axis", {"Input": u(3, 4), "Index": np.array([[0, 3, 3], [1, 1, 2],
                                                                   [2, 0, -1]])},
         {"Axis": 1}, wrt=("Input",)),
    Case("gather", {"X": u(3, 3), "Index": np.array([2, 0, 2]), "Axis": np.array([1])}),
    Case("gather", {"X": u(4, 3), "Index": np.array([3, 1])}, {"axis": 0}),
    Case("bmm", {"X": u(2, 3, 4), "Y": u(2, 4, 5)}, wrt=("X", "Y")),
    Case("einsum", {"Operands": [u(3, 4), u(4, 5)]}, {"equation": "ij,jk->ik"},
         wrt=("Operands",), output_counts=_TWO),
    Case("einsum", {"Operands": [u(2, 3, 4), u(1, 4)]}, {"equation": "...j,...j->..."},
         wrt=("Operands",), output_counts=_TWO),
    Case("einsum", {"Operands": [u(3, 3, 2)]}, {"equation": "iij->j"}, wrt=("Operands",),
         outputs=["Out"]),
    Case("einsum", {"Operands": [u(2, 3), u(3, 4)]}, {"equation": "ij,jk"}, wrt=("Operands",),
         output_counts=_TWO),
    Case("einsum", {"Operands": [u(2, 3), u(4)]}, {"equation": "ij,k->i"}, wrt=("Operands",),
         output_counts=_TWO),
    *RNN_CASES,
    # vision ops: activations, padding, normalization, pooling with indices, convolutions,
    # interpolation (tests/test_vision_ops.py and test_interpolate_ops.py check their values)
    Case("brelu", {"X": away(3, 4, points=(-0.5, 0.7), margin=0.05)}, {"t_min": -0.5,
                                                                        "t_max": 0.7}),
    Case("celu", {"X": away(3, 4)}, {"alpha": 0.8}),
    Case("hard_shrink", {"X": away(3, 4, points=(-0.3, 0.3), margin=0.05)}, {"threshold": 0.3}),
    Case("logsigmoid", {"X": u(3, 4, lo=-3.0, hi=3.0)}),
    Case("mish", {"X": u(3, 4, lo=-3.0, hi=3.0)}),
    Case("mish", {"X": away(3, 4, points=(0.5,), margin=0.05)}, {"threshold": 0.5}),
    Case("selu", {"X": away(3, 4)}),
    Case("softplus", {"X": away(3, 4, points=(0.25,), margin=0.05)}, {"beta": 2.0,
                                                                       "threshold": 0.5}),
    Case("softshrink", {"X": away(3, 4, points=(-0.2, 0.2), margin=0.05)}, {"lambda": 0.2}),
    Case("softsign", {"X": away(3, 4)}),
    Case("tanh_shrink", {"X": u(3, 4)}),
    Case("thresholded_relu", {"X": away(3, 4, points=(0.4,), margin=0.05)}, {"threshold": 0.4}),
    Case("prelu", {"X": away(2, 3), "Alpha": np.array([0.3])}, wrt=("X", "Alpha")),
    Case("prelu", {"X": away(2, 3, 2, 2), "Alpha": u(3)}, {"mode": "channel"},
         wrt=("X", "Alpha")),
    Case("prelu", {"X": away(2, 2, 2, 3), "Alpha": u(3)}, {"mode": "channel",
                                                          "data_format": "NHWC"},
         wrt=("X", "Alpha")),
    Case("prelu", {"X": away(2, 3, 2), "Alpha": u(1, 3, 2)}, {"mode": "element"},
         wrt=("X", "Alpha")),
    Case("pad", {"X": u(2, 3)}, {"paddings": [1, 0, 2, 1], "pad_value": 0.5}),
    Case("pad3d", {"X": u(1, 2, 2, 3, 3)}, {"paddings": [1, 2, 0, 1, 1, 0], "value": 0.5}),
    Case("pad3d", {"X": u(1, 2, 2, 3, 3)}, {"paddings": [1, 2, 0, 1, 1, 0], "mode": "reflect"}),
    Case("pad3d", {"X": u(1, 2, 3, 3, 2)}, {"paddings": [1, 0, 2, 1, 0, 1],
                                            "mode": "replicate", "data_format": "NDHWC"}),
    Case("pad3d", {"X": u(1, 1, 2, 2, 3)}, {"paddings": [4, 1, 0, 2, 1, 1],
                                            "mode": "circular"}),
    Case("group_norm", {"X": u(2, 4, 3), "Scale": pos(4), "Bias": u(4)}, {"groups": 2},
         wrt=("X", "Scale", "Bias"), outputs=["Y"]),
    Case("group_norm", {"X": u(2, 2, 3, 4), "Scale": pos(4), "Bias": u(4)},
         {"groups": 2, "data_layout": "NHWC"}, wrt=("X", "Scale", "Bias"), outputs=["Y"]),
    Case("instance_norm", {"X": u(2, 3, 4), "Scale": pos(3), "Bias": u(3)},
         wrt=("X", "Scale", "Bias"), outputs=["Y"]),
    Case("max_pool2d_with_index", {"X": distinct(1, 2, 5, 5)}, {"ksize": [3, 3],
                                                                "strides": [2, 2],
                                                                "paddings": [1, 1]}),
    Case("max_pool2d_with_index", {"X": distinct(1, 2, 5, 7)}, {"ksize": [2, 3],
                                                                "adaptive": True}),
    Case("conv3d", {"Input": u(1, 2, 3, 4, 3), "Filter": u(2, 1, 2, 2, 2)},
         {"groups": 2, "paddings": [1, 0, 1], "strides": [1, 2, 1]}, wrt=("Input", "Filter")),
    Case("conv3d", {"Input": u(1, 3, 4, 3, 2), "Filter": u(2, 2, 2, 1, 2)},
         {"data_format": "NDHWC", "padding_algorithm": "SAME"}, wrt=("Input", "Filter")),
    Case("conv2d_transpose", {"Input": u(1, 2, 3, 4), "Filter": u(2, 3, 3, 3)},
         {"strides": [2, 2], "paddings": [1, 1], "output_padding": [1, 1]},
         wrt=("Input", "Filter")),
    Case("conv2d_transpose", {"Input": u(1, 3, 4, 4), "Filter": u(4, 2, 2, 3)},
         {"groups": 2, "strides": [2, 1], "paddings": [1, 0, 0, 2], "dilations": [1, 2],
          "data_format": "NHWC"}, wrt=("Input", "Filter")),
    Case("depthwise_conv2d_transpose", {"Input": u(1, 3, 3, 3), "Filter": u(3, 1, 3, 3)},
         {"groups": 3, "strides": [2, 2], "padding_algorithm": "SAME"},
         wrt=("Input", "Filter")),
    Case("conv3d_transpose", {"Input": u(1, 2, 2, 3, 2), "Filter": u(2, 2, 2, 2, 3)},
         {"groups": 2, "strides": [2, 1, 2], "paddings": [1, 0, 1], "dilations": [1, 2, 1],
          "output_padding": [1, 0, 1]}, wrt=("Input", "Filter")),
    Case("conv3d_transpose", {"Input": u(1, 2, 3, 2, 2), "Filter": u(2, 1, 2, 2, 1)},
         {"strides": [1, 2, 2], "padding_algorithm": "SAME", "output_size": [2, 6, 4],
          "data_format": "NHWC"}, wrt=("Input", "Filter")),
    Case("bilinear_interp_v2", {"X": u(1, 2, 3, 4)}, {"scale": [1.5, 2.0],
                                                       "align_corners": False, "align_mode": 0}),
    Case("bilinear_interp_v2", {"X": u(1, 3, 4, 2)}, {"out_h": 5, "out_w": 3,
                                                       "data_layout": "NHWC"}),
    Case("nearest_interp_v2", {"X": u(1, 2, 3, 4)}, {"interp_method": "nearest",
                                                      "scale": [2.0, 1.5],
                                                      "align_corners": False}),
    Case("bicubic_interp_v2", {"X": u(1, 2, 3, 4)}, {"interp_method": "bicubic", "out_h": 5,
                                                      "out_w": 6}),
    Case("linear_interp_v2", {"X": u(1, 2, 4)}, {"interp_method": "linear", "out_w": 7,
                                                  "align_corners": False}),
    Case("trilinear_interp_v2", {"X": u(1, 1, 2, 3, 2)}, {"interp_method": "trilinear",
                                                           "scale": [1.5, 2.0, 1.5]}),
    # (appended last: the cases above keep their random inputs)
    # the kernels of ops/conv_kernels.py: pointwise (strided, NHWC), im2col over a batch
    # (grouped, dilated), im2col from stride phases, direct depthwise (multiplier, dilation)
    Case("conv2d", {"Input": u(1, 3, 3, 2), "Filter": u(2, 2, 1, 1)},
         {"strides": [2, 2], "data_format": "NHWC"}, wrt=("Input", "Filter")),
    Case("conv2d", {"Input": u(2, 4, 5, 5), "Filter": u(2, 2, 2, 2)},
         {"groups": 2, "dilations": [2, 2]}, wrt=("Input", "Filter")),
    Case("conv2d", {"Input": u(1, 2, 5, 6), "Filter": u(2, 2, 3, 3)},
         {"strides": [2, 3], "paddings": [2, 0, 1, 1]}, wrt=("Input", "Filter")),
    Case("depthwise_conv2d", {"Input": u(1, 5, 5, 2), "Filter": u(4, 1, 3, 3)},
         {"groups": 2, "strides": [2, 2], "paddings": [1, 1], "data_format": "NHWC"},
         wrt=("Input", "Filter")),
    Case("depthwise_conv2d", {"Input": u(2, 2, 5, 5), "Filter": u(2, 1, 2, 2)},
         {"groups": 2, "dilations": [2, 2], "paddings": [1, 1]}, wrt=("Input", "Filter")),
    # pool2d by strided views: overlapping max windows, ceil-mode average, adaptive windows
    Case("pool2d", {"X": distinct(2, 1, 5, 5)}, {"ksize": [3, 3], "strides": [2, 2],
                                                 "paddings": [1, 1]}),
    Case("pool2d", {"X": u(1, 2, 5, 4)}, {"pooling_type": "avg", "ksize": [2, 3],
                                          "strides": [2, 2], "ceil_mode": True,
                                          "exclusive": False, "data_format": "NHWC"}),
    Case("pool2d", {"X": distinct(1, 2, 4, 6)}, {"ksize": [2, 3], "adaptive": True}),
    # windows tiling the input exactly (phases as views): disjoint average, overlapping max
    Case("pool2d", {"X": u(1, 2, 4, 6)}, {"pooling_type": "avg", "ksize": [2, 2],
                                          "strides": [2, 2]}),
    Case("pool2d", {"X": distinct(1, 2, 5, 6)}, {"ksize": [3, 2], "strides": [1, 2]}),
    # fc: eager F.linear's op (3-D input, relu, Paddle's padded weights)
    Case("fc", {"Input": u(2, 3, 4), "W": u(4, 5), "Bias": u(5)}, {"in_num_col_dims": 2},
         wrt=("Input", "W", "Bias")),
    Case("fc", {"Input": away(3, 4), "W": u(4, 2)}, {"activation_type": "relu"},
         wrt=("Input", "W")),
    Case("fc", {"Input": u(3, 4), "W": u(8, 9), "Bias": u(5)}, {"padding_weights": True},
         wrt=("Input", "W", "Bias")),
    # channel last, one filter per channel: the forward is the NHWC einsum (per column phase
    # at stride 1 and when strided with few channels, else over the strided windows)
    Case("depthwise_conv2d", {"Input": u(2, 5, 6, 3), "Filter": u(3, 1, 3, 3)},
         {"groups": 3, "paddings": [1, 1], "data_format": "NHWC"}, wrt=("Input", "Filter")),
    Case("depthwise_conv2d", {"Input": u(1, 7, 9, 2), "Filter": u(2, 1, 3, 3)},
         {"groups": 2, "strides": [2, 2], "paddings": [1, 0, 1, 1], "dilations": [1, 2],
          "data_format": "NHWC"}, wrt=("Input", "Filter")),
]


def _case_id(case: Case) -> str:
    return case.op_type


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_grad_matches_central_differences(case: Case):
    check_grad(case.op_type, case.inputs, case.attrs, wrt=case.wrt,
               no_grad_set=case.no_grad_set, outputs=case.outputs,
               output_counts=case.output_counts, array_outputs=case.array_outputs)


def test_checker_rejects_a_wrong_grad_rule(monkeypatch):
    wrong = get_op("square_grad")
    monkeypatch.setattr(wrong, "kernel", lambda x, dout: dout * x)   # d(x^2)/dx is 2x, not x
    with pytest.raises(AssertionError, match="d loss / d in_x_0"):
        check_grad("square", {"X": u(2, 3)})

