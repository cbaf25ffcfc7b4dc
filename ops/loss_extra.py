"""More loss ops with Paddle 2.6's slots and attributes: sigmoid_cross_entropy_with_logits,
bce_loss, huber_loss (smooth L1), nll_loss and kldiv_loss."""
from __future__ import annotations

import numpy as np

from .registry import register_op, same_as
from .types import AttrType, Meta

# -- sigmoid_cross_entropy_with_logits (F.binary_cross_entropy_with_logits) -------------------------
sigmoid_ce = register_op(
    "sigmoid_cross_entropy_with_logits", inputs=["X", "Label", "pos_weight?"], outputs=["Out"],
    attrs={"normalize": False, "ignore_index": -100}, no_grad=["Label", "pos_weight"],
    infer_shape=same_as())


def _kept(label, ignore_index):
    return label != label.dtype.type(ignore_index)


@sigmoid_ce.def_kernel
def sigmoid_ce_kernel(x, label, pos_weight=None, *, normalize, ignore_index):
    softplus = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)     # log(1 + exp(-x))
    if pos_weight is None:
        out = (1 - label) * x + softplus
    else:
        out = (1 - label) * x + pos_weight * softplus
    kept = _kept(label, ignore_index)
    out = np.where(kept, out, 0).astype(x.dtype)
    return out / max(int(kept.sum()), 1) if normalize else out


@sigmoid_ce.def_grad
def sigmoid_ce_grad(x, label, pos_weight, dout, *, normalize, ignore_index):
    sig = 1 / (1 + np.exp(-x))
    dx = sig - label if pos_weight is None else \
        (1 - label) - pos_weight * (1 - sig)
    kept = _kept(label, ignore_index)
    dx = np.where(kept, dx * dout, 0).astype(x.dtype)
    return (dx / max(int(kept.sum()), 1) if normalize else dx), None, None


# -- bce_loss (F.binary_cross_entropy on probabilities; logs clamped at -100) ------------------------
bce = register_op("bce_loss", inputs=["X", "Label"], outputs=["Out"], no_grad=["Label"],
                  infer_shape=same_as())


@bce.def_kernel
def bce_kernel(x, label):
    if np.any((x < 0) | (x > 1)):
        raise ValueError("bce_loss: Input(X) must be within [0, 1] (probabilities); apply "
                         "sigmoid first or use binary_cross_entropy_with_logits")
    with np.errstate(divide="ignore"):
        log_x = np.maximum(np.log(x), -100)
        log_1mx = np.maximum(np.log(1 - x), -100)
    return (-(label * log_x + (1 - label) * log_1mx)).astype(x.dtype)


@bce.def_grad
def bce_grad(x, label, dout):
    return dout * (x - label) / np.maximum((1 - x) * x, x.dtype.type(1e-12)), None


# -- huber_loss (F.smooth_l1_loss) ----------------------------------------------------------------------
huber = register_op("huber_loss", inputs=["X", "Y"], outputs=["Residual", "Out"],
                    attrs={"delta": 1.0}, infer_shape=lambda x, y, **_: (x, x))


@huber.def_kernel
def huber_kernel(x, y, *, delta):
    residual = y - x
    d = x.dtype.type(delta)
    magnitude = np.abs(residual)
    out = np.where(magnitude <= d, 0.5 * residual * residual, d * (magnitude - 0.5 * d))
    return residual, out.astype(x.dtype)


@huber.def_grad
def huber_grad(residual, dout, *, delta):
    d = residual.dtype.type(delta)
    slope = np.clip(residual, -d, d) * dout
    return -slope, slope


# -- nll_loss (2-D input) ------------------------------------------------------------------------------
nll = register_op("nll_loss", inputs=["X", "Label", "Weight?"], outputs=["Out", "Total_weight"],
                  attrs={"ignore_index": -100, "reduction": (AttrType.STRING, "mean")},
                  no_grad=["Label", "Weight"])


@nll.def_infer_shape
def nll_shape(x: Meta, label: Meta, weight=None, *, ignore_index, reduction):
    out = (x.shape[0],) if reduction == "none" else ()
    return Meta(out, x.dtype), Meta((), x.dtype)


def _nll_weights(x, label, weight, ignore_index):
    if x.ndim != 2:
        raise NotImplementedError(f"nll_loss: pyfluid supports 2-D input [N, C], got shape "
                                  f"{list(x.shape)}")
    index = label.reshape(-1).astype(np.int64)
    kept = index != ignore_index
    safe = np.where(kept, index, 0)
    w = np.ones(x.shape[1], x.dtype) if weight is None else weight
    return safe, np.where(kept, w[safe], 0).astype(x.dtype)


@nll.def_kernel
def nll_kernel(x, label, weight=None, *, ignore_index, reduction):
    safe, w = _nll_weights(x, label, weight, ignore_index)
    per_sample = -x[np.arange(x.shape[0]), safe] * w
    total = np.asarray(w.sum(), x.dtype)
    if reduction == "none":
        return per_sample, total
    out = per_sample.sum()
    return np.asarray(out / total if reduction == "mean" else out, x.dtype), total


@nll.def_grad
def nll_grad(x, label, weight, total_weight, dout, *, ignore_index, reduction):
    safe, w = _nll_weights(x, label, weight, ignore_index)
    scale = -w * (dout if reduction == "none" else dout.reshape(()))
    if reduction == "mean":
        scale = scale / total_weight.reshape(())
    dx = np.zeros_like(x)
    dx[np.arange(x.shape[0]), safe] = scale
    return dx, None, None


# -- kldiv_loss (F.kl_div; X holds log-probabilities) ------------------------------------------------------
kldiv = register_op("kldiv_loss", inputs=["X", "Target"], outputs=["Loss"],
                    attrs={"reduction": (AttrType.STRING, "mean")}, no_grad=["Target"])


@kldiv.def_infer_shape
def kldiv_shape(x: Meta, target: Meta, *, reduction):
    return Meta(x.shape if reduction == "none" else (), x.dtype)


def _kl_reduce(values, reduction, batch):
    if reduction == "none":
        return values
    total = values.sum()
    scale = {"sum": 1, "mean": values.size, "batchmean": batch}[reduction]
    return np.asarray(total / scale, values.dtype)


@kldiv.def_kernel
def kldiv_kernel(x, target, *, reduction):
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(target > 0, target * (np.log(target) - x), 0).astype(x.dtype)
    return _kl_reduce(loss, reduction, x.shape[0] if x.ndim else 1)


@kldiv.def_grad
def kldiv_grad(x, target, dloss, *, reduction):
    scale = {"none": 1, "sum": 1, "mean": x.size, "batchmean": x.shape[0] if x.ndim else 1}
    dx = np.where(target > 0, -target, 0) * dloss / scale[reduction]
    return dx.astype(x.dtype), None
