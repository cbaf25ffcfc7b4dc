"""``paddle.static.accuracy`` and ``paddle.static.auc``."""
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


def auc(input: Variable, label: Variable, curve: str = "ROC", num_thresholds: int = 2 ** 12 - 1,
        topk: int = 1, slide_steps: int = 1, ins_tag_weight: Variable | None = None) -> tuple:
    """The area under the ROC curve of the positive-class scores ``input`` [N, 2] (or [N, 1])
    against 0/1 ``label``: over every batch so far (``auc_out``) and over the last
    ``slide_steps`` batches (``batch_auc_out``). Returns ``(auc_out, batch_auc_out,
    [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg])``; the four persistable int64
    count tensors start at 0 (set them to 0 again to restart the count)."""
    from ..nn.initializer import Constant
    from ..tensor.creation import full
    check_type(input, "input", Variable, "auc")
    check_dtype(input.dtype, "input", FLOAT_DTYPES, "auc")
    helper = LayerHelper("auc")
    if ins_tag_weight is None:
        full([1, 1], 1.0, "float32")      # Paddle builds it and leaves InsTagWeight empty
    auc_out = helper.create_variable_for_type_inference(dtype="float64")
    batch_auc_out = helper.create_variable_for_type_inference(dtype="float64")
    shapes = [[(1 + slide_steps) * (num_thresholds + 1) + 1]] * 2 + [[1, num_thresholds + 1]] * 2
    states = [helper.create_global_variable(persistable=True, dtype="int64", shape=shape)
              for shape in shapes]
    for var in states:
        helper.set_variable_initializer(var, Constant(0.0))
    for out, pos, neg, steps in ((batch_auc_out, states[0], states[1], slide_steps),
                                 (auc_out, states[2], states[3], 0)):
        helper.append_op(type="auc", inputs={"Predict": [input], "Label": [label],
                                             "StatPos": [pos], "StatNeg": [neg]},
                         attrs={"curve": curve, "num_thresholds": num_thresholds,
                                "slide_steps": steps},
                         outputs={"AUC": [out], "StatPosOut": [pos], "StatNegOut": [neg]})
    return auc_out, batch_auc_out, states
