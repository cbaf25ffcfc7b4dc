"""Losses and metrics that evaluation programs fetch: softmax_with_cross_entropy,
cross_entropy / cross_entropy2, bce_loss, sigmoid_cross_entropy_with_logits, huber_loss,
kldiv_loss, nll_loss and accuracy. Ignored labels (``ignore_index``) give a zero loss."""
from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from ..ops.common import normalize_axis
from .registry import converter

_TINY_LOG = -1e20          # Paddle's TolerableValue: log(0) reads as -1e20


def _tolerable_log(g, x: str, dtype) -> str:
    return g.op("Max", g.op("Log", x), g.scalar(_TINY_LOG, dtype))


def _hard_pick(g, values: str, label: str, ignore_index: int, label_dtype, axis: int):
    """values[label] along ``axis`` (label has size 1 there) and the mask of kept labels;
    ignored labels read index 0 so the gather stays in range."""
    keep = g.op("Not", g.op("Equal", label, g.scalar(ignore_index, label_dtype)))
    safe = g.cast(g.op("Where", keep, label, g.scalar(0, label_dtype)), np.int64)
    return g.op("GatherElements", values, safe, axis=axis), keep


def _zero_where_ignored(g, loss: str, keep: str, dtype, out: str) -> None:
    g.op("Where", keep, loss, g.scalar(0, dtype), outputs=[out])


@converter("softmax_with_cross_entropy")
def softmax_with_cross_entropy(g, n):
    logits, label, dtype = n.input("Logits"), n.input("Label"), n.np_dtype("Logits")
    axis = normalize_axis(n.attr("axis"), n.rank("Logits"))
    if n.attr("use_softmax"):
        if n.has_output("Softmax"):
            g.op("Softmax", logits, axis=axis, outputs=[n.output("Softmax")])
        log_prob = g.op("LogSoftmax", logits, axis=axis)
    else:
        if n.has_output("Softmax"):
            g.op("Identity", logits, outputs=[n.output("Softmax")])
        log_prob = _tolerable_log(g, logits, dtype)
    loss = n.output("Loss")
    if n.attr("soft_label"):
        weighted = g.op("Mul", label, log_prob)
        g.op("Neg", g.reduce("ReduceSum", weighted, [axis], True), outputs=[loss])
        return
    picked, keep = _hard_pick(g, log_prob, label, n.attr("ignore_index"), n.np_dtype("Label"),
                              axis)
    _zero_where_ignored(g, g.op("Neg", picked), keep, dtype, loss)


@converter("cross_entropy", "cross_entropy2")
def cross_entropy(g, n):
    """X holds probabilities, classes on the last axis."""
    x, label, dtype = n.input("X"), n.input("Label"), n.np_dtype("X")
    axis = n.rank("X") - 1
    y = n.output("Y")
    if n.type == "cross_entropy" and n.attr("soft_label"):
        weighted = g.op("Mul", label, _tolerable_log(g, x, dtype))
        g.op("Neg", g.reduce("ReduceSum", weighted, [axis], True), outputs=[y])
        return
    picked, keep = _hard_pick(g, x, label, n.attr("ignore_index"), n.np_dtype("Label"), axis)
    if n.type == "cross_entropy2" and n.has_output("MatchX"):
        _zero_where_ignored(g, picked, keep, dtype, n.output("MatchX"))
    _zero_where_ignored(g, g.op("Neg", _tolerable_log(g, picked, dtype)), keep, dtype, y)


@converter("bce_loss")
def bce_loss(g, n):
    """``-(label log x + (1 - label) log(1 - x))`` with both logs clamped at -100."""
    x, label, dtype = n.input("X"), n.input("Label"), n.np_dtype("X")
    floor = g.scalar(-100, dtype)
    one = g.scalar(1, dtype)
    log_x = g.op("Max", g.op("Log", x), floor)
    log_rest = g.op("Max", g.op("Log", g.op("Sub", one, x)), floor)
    total = g.op("Add", g.op("Mul", label, log_x), g.op("Mul", g.op("Sub", one, label), log_rest))
    g.op("Neg", total, outputs=[n.output("Out")])


