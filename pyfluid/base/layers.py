"""``fluid.layers``: the fluid-era layer functions used by Paddle 1.x tutorials."""
from __future__ import annotations

from typing import Any, Sequence

from ..framework.layer_helper import LayerHelper, check_type
from ..framework.variable import Variable
from ..static.block_guards import ConditionalBlock, While
from ..static.nn.control_flow import case, cond, switch_case, while_loop
from ..static.nn import fc as _fc
from ..static.py_func import append_py_func as py_func  # static, as in fluid 1.x
from ..tensor.array import array_length, array_read, array_write, create_array
from ..tensor.logic import (equal, greater_than, less_than, logical_and, logical_not,
                            logical_or, logical_xor)
from ..tensor.manipulation import reshape as _reshape
from ..tensor.manipulation import tensor_array_to_tensor
from ..tensor.math import increment

__all__ = ["ConditionalBlock", "While", "accuracy", "array_length", "array_read",
           "array_write", "case", "cond", "create_array", "cross_entropy", "equal", "fc",
           "greater_than", "increment", "less_than", "logical_and", "logical_not", "logical_or",
           "logical_xor", "mean", "py_func", "reshape", "switch_case", "tensor_array_to_tensor",
           "while_loop"]


def fc(input: Variable | Sequence[Variable], size: int, num_flatten_dims: int = 1,
       param_attr: Any = None, bias_attr: Any = None, act: str | None = None,
       name: str | None = None) -> Variable:
    """``fluid.layers.fc``: ``paddle.static.nn.fc`` with the 1.x argument names."""
    return _fc(input, size, num_flatten_dims=num_flatten_dims, weight_attr=param_attr,
               bias_attr=bias_attr, activation=act, name=name)


def cross_entropy(input: Variable, label: Variable, soft_label: bool = False,
                  ignore_index: int = -100) -> Variable:
    """Cross entropy of probabilities ``input`` (e.g. a softmax output) against ``label``:
    the ``cross_entropy2`` op for class indices, ``cross_entropy`` for soft labels."""
    check_type(input, "input", Variable, "cross_entropy")
    if not soft_label:
        helper = LayerHelper("cross_entropy2")
        out, xshape, match_x = (helper.create_variable_for_type_inference(input.dtype)
                                for _ in range(3))
        helper.append_op(type="cross_entropy2", inputs={"X": [input], "Label": [label]},
                         outputs={"Y": [out], "XShape": [xshape], "MatchX": [match_x]},
                         attrs={"ignore_index": ignore_index})
        return out
    helper = LayerHelper("cross_entropy")
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type="cross_entropy", inputs={"X": [input], "Label": [label]},
                     outputs={"Y": [out]},
                     attrs={"soft_label": soft_label, "ignore_index": ignore_index})
    return out


def mean(x: Variable, name: str | None = None) -> Variable:
    """``fluid.layers.mean``: the mean of all elements (the ``mean`` op)."""
    check_type(x, "x", Variable, "mean")
    helper = LayerHelper("mean", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="mean", inputs={"X": [x]}, outputs={"Out": [out]})
    return out


def accuracy(input: Variable, label: Variable, k: int = 1, correct: Variable | None = None,
             total: Variable | None = None) -> Variable:
    """Top-``k`` accuracy of the scores ``input`` against int64 ``label`` [N, 1]
    (``top_k`` then ``accuracy``, as fluid builds it)."""
    check_type(input, "input", Variable, "accuracy")
    helper = LayerHelper("accuracy")
    topk_out = helper.create_variable_for_type_inference(input.dtype)
    topk_indices = helper.create_variable_for_type_inference("int64")
    helper.append_op(type="top_k", inputs={"X": [input]},
                     outputs={"Out": [topk_out], "Indices": [topk_indices]}, attrs={"k": k})
    acc_out = helper.create_variable_for_type_inference("float32")
    correct = correct if correct is not None else helper.create_variable_for_type_inference("int32")
    total = total if total is not None else helper.create_variable_for_type_inference("int32")
    helper.append_op(type="accuracy",
                     inputs={"Out": [topk_out], "Indices": [topk_indices], "Label": [label]},
                     outputs={"Accuracy": [acc_out], "Correct": [correct], "Total": [total]})
    return acc_out


def reshape(x: Variable, shape: Sequence[int], actual_shape: Any = None, act: str | None = None,
            inplace: bool = False, name: str | None = None) -> Variable:
    """``fluid.layers.reshape`` (``actual_shape``/``inplace`` are accepted and ignored, as in
    Paddle 2.x), then the activation ``act`` if given."""
    out = _reshape(x, shape, name=name)
    return LayerHelper("reshape2", act=act).append_activation(out)
