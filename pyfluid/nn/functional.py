"""``paddle.nn.functional``."""
from __future__ import annotations

from .._dispatch import apply_op
from ..tensor_api import relu, sigmoid, tanh  # noqa: F401


def softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    return apply_op("softmax", {"X": x}, {"axis": axis}, name=name)


def log_softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    return apply_op("log_softmax", {"X": x}, {"axis": axis}, name=name)


# -- losses (Paddle 2.6 static graphs: the same ops, attrs and temporaries) ---------------------
def _op_with_outputs(op_type: str, inputs: dict, attrs: dict, n_outputs: int, slots: tuple):
    """Append ``op_type`` with ``n_outputs`` temporaries named as Paddle's LayerHelper names
    them (``<op_type>_<n>.tmp_<k>``); in dynamic mode run it eagerly. Returns the outputs."""
    from ..framework.layer_helper import LayerHelper
    from ..framework.variable import Variable
    first = next(iter(inputs.values()))
    if not isinstance(first, Variable):
        return apply_op(op_type, inputs, attrs)
    helper = LayerHelper(op_type)
    outs = [helper.create_variable_for_type_inference(first.dtype) for _ in range(n_outputs)]
    helper.append_op(type=op_type, inputs={k: [v] for k, v in inputs.items()},
                     outputs={slot: [v] for slot, v in zip(slots, outs)}, attrs=attrs)
    return tuple(outs)


def _unsqueeze(x, axis: int):
    return _op_with_outputs("unsqueeze2", {"X": x}, {"axes": [axis]}, 2, ("Out", "XShape"))[0]


def _squeeze(x, axis: int):
    return _op_with_outputs("squeeze2", {"X": x}, {"axes": [axis]}, 2, ("Out", "XShape"))[0]


def _label_like_input(input, label, axis: int):
    """Paddle's rule: a label of rank n-1 is unsqueezed on ``axis``; returns (label, squeezed)."""
    input_dims, label_dims = len(input.shape), len(label.shape)
    if input_dims == 0:
        raise ValueError("The dimention of input should be larger than zero!")
    if input_dims - 1 != label_dims and input_dims != label_dims:
        raise ValueError("Expected nput_dims - 1 = label_dims or input_dims == label_dims"
                         f"             (got nput_dims{input_dims}, label_dims{label_dims})")
    if input_dims - 1 == label_dims:
        return _unsqueeze(label, axis), True
    return label, False


def softmax_with_cross_entropy(logits, label, soft_label: bool = False, ignore_index: int = -100,
                               numeric_stable_mode: bool = True, return_softmax: bool = False,
                               axis: int = -1):
    """Softmax of ``logits`` on ``axis`` and its cross entropy with ``label`` in one op
    (numerically stable). Returns the loss (with 1 on ``axis``), and the softmax if asked."""
    label, _ = _label_like_input(logits, label, axis)
    attrs = {"soft_label": soft_label, "ignore_index": ignore_index,
             "numeric_stable_mode": numeric_stable_mode, "axis": axis}
    softmax, loss = _op_with_outputs("softmax_with_cross_entropy",
                                     {"Logits": logits, "Label": label}, attrs, 2,
                                     ("Softmax", "Loss"))
    return (loss, softmax) if return_softmax else loss


