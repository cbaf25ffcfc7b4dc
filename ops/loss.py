"""Loss ops: softmax_with_cross_entropy, cross_entropy / cross_entropy2 (on probabilities),
sigmoid_cross_entropy_with_logits, bce_loss, huber_loss (smooth L1), nll_loss and kldiv_loss,
with Paddle 2.6's slots and attributes."""
from __future__ import annotations

import numpy as np

from .common import axis_reduce, normalize_axis
from .registry import OpDef, grad_name, register, register_op, same_as
from .types import AttrType, Meta

_TINY_LOG = -1e20   # Paddle's TolerableValue: log(0) becomes -1e20 instead of -inf


def _tolerable_log(p):
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(p), p.dtype.type(_TINY_LOG))


def _hard_label_mask(label, ignore_index, depth, axis):
    """One-hot of ``label`` along ``axis`` (ignored labels give all-zero rows), and the
    0/1 mask of samples that count."""
    keep = label != ignore_index
    safe = np.where(keep, label, 0)
    if np.any((safe < 0) | (safe >= depth)):
        bad = label[keep & ((label < 0) | (label >= depth))].ravel()[0]
        raise ValueError(f"label value {bad} is out of range [0, {depth}): each hard label "
                         f"must be a class index (or ignore_index={ignore_index})")
    classes = np.arange(depth).reshape((depth,) + (1,) * (label.ndim - axis - 1))
    return (safe == classes) & keep, keep


# -- softmax_with_cross_entropy ------------------------------------------------------------------
swce = register_op(
    "softmax_with_cross_entropy", inputs=["Logits", "Label"], outputs=["Softmax", "Loss"],
    attrs={"soft_label": False, "use_softmax": True, "numeric_stable_mode": True,
           "ignore_index": -100, "axis": -1},
    no_grad=["Label"])


@swce.def_infer_shape
def swce_shape(logits: Meta, label: Meta, *, soft_label, axis, **_):
    rank = len(logits.shape)
    if len(label.shape) != rank:
        raise ValueError(f"Input(Logits) and Input(Label) shall have the same rank: Logits "
                         f"{list(logits.shape)}, Label {list(label.shape)}; for hard labels "
                         "give Label the shape of Logits with 1 on the class axis")
    ax = normalize_axis(axis, rank)
    loss_shape = tuple(1 if i == ax else d for i, d in enumerate(logits.shape))
    if not soft_label and label.shape[ax] not in (1, -1):
        raise ValueError(f"with soft_label=False, Label's dim {ax} must be 1, got Label "
                         f"{list(label.shape)} for Logits {list(logits.shape)}")
    return logits, Meta(loss_shape, logits.dtype)


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _all_in_range(label, depth) -> bool:
    """Whether every label is in [0, depth): for signed integers one pass over the values
    read as unsigned (a negative one reads as a huge one)."""
    if label.dtype.kind == "i":
        return np.maximum.reduce(label.view(_UNSIGNED[label.dtype.itemsize]), axis=None) < depth
    return 0 <= label.min() and label.max() < depth


def _hard_label_index(label, ignore_index, depth):
    """Class indices of ``label`` (ignored ones replaced by 0) and the mask of samples that
    count; raises for an index out of range."""
    if label.size and not 0 <= ignore_index < depth and _all_in_range(label, depth):
        return label.astype(np.intp, copy=False), np.True_     # all valid, none ignored
    keep = label != ignore_index
    safe = np.where(keep, label, 0) if not keep.all() else label
    if np.any((safe < 0) | (safe >= depth)):
        bad = label[keep & ((label < 0) | (label >= depth))].ravel()[0]
        raise ValueError(f"label value {bad} is out of range [0, {depth}): each hard label "
                         f"must be a class index (or ignore_index={ignore_index})")
    return safe.astype(np.intp, copy=False), keep


def _flat_rows(values, index, ax):
    """For a C-contiguous 2-D ``values`` and classes on axis 1: the positions of each row's
    class ``index`` in ``values.reshape(-1)`` (one flat gather or scatter is cheaper than
    indexing by (rows, columns)); None otherwise."""
    if values.ndim == 2 and ax == 1 and values.shape[1] and values.flags.c_contiguous:
        return np.arange(0, values.size, values.shape[1]) + index[:, 0]
    return None


def _pick(values, index, ax):
    """``values`` at the class ``index`` along ``ax`` (index has size 1 on that axis)."""
    flat = _flat_rows(values, index, ax)
    if flat is not None:
        return values.reshape(-1)[flat][:, None]
    return np.take_along_axis(values, index, axis=ax)


@swce.def_kernel
def swce_kernel(logits, label, *, soft_label, use_softmax, ignore_index, axis):
    ax = normalize_axis(axis, logits.ndim)
    if use_softmax and not soft_label:      # the common case, in as few passes as possible
        shifted = logits - axis_reduce(logits, np.maximum, ax)
        e = np.exp(shifted)
        total = axis_reduce(e, np.add, ax)
        index, keep = _hard_label_index(label, ignore_index, logits.shape[ax])
        loss = np.log(total) - _pick(shifted, index, ax)
        if keep is not np.True_ and not keep.all():     # np.True_: every label counts
            loss = np.where(keep, loss, loss.dtype.type(0))
        return np.divide(e, total, out=e), loss.astype(logits.dtype, copy=False)
    if use_softmax:
        shifted = logits - logits.max(axis=ax, keepdims=True)
        log_sum = np.log(np.exp(shifted).sum(axis=ax, keepdims=True))
        log_prob = shifted - log_sum
        softmax = np.exp(log_prob)
    else:
        softmax = logits.copy()
        log_prob = _tolerable_log(logits)
    if soft_label:
        loss = -(label * log_prob).sum(axis=ax, keepdims=True)
    else:
        onehot, keep = _hard_label_mask(label, ignore_index, logits.shape[ax], ax)
        loss = -np.where(onehot, log_prob, 0).sum(axis=ax, keepdims=True)
    return softmax, loss.astype(logits.dtype, copy=False)


