"""Paddle 2.6's ``binary_cross_entropy(_with_logits)``, ``smooth_l1_loss``, ``nll_loss`` and
``kl_div``: one loss op each (ops/loss.py), then the reduction."""
from __future__ import annotations

from ..tensor_manip import is_static, layer_op

_REDUCTIONS = ("sum", "mean", "none")


def _check_reduction(reduction: str, api: str, allowed=_REDUCTIONS) -> None:
    if reduction not in allowed:
        raise ValueError(f"The value of 'reduction' in {api} should be "
                         f"{', '.join(repr(r) for r in allowed)}, but received {reduction}, "
                         "which is not allowed.")


def _reduce(out, reduction: str, name: str | None = None):
    from ..tensor_api import mean, sum as total
    if reduction == "sum":
        return total(out, name=name)
    if reduction == "mean":
        return mean(out, name=name)
    return out


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction: str = "mean",
                                     pos_weight=None, name: str | None = None):
    """Sigmoid cross entropy on logits (op ``sigmoid_cross_entropy_with_logits``)."""
    from ..tensor_api import add, multiply, subtract
    from ..tensor_manip import full_constant
    _check_reduction(reduction, "BCEWithLogitsLoss")
    inputs = {"X": logit, "Label": label}
    if is_static(inputs):
        one = full_constant([1], logit.dtype, 1.0)    # Paddle makes it whether used or not
    if pos_weight is not None:
        if not is_static(inputs):
            from ..eager import full
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
    from ..tensor_api import multiply
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
    from ..tensor_api import sum as total
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