def cross_entropy(input, label, weight=None, ignore_index: int = -100, reduction: str = "mean",
                  soft_label: bool = False, axis: int = -1, use_softmax: bool = True,
                  label_smoothing: float = 0.0, name: str | None = None):
    """Paddle 2.6's ``cross_entropy``: ``softmax_with_cross_entropy`` (which applies softmax
    to ``input`` unless ``use_softmax=False``, even if ``input`` is already a softmax), then
    ``reduction``: 'mean' (``reduce_mean``; with ignore_index >= 0, the sum over the
    non-ignored count), 'sum' or 'none'."""
    from ..tensor_api import cast, mean, sum as sum_
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("The value of 'reduction' in softmax_cross_entropyshould be 'sum', "
                         f"'mean' or 'none', but received {reduction}, which is not allowed.")
    if ignore_index > 0 and soft_label:
        raise ValueError("When soft_label == True, the value of 'ignore_index' in "
                         f"softmax_cross_entropyshould be '-100', but received {ignore_index}, "
                         "which is not allowed.")
    if label_smoothing or (weight is not None and soft_label):
        raise NotImplementedError("cross_entropy: 'label_smoothing' and 'weight' with "
                                  "soft_label=True are not supported yet; apply them to the "
                                  "reduction='none' result")
    label, unsqueezed = _label_like_input(input, label, axis)
    attrs = {"soft_label": soft_label, "ignore_index": ignore_index, "numeric_stable_mode": True,
             "axis": axis, "use_softmax": use_softmax}
    _, out = _op_with_outputs("softmax_with_cross_entropy", {"Logits": input, "Label": label},
                              attrs, 2, ("Softmax", "Loss"))
    weights = None
    if weight is not None:      # each sample's loss times its class weight, as Paddle does
        from ..tensor_api import reshape
        from ..tensor_manip import gather
        weights = reshape(gather(weight, reshape(label, [-1])), out.shape)
        out = out * weights
    if reduction == "sum":
        return sum_(out, name=name)
    if reduction == "none":
        return _squeeze(out, axis) if unsqueezed else out
    if ignore_index >= 0:
        out_sum = sum_(out, name=name)
        kept = cast(label != ignore_index, out_sum.dtype)
        count = sum_(kept if weights is None else kept * weights, name=name)
        return out_sum / (count + cast(count == 0.0, count.dtype))
    if weights is not None:
        return sum_(out, name=name) / sum_(weights, name=name)
    return mean(out, name=name)


def _one_helper_chain(layer: str, name: str | None, inputs: dict, steps: list):
    """Run ``steps`` [(op_type, inputs-with-None-for-the-previous-result, attrs)], in static
    mode as Paddle's layer functions do: one ``LayerHelper(layer)``, so the temporaries are
    ``<layer>_<n>.tmp_0``, ``.tmp_1``...; eagerly otherwise. Returns the last result."""
    from ..tensor_manip import is_static
    helper = None
    if is_static(inputs):
        from ..framework.layer_helper import LayerHelper
        helper = LayerHelper(layer, name=name)
    result = None
    for op_type, op_inputs, attrs in steps:
        op_inputs = {k: result if v is None else v for k, v in op_inputs.items()}
        if helper is None:
            result = apply_op(op_type, op_inputs, attrs)
            continue
        result = helper.create_variable_for_type_inference(op_inputs["X"].dtype)
        helper.append_op(type=op_type, inputs=op_inputs, outputs={"Out": result}, attrs=attrs)
    return result


def square_error_cost(input, label):
    """``(input - label) ** 2`` element-wise (``elementwise_sub`` then ``square``, named
    ``square_error_cost_<n>.tmp_0/1`` as in Paddle)."""
    return _one_helper_chain("square_error_cost", None, {"input": input, "label": label}, [
        ("elementwise_sub", {"X": input, "Y": label}, {"axis": -1}),
        ("square", {"X": None}, {})])


def linear(x, weight, bias=None, name: str | None = None):
    """``x @ weight + bias`` (``matmul_v2``, then ``elementwise_add`` with axis -1; static
    temporaries ``linear_<n>.tmp_0/1`` as in Paddle)."""
    steps = [("matmul_v2", {"X": x, "Y": weight}, {"trans_x": False, "trans_y": False})]
    if bias is not None:
        steps.append(("elementwise_add", {"X": None, "Y": bias}, {"axis": -1}))
    return _one_helper_chain("linear", name, {"x": x, "weight": weight}, steps)

from .cnn_functional import (adaptive_avg_pool2d, avg_pool2d, conv2d, flatten, gelu,  # noqa: E402,F401
                             hardswish, leaky_relu, max_pool2d)
from .common_functional import (batch_norm, dropout, embedding, l1_loss,  # noqa: E402,F401
                                layer_norm, mse_loss, normalize, one_hot, relu6, silu)


def elu(x, alpha: float = 1.0, name: str | None = None):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (op ``elu``)."""
    from ..tensor_manip import layer_op
    return layer_op("elu", "elu", {"X": x}, {"alpha": float(alpha)}, name=name)[0]


from .loss_functional import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: E402,F401
                              kl_div, nll_loss, smooth_l1_loss)
