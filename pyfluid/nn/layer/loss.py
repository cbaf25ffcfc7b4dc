"""Loss layers."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer


class CrossEntropyLoss:
    """``paddle.nn.CrossEntropyLoss``: calling it applies ``F.cross_entropy`` with the
    arguments given here. As in Paddle, ``use_softmax=True`` applies softmax to the input even
    when the input already is a softmax output."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean",
                 soft_label: bool = False, axis: int = -1, use_softmax: bool = True,
                 label_smoothing: float = 0.0, name: str | None = None):
        if reduction not in ("sum", "mean", "none"):
            raise ValueError("The value of 'reduction' in CrossEntropyLoss should be 'sum', "
                             f"'mean' or 'none', but received {reduction}, which is not allowed.")
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.soft_label = soft_label
        self.axis = axis
        self.use_softmax = use_softmax
        self.label_smoothing = label_smoothing
        self.name = name

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label,
                               axis=self.axis, use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing, name=self.name)

    __call__ = forward


class _Loss(Layer):
    reduction_error = ""    # Paddle's message, formatted with the received reduction

    def __init__(self, reduction: str = "mean", name: str | None = None):
        if reduction not in ("sum", "mean", "none"):
            raise ValueError(self.reduction_error.format(reduction))
        super().__init__()
        self.reduction, self.name = reduction, name


class MSELoss(_Loss):
    """Mean / sum / none of ``(input - label) ** 2``."""
    reduction_error = ("'reduction' in 'MSELoss' should be 'sum', 'mean' or 'none', but "
                       "received {}.")

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class L1Loss(_Loss):
    """Mean / sum / none of ``|input - label|``."""
    reduction_error = ("The value of 'reduction' in L1Loss should be 'sum', 'mean' or 'none', "
                       "but received {}, which is not allowed.")

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction, self.name)