@swce.def_grad(exact=True, never_raises=True)     # Logits is the one differentiable input
def swce_grad(label, softmax, dloss, *, soft_label, use_softmax, ignore_index, axis):
    ax = normalize_axis(axis, softmax.ndim)
    if soft_label:
        target = label.astype(softmax.dtype, copy=False)
        if use_softmax:
            return (softmax * target.sum(axis=ax, keepdims=True) - target) * dloss
        return -dloss * target / softmax
    if use_softmax:
        index, keep = _hard_label_index(label, ignore_index, softmax.shape[ax])
        scale = dloss * keep if keep is not np.True_ and not keep.all() else dloss
        grad = softmax * scale
        flat = _flat_rows(grad, index, ax)
        if flat is not None:
            grad.reshape(-1)[flat] -= scale[:, 0] if scale.ndim else scale
        elif grad.ndim == 2 and ax == 1:
            grad[np.arange(len(grad)), index[:, 0]] -= scale[:, 0] if scale.ndim else scale
        else:
            np.put_along_axis(grad, index, np.take_along_axis(grad, index, axis=ax) - scale,
                              axis=ax)
        return grad
    onehot, keep = _hard_label_mask(label, ignore_index, softmax.shape[ax], ax)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(onehot, -dloss / softmax, 0).astype(softmax.dtype)


# -- cross_entropy (fluid era): X holds probabilities, classes on the last axis ------------------
def _ce_shape(x: Meta, label: Meta, *, soft_label=False, **_):
    if len(label.shape) != len(x.shape):
        raise ValueError(f"Input(X) and Input(Label) shall have the same rank: X {list(x.shape)}, "
                         f"Label {list(label.shape)}")
    if not soft_label and label.shape[-1] not in (1, -1):
        raise ValueError(f"with soft_label=False the last dim of Label must be 1, got "
                         f"{list(label.shape)}")
    return Meta(tuple(x.shape[:-1]) + (1,), x.dtype)


cross_entropy = register_op("cross_entropy", inputs=["X", "Label"], outputs=["Y"],
                            attrs={"soft_label": False, "ignore_index": -100},
                            no_grad=["Label"], infer_shape=_ce_shape)


@cross_entropy.def_kernel
def cross_entropy_kernel(x, label, *, soft_label, ignore_index):
    log_p = _tolerable_log(x)
    if soft_label:
        return -(label * log_p).sum(axis=-1, keepdims=True).astype(x.dtype, copy=False)
    onehot, _ = _hard_label_mask(label, ignore_index, x.shape[-1], x.ndim - 1)
    return -np.where(onehot, log_p, 0).sum(axis=-1, keepdims=True)


@cross_entropy.def_grad(never_raises=True)
def cross_entropy_grad(x, label, dy, *, soft_label, ignore_index):
    if soft_label:
        return -dy * label / x, None
    onehot, _ = _hard_label_mask(label, ignore_index, x.shape[-1], x.ndim - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(onehot, -dy / x, 0).astype(x.dtype), None


# cross_entropy2: hard labels only; keeps x[label] (MatchX) so that its grad op, which
# Paddle names cross_entropy_grad2, does not need X.
cross_entropy2 = register_op("cross_entropy2", inputs=["X", "Label"],
                             outputs=["Y", "XShape", "MatchX"], attrs={"ignore_index": -100},
                             no_grad=["Label"])


@cross_entropy2.def_infer_shape
def cross_entropy2_shape(x: Meta, label: Meta, *, ignore_index):
    y = _ce_shape(x, label)
    return y, Meta((0,) + tuple(x.shape), x.dtype), y


@cross_entropy2.def_kernel
def cross_entropy2_kernel(x, label, *, ignore_index):
    onehot, keep = _hard_label_mask(label, ignore_index, x.shape[-1], x.ndim - 1)
    match_x = np.where(onehot, x, 0).sum(axis=-1, keepdims=True)
    y = np.where(keep, -_tolerable_log(np.where(keep, match_x, 1)), 0).astype(x.dtype)
    return y, np.empty((0,) + x.shape, dtype=x.dtype), match_x


cross_entropy_grad2 = register(OpDef("cross_entropy_grad2", differentiable=False,
                                     inputs=["Label", "MatchX", "XShape", "Y@GRAD"],
                                     outputs=["X@GRAD"], attrs={"ignore_index": -100}))


@cross_entropy_grad2.def_kernel
def cross_entropy_grad2_kernel(label, match_x, xshape, dy, *, ignore_index):
    shape = xshape.shape[1:]
    onehot, keep = _hard_label_mask(label, ignore_index, shape[-1], len(shape) - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(keep, -dy / match_x, 0)
    return np.where(onehot, scale, 0).astype(match_x.dtype)


@cross_entropy2.def_grad_maker
def cross_entropy2_grad_maker(op, no_grad_names: set) -> list[dict]:
    dx = grad_name(op.input("X")[0])
    if dx in no_grad_names:
        return []
    return [{"type": "cross_entropy_grad2",
             "inputs": {"Label": op.input("Label"), "MatchX": op.output("MatchX"),
                        "XShape": op.output("XShape"),
                        "Y@GRAD": [grad_name(n) for n in op.output("Y")]},
             "outputs": {"X@GRAD": [dx]},
             "attrs": {"ignore_index": op.attrs.get("ignore_index", -100)}}]


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
                  attrs={"ignore_index": (AttrType.LONG, -100),
                         "reduction": (AttrType.STRING, "mean")},
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
