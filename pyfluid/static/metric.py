"""``paddle.static.accuracy``."""
from __future__ import annotations

from ..framework.layer_helper import FLOAT_DTYPES, LayerHelper, check_dtype, check_type
from ..framework.variable import Variable


def accuracy(input: Variable, label: Variable, k: int | Variable = 1,
             correct: Variable | None = None, total: Variable | None = None) -> Variable:
    """Top-``k`` accuracy of the scores ``input`` [N, C] against int labels [N, 1]: a
    ``top_k_v2`` (sorted=False) then an ``accuracy`` op, as Paddle 2.6 builds it. Returns a
    0-D float32 Variable; ``correct`` / ``total`` (int32) receive the counts when given."""
    check_type(input, "input", Variable, "accuracy")
    check_dtype(input.dtype, "input", FLOAT_DTYPES, "accuracy")
    helper = LayerHelper("accuracy")
    topk_out = helper.create_variable_for_type_inference(dtype=input.dtype)
    topk_indices = helper.create_variable_for_type_inference(dtype="int64")
    inputs = {"X": [input]}
    attrs = {"sorted": False}
    if isinstance(k, Variable):
        inputs["K"] = [k]
    else:
        attrs["k"] = int(k)
    helper.append_op(type="top_k_v2", inputs=inputs, attrs=attrs,
                     outputs={"Out": [topk_out], "Indices": [topk_indices]})
    acc_out = helper.create_variable_for_type_inference(dtype="float32")
    if correct is None:
        correct = helper.create_variable_for_type_inference(dtype="int32")
    if total is None:
        total = helper.create_variable_for_type_inference(dtype="int32")
    helper.append_op(type="accuracy",
                     inputs={"Out": [topk_out], "Indices": [topk_indices], "Label": [label]},
                     outputs={"Accuracy": [acc_out], "Correct": [correct], "Total": [total]})
    return acc_out
