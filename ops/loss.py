"""Loss and metric ops: softmax_with_cross_entropy, cross_entropy / cross_entropy2 (on
probabilities), accuracy, top_k / top_k_v2 and arg_max."""
from __future__ import annotations

import numpy as np

from .common import axis_reduce, normalize_axis
from .registry import OpDef, grad_name, register, register_op
from .types import AttrType, Meta, VarType, to_numpy_dtype

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


def _hard_label_index(label, ignore_index, depth):
    """Class indices of ``label`` (ignored ones replaced by 0) and the mask of samples that
    count; raises for an index out of range."""
    if label.size and 0 <= label.min() and label.max() < depth and not 0 <= ignore_index < depth:
        return label.astype(np.intp, copy=False), np.True_     # all valid, none ignored
    keep = label != ignore_index
    safe = np.where(keep, label, 0) if not keep.all() else label
    if np.any((safe < 0) | (safe >= depth)):
        bad = label[keep & ((label < 0) | (label >= depth))].ravel()[0]
        raise ValueError(f"label value {bad} is out of range [0, {depth}): each hard label "
                         f"must be a class index (or ignore_index={ignore_index})")
    return safe.astype(np.intp, copy=False), keep


def _pick(values, index, ax):
    """``values`` at the class ``index`` along ``ax`` (index has size 1 on that axis)."""
    if values.ndim == 2 and ax == 1:
        return values[np.arange(len(values)), index[:, 0]][:, None]
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
        if not keep.all():
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


@swce.def_grad
def swce_grad(label, softmax, dloss, *, soft_label, use_softmax, ignore_index, axis):
    ax = normalize_axis(axis, softmax.ndim)
    if soft_label:
        target = label.astype(softmax.dtype, copy=False)
        if use_softmax:
            return (softmax * target.sum(axis=ax, keepdims=True) - target) * dloss, None
        return -dloss * target / softmax, None
    if use_softmax:
        index, keep = _hard_label_index(label, ignore_index, softmax.shape[ax])
        scale = dloss * keep if not keep.all() else dloss
        grad = softmax * scale
        if grad.ndim == 2 and ax == 1:
            rows = np.arange(len(grad))
            grad[rows, index[:, 0]] -= scale[:, 0] if scale.ndim else scale
        else:
            np.put_along_axis(grad, index, np.take_along_axis(grad, index, axis=ax) - scale,
                              axis=ax)
        return grad, None
    onehot, keep = _hard_label_mask(label, ignore_index, softmax.shape[ax], ax)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(onehot, -dloss / softmax, 0).astype(softmax.dtype), None


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


@cross_entropy.def_grad
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



# -- accuracy: fraction of rows whose label is among the top-k indices ---------------------------
accuracy = register_op(
    "accuracy", inputs=["Out", "Indices", "Label"], outputs=["Accuracy", "Correct", "Total"],
    differentiable=False,
    infer_shape=lambda out, indices, label: (Meta((), VarType.FP32), Meta((), VarType.INT32),
                                             Meta((), VarType.INT32)))


@accuracy.def_kernel
def accuracy_kernel(out, indices, label):
    total = indices.shape[0]
    correct = int(np.any(indices == label.reshape(total, 1), axis=1).sum()) if total else 0
    acc = np.asarray(correct / total if total else 0.0, dtype=np.float32)
    return acc, np.asarray(correct, np.int32), np.asarray(total, np.int32)


# -- top_k / top_k_v2 ----------------------------------------------------------------------------
def _top_k(x, k, axis, largest):
    size = x.shape[axis] if x.ndim else 1
    if not 0 < k <= size:
        raise ValueError(f"top_k: k={k} must be in [1, {size}], the size of axis {axis} of X "
                         f"(shape {list(x.shape)})")
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    indices = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, indices, axis=axis), indices.astype(np.int64)


def _top_k_shape(x: Meta, k_tensor=None, *, k, axis=-1, **_):
    if not x.shape:
        return x, Meta((), VarType.INT64)
    ax = normalize_axis(axis, len(x.shape))
    shape = tuple(-1 if k_tensor is not None else k if i == ax else d
                  for i, d in enumerate(x.shape))
    return Meta(shape, x.dtype), Meta(shape, VarType.INT64)


def _scatter_back(x, indices, dout, axis):
    dx = np.zeros_like(x)
    if x.ndim == 0:
        return dout.astype(x.dtype)
    np.put_along_axis(dx, indices, dout, axis=axis)
    return dx


top_k = register_op("top_k", inputs=["X", "K?"], outputs=["Out", "Indices"], attrs={"k": 1},
                    no_grad=["K"], infer_shape=_top_k_shape)


@top_k.def_kernel
def top_k_kernel(x, k_tensor=None, *, k):
    k = int(k_tensor.reshape(())) if k_tensor is not None else k
    return _top_k(x, k, x.ndim - 1, True)


@top_k.def_grad
def top_k_grad(x, indices, dout):
    return _scatter_back(x, indices, dout, x.ndim - 1), None


top_k_v2 = register_op("top_k_v2", inputs=["X", "K?"], outputs=["Out", "Indices"],
                       attrs={"k": 1, "axis": -1, "largest": True, "sorted": True},
                       no_grad=["K"], infer_shape=_top_k_shape)


@top_k_v2.def_kernel
def top_k_v2_kernel(x, k_tensor=None, *, k, axis, largest):
    k = int(k_tensor.reshape(())) if k_tensor is not None else k
    return _top_k(x, k, normalize_axis(axis, x.ndim), largest)


@top_k_v2.def_grad
def top_k_v2_grad(x, indices, dout, *, axis):
    return _scatter_back(x, indices, dout, normalize_axis(axis, x.ndim)), None


# -- arg_max (paddle.argmax) ---------------------------------------------------------------------
arg_max = register_op("arg_max", inputs=["X"], outputs=["Out"], differentiable=False,
                      attrs={"axis": (AttrType.LONG, 0), "keepdims": False, "flatten": False,
                             "dtype": 3})


@arg_max.def_infer_shape
def arg_max_shape(x: Meta, *, axis, keepdims, flatten, dtype):
    out_dtype = VarType(dtype) if dtype != -1 else VarType.INT64
    if flatten:
        return Meta((1,) * len(x.shape) if keepdims else (), out_dtype)
    if not x.shape:
        return Meta((), out_dtype)
    ax = normalize_axis(axis, len(x.shape))
    shape = tuple(1 if i == ax else d for i, d in enumerate(x.shape)) if keepdims else \
        tuple(d for i, d in enumerate(x.shape) if i != ax)
    return Meta(shape, out_dtype)


def arg_reduce_kernel(np_fn):
    """The kernel of arg_max / arg_min (Paddle's attrs: axis, keepdims, flatten, dtype)."""
    def kernel(x, *, axis, keepdims, flatten, dtype):
        np_dtype = to_numpy_dtype(dtype if dtype != -1 else VarType.INT64)
        if flatten or x.ndim == 0:
            out = np.asarray(np_fn(x))
            return out.reshape((1,) * x.ndim if keepdims else ()).astype(np_dtype)
        return np_fn(x, axis=normalize_axis(axis, x.ndim), keepdims=keepdims).astype(np_dtype)
    kernel.__name__ = f"{np_fn.__name__}_kernel"
    return kernel


arg_max.def_kernel(arg_reduce_kernel(np.argmax))
