"""Metric ops: accuracy and auc."""
from __future__ import annotations

import numpy as np

from .registry import register_op
from .types import Meta, VarType

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


# -- auc: the area under the ROC curve from binned prediction counts ---------------------------
# StatPos/StatNeg hold per-bin counts of positive/negative samples: a global auc
# (slide_steps=0) keeps one row [1, T+1]; a batch auc keeps slide_steps rows of per-step
# counts, their sum and a step counter ([(slide_steps + 1) * (T + 1) + 1]).
auc = register_op("auc", inputs=["Predict", "Label", "StatPos", "StatNeg", "InsTagWeight?"],
                  outputs=["AUC", "StatPosOut", "StatNegOut"],
                  attrs={"curve": "ROC", "num_thresholds": 2 ** 13 - 1, "slide_steps": 1},
                  differentiable=False,
                  infer_shape=lambda predict, label, pos, neg, weight=None, **_: (
                      Meta((), VarType.FP64), pos, neg))


def _binned(predict, label, num_thresholds: int) -> tuple[np.ndarray, np.ndarray]:
    score = predict.reshape(predict.shape[0], -1)[:, -1]      # the positive-class column
    if score.size and (score.min() < 0 or score.max() > 1):
        raise ValueError("auc: the predict data must be in [0, 1], received values in "
                         f"[{score.min()}, {score.max()}]")
    bins = (score * num_thresholds).astype(np.uint32)
    label = label.reshape(-1)
    width = num_thresholds + 1
    return (np.bincount(bins[label > 0], minlength=width).astype(np.int64),
            np.bincount(bins[label == 0], minlength=width).astype(np.int64))


def _area(pos: np.ndarray, neg: np.ndarray) -> float:
    """Trapezoids of the ROC curve swept from the highest bin down, normalized."""
    tot_pos, tot_neg = np.cumsum(pos[::-1], dtype=np.float64), np.cumsum(neg[::-1],
                                                                         dtype=np.float64)
    prev_pos = np.concatenate([[0.0], tot_pos[:-1]])
    prev_neg = np.concatenate([[0.0], tot_neg[:-1]])
    area = float(np.sum(np.abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0))
    return area / tot_pos[-1] / tot_neg[-1] if tot_pos[-1] > 0 and tot_neg[-1] > 0 else area


@auc.def_kernel
def auc_kernel(predict, label, stat_pos, stat_neg, weight=None, *, num_thresholds,
               slide_steps):
    pos, neg = stat_pos.copy(), stat_neg.copy()
    fake = weight is not None and float(np.ravel(weight)[0]) == 0
    width = num_thresholds + 1
    if slide_steps == 0:
        flat_pos, flat_neg = pos.reshape(-1), neg.reshape(-1)
        if not fake:
            new_pos, new_neg = _binned(predict, label, num_thresholds)
            flat_pos[:width] += new_pos
            flat_neg[:width] += new_neg
        return np.asarray(_area(flat_pos[:width], flat_neg[:width])), pos, neg
    step = int(pos[(slide_steps + 1) * width]) % slide_steps
    cur, total = slice(step * width, (step + 1) * width), slice(slide_steps * width,
                                                                (slide_steps + 1) * width)
    for stat in (pos, neg):
        stat[total] -= stat[cur]
    pos[cur], neg[cur] = _binned(predict, label, num_thresholds)
    if not fake:
        pos[total] += pos[cur]
        neg[total] += neg[cur]
    value = _area(pos[total], neg[total])
    pos[(slide_steps + 1) * width] += 1
    neg[(slide_steps + 1) * width] += 1
    return np.asarray(value), pos, neg