@converter("sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(g, n):
    """``(1 - label) x + pos_weight * log(1 + exp(-x))`` in its stable form."""
    x, label, dtype = n.input("X"), n.input("Label"), n.np_dtype("X")
    softplus = g.op("Add", g.op("Softplus", g.op("Neg", g.op("Abs", x))),
                    g.op("Relu", g.op("Neg", x)))
    if n.has("pos_weight"):
        softplus = g.op("Mul", n.input("pos_weight"), softplus)
    loss = g.op("Add", g.op("Mul", g.op("Sub", g.scalar(1, dtype), label), x), softplus)
    keep = g.op("Not", g.op("Equal", label, g.scalar(n.attr("ignore_index"), dtype)))
    out = n.output("Out")
    if not n.attr("normalize"):
        _zero_where_ignored(g, loss, keep, dtype, out)
        return
    kept = g.op("Where", keep, loss, g.scalar(0, dtype))
    count = g.op("Max", g.reduce("ReduceSum", g.cast(keep, dtype), None, False),
                 g.scalar(1, dtype))
    g.op("Div", kept, count, outputs=[out])


@converter("huber_loss")
def huber_loss(g, n):
    x, y, dtype = n.input("X"), n.input("Y"), n.np_dtype("X")
    delta = g.scalar(n.attr("delta"), dtype)
    residual = g.op("Sub", y, x, **({"outputs": [n.output("Residual")]}
                                     if n.has_output("Residual") else {}))
    magnitude = g.op("Abs", residual)
    quadratic = g.op("Mul", g.op("Mul", residual, residual), g.scalar(0.5, dtype))
    linear = g.op("Mul", delta, g.op("Sub", magnitude, g.op("Mul", delta, g.scalar(0.5, dtype))))
    g.op("Where", g.op("LessOrEqual", magnitude, delta), quadratic, linear,
         outputs=[n.output("Out")])


def _reduce_loss(g, loss: str, reduction: str, divisor: str | None, out: str) -> None:
    if reduction == "none":
        g.op("Identity", loss, outputs=[out])
        return
    total = g.reduce("ReduceSum", loss, None, False,
                     out=out if divisor is None else None)
    if divisor is not None:
        g.op("Div", total, divisor, outputs=[out])


@converter("kldiv_loss")
def kldiv_loss(g, n):
    """``target (log target - x)`` where target > 0, else 0."""
    x, target, dtype = n.input("X"), n.input("Target"), n.np_dtype("X")
    zero = g.scalar(0, dtype)
    pointwise = g.op("Mul", target, g.op("Sub", g.op("Log", target), x))
    loss = g.op("Where", g.op("Greater", target, zero), pointwise, zero)
    reduction = n.attr("reduction")
    divisor = None
    if reduction == "mean":
        divisor = g.cast(g.op("Size", x), dtype)
    elif reduction == "batchmean":
        divisor = g.cast(g.shape(x, 0, 1), dtype) if n.rank("X") else None
        divisor = g.reshape(divisor, []) if divisor else None
    _reduce_loss(g, loss, reduction, divisor, n.output("Loss"))


@converter("nll_loss")
def nll_loss(g, n):
    """2-D input [N, C] of log-probabilities and labels [N]."""
    if n.rank("X") != 2:
        n.fail(f"nll_loss is exported for 2-D input [N, C], got shape {list(n.shape('X'))}")
    x, dtype, label_dtype = n.input("X"), n.np_dtype("X"), n.np_dtype("Label")
    label = g.reshape(n.input("Label"), [-1, 1])
    picked, keep = _hard_pick(g, x, label, n.attr("ignore_index"), label_dtype, 1)
    safe = g.cast(g.op("Where", keep, label, g.scalar(0, label_dtype)), np.int64)
    if n.has("Weight"):
        weight = g.op("Gather", n.input("Weight"), g.reshape(safe, [-1]), axis=0)
    else:
        weight = g.op("ConstantOfShape", g.shape(safe, 0, 1),
                      value=numpy_helper.from_array(np.ones(1, dtype)))
    weight = g.op("Where", g.reshape(keep, [-1]), weight, g.scalar(0, dtype))
    per_sample = g.op("Neg", g.op("Mul", g.reshape(picked, [-1]), weight))
    total = g.reduce("ReduceSum", weight, None, False,
                     **({"out": n.output("Total_weight")} if n.has_output("Total_weight")
                        else {}))
    reduction = n.attr("reduction")
    _reduce_loss(g, per_sample, reduction, total if reduction == "mean" else None,
                 n.output("Out"))


@converter("accuracy")
def accuracy(g, n):
    """Fraction of rows whose label is among their top-k Indices."""
    indices, label = n.input("Indices"), n.input("Label")
    label = g.cast(g.reshape(label, [-1, 1]), n.np_dtype("Indices"))
    hit = g.reduce("ReduceMax", g.cast(g.op("Equal", indices, label), np.int32), [1], False)
    correct = g.reduce("ReduceSum", hit, None, False)
    total = g.reshape(g.cast(g.shape(indices, 0, 1), np.int32), [])
    if n.has_output("Correct"):
        g.op("Identity", correct, outputs=[n.output("Correct")])
    if n.has_output("Total"):
        g.op("Identity", total, outputs=[n.output("Total")])
    ratio = g.op("Div", g.cast(correct, np.float32),
                 g.op("Max", g.cast(total, np.float32), g.scalar(1, np.float32)))
    g.op("Identity", ratio, outputs=[n.output("Accuracy")])
