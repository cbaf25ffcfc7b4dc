"""``paddle.nn.functional.input``: one_hot and embedding."""
from __future__ import annotations

from ..._dispatch import TENSOR_TYPES, layer_op
from ...ops.types import VarType


def one_hot(x, num_classes: int, name: str | None = None):
    """float32 one-hot vectors of length ``num_classes`` for the int ids ``x`` (shape + [C])."""
    if isinstance(num_classes, TENSOR_TYPES):
        num_classes.stop_gradient = True
        inputs, attrs = {"X": x, "depth_tensor": num_classes}, {"allow_out_of_range": False}
    else:
        inputs, attrs = {"X": x}, {"depth": num_classes, "allow_out_of_range": False}
    return layer_op("one_hot_v2", "one_hot_v2", inputs, attrs,
                    (("Out", VarType.FP32, True),), name)[0]


def embedding(x, weight, padding_idx: int | None = None, sparse: bool = False,
              name: str | None = None):
    """Rows of ``weight`` for the int ids ``x`` (``lookup_table_v2``); rows of
    ``padding_idx`` (negative counts from the end) come out as zeros."""
    rows = weight.shape[0]
    padding_idx = -1 if padding_idx is None else padding_idx if padding_idx >= 0 \
        else rows + padding_idx
    if padding_idx >= rows or padding_idx < -rows:
        raise ValueError(f"padding_idx must be within [-{rows}, {rows})")
    attrs = {"is_sparse": sparse, "is_distributed": False, "remote_prefetch": sparse,
             "padding_idx": padding_idx}
    if sparse and hasattr(weight, "sparse_grad"):
        weight.sparse_grad = True       # its gradient is Paddle's SelectedRows (sparse)
    return layer_op("embedding", "lookup_table_v2", {"Ids": x, "W": weight}, attrs,
                    (("Out", weight.dtype, False),), name)[0]
