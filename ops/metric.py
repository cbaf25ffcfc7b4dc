"""Metric ops: accuracy."""
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
