"""Losses (``paddle.nn.functional.loss``): each one loss op (or Paddle's composition of ops),
then the reduction, with Paddle 2.6's attributes and temporaries in static mode."""
from __future__ import annotations

from ..._dispatch import apply_op, is_static, layer_op
from ...engine.run import run_op
from ...framework.layer_helper import LayerHelper
from ...framework.variable import Variable
from ...tensor.creation import full, full_constant
from ...tensor.manipulation import cast, gather, reshape
from ...tensor.math import abs as abs_, add, multiply, square, subtract, sum as total
from ...tensor.stat import mean
from .common import _one_helper_chain


# -- losses (Paddle 2.6 static graphs: the same ops, attrs and temporaries) ---------------------
def _op_with_outputs(op_type: str, inputs: dict, attrs: dict, n_outputs: int, slots: tuple):
    """Append ``op_type`` with ``n_outputs`` temporaries named as Paddle's LayerHelper names
    them (``<op_type>_<n>.tmp_<k>``); in dynamic mode run it eagerly. Returns the outputs."""
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
        weights = reshape(gather(weight, reshape(label, [-1])), out.shape)
        out = out * weights
    if reduction == "sum":
        return total(out, name=name)
    if reduction == "none":
        return _squeeze(out, axis) if unsqueezed else out
    if ignore_index >= 0:
        out_sum = total(out, name=name)
        kept = cast(label != ignore_index, out_sum.dtype)
        count = total(kept if weights is None else kept * weights, name=name)
        return out_sum / (count + cast(count == 0.0, count.dtype))
    if weights is not None:
        return total(out, name=name) / total(weights, name=name)
    if isinstance(out, Variable):
        return mean(out, name=name)
    return run_op("reduce_mean", {"X": out},                  # mean(out) of an eager loss
                  {"dim": [], "keep_dim": False, "reduce_all": True})


def square_error_cost(input, label):
    """``(input - label) ** 2`` element-wise (``elementwise_sub`` then ``square``, named
    ``square_error_cost_<n>.tmp_0/1`` as in Paddle)."""
    return _one_helper_chain("square_error_cost", None, {"input": input, "label": label}, [
        ("elementwise_sub", {"X": input, "Y": label}, {"axis": -1}),
        ("square", {"X": None}, {})])


# -- losses ------------------------------------------------------------------------------------
def mse_loss(input, label, reduction: str = "mean", name: str | None = None):
    """Squared error ``(input - label) ** 2``, then mean / sum / none."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"'reduction' in 'mse_loss' should be 'sum', 'mean' or 'none', but "
                         f"received {reduction}.")
    if reduction == "none":
        return square(subtract(input, label), name=name)
    return (mean if reduction == "mean" else total)(square(subtract(input, label)), name=name)


def l1_loss(input, label, reduction: str = "mean", name: str | None = None):
    """Absolute error ``|input - label|``, then mean / sum / none."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"The value of 'reduction' in L1Loss should be 'sum', 'mean' or "
                         f"'none', but received {reduction}, which is not allowed.")
    if reduction == "none":
        return abs_(subtract(input, label, name=name))     # Paddle names only the difference
    unreduced = abs_(subtract(input, label))
    return (mean if reduction == "mean" else total)(unreduced, name=name)


_REDUCTIONS = ("sum", "mean", "none")


def _check_reduction(reduction: str, api: str, allowed=_REDUCTIONS) -> None:
    if reduction not in allowed:
        raise ValueError(f"The value of 'reduction' in {api} should be "
                         f"{', '.join(repr(r) for r in allowed)}, but received {reduction}, "
                         "which is not allowed.")


def _reduce(out, reduction: str, name: str | None = None):
    if reduction == "sum":
        return total(out, name=name)
    if reduction == "mean":
        return mean(out, name=name)
    return out


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction: str = "mean",
                                     pos_weight=None, name: str | None = None):
    """Sigmoid cross entropy on logits (op ``sigmoid_cross_entropy_with_logits``)."""
    _check_reduction(reduction, "BCEWithLogitsLoss")
    inputs = {"X": logit, "Label": label}
    if is_static(inputs):
        one = full_constant([1], logit.dtype, 1.0)    # Paddle makes it whether used or not
    if pos_weight is not None:
        if not is_static(inputs):
            one = full([1], 1.0, logit.dtype)
        inputs["pos_weight"] = add(multiply(label, subtract(pos_weight, one)), one)
    plain = reduction == "none" and pos_weight is None and weight is None
    out = layer_op("sigmoid_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
                   inputs, {"ignore_index": -100, "normalize": False},
                   name=name if plain else None)[0]
    if weight is not None:
        out = multiply(out, weight, name=name if reduction == "none" else None)
    return _reduce(out, reduction, name)


def binary_cross_entropy(input, label, weight=None, reduction: str = "mean",
                         name: str | None = None):
    """Binary cross entropy on probabilities (op ``bce_loss``; logs clamped at -100)."""
    _check_reduction(reduction, "bce_loss")
    plain = weight is None and reduction == "none"
    out = layer_op("binary_cross_entropy", "bce_loss", {"X": input, "Label": label},
                   name=name if plain else None)[0]
    if weight is not None:
        out = multiply(out, weight, name=name if reduction == "none" else None)
    return _reduce(out, reduction, name)


def smooth_l1_loss(input, label, reduction: str = "mean", delta: float = 1.0,
                   name: str | None = None):
    """Huber loss: ``0.5 r^2`` where ``|r| <= delta``, else ``delta (|r| - delta / 2)``."""
    _check_reduction(reduction, "smooth_l1_loss")
    _, out = layer_op("huber_loss", "huber_loss", {"X": input, "Y": label},
                      {"delta": float(delta)}, (("Residual", None, False), ("Out", None, False)))
    return _reduce(out, reduction)


def nll_loss(input, label, weight=None, ignore_index: int = -100, reduction: str = "mean",
             name: str | None = None):
    """Negative log likelihood of log-probabilities ``input`` [N, C] at int ``label`` [N]."""
    _check_reduction(reduction, "nll_loss")
    inputs = {"X": input, "Label": label}
    if weight is not None:
        inputs["Weight"] = weight
    out, _ = layer_op("nll_loss", "nll_loss", inputs,
                      {"reduction": reduction, "ignore_index": ignore_index},
                      (("Out", None, False), ("Total_weight", None, False)), name=name)
    return out


def kl_div(input, label, reduction: str = "mean", name: str | None = None):
    """KL divergence of log-probabilities ``input`` from probabilities ``label``."""
    _check_reduction(reduction, "kl_div", _REDUCTIONS + ("batchmean",))
    loss = layer_op("kl_div", "kldiv_loss", {"X": input, "Target": label},
                    {"reduction": "none"}, (("Loss", None, False),))[0]
    if reduction == "batchmean":
        batch = input.shape[0] if len(input.shape) else 1
        if batch < 0:
            raise NotImplementedError("kl_div(reduction='batchmean') needs a known batch size "
                                      "in pyfluid's static programs")
        return total(loss) / float(batch)
    return _reduce(loss, reduction)
