"""lookup_table_v2: the embedding lookup of ``paddle.nn.functional.embedding`` /
``paddle.static.nn.embedding``."""
from __future__ import annotations

import numpy as np

from .registry import register_op
from .types import AttrType, Meta

NO_PADDING = -1

lookup_table_v2 = register_op(
    "lookup_table_v2", inputs=["W", "Ids"], outputs=["Out"], no_grad=["Ids"],
    attrs={"padding_idx": (AttrType.LONG, NO_PADDING), "is_sparse": False,
           "is_distributed": False, "remote_prefetch": False})


@lookup_table_v2.def_infer_shape
def lookup_table_v2_shape(w: Meta, ids: Meta, **_):
    if len(w.shape) != 2:
        raise ValueError(f"W (the embedding table) must be 2-D [vocab_size, emb_dim], got "
                         f"{list(w.shape)}")
    if not ids.dtype.name_str.startswith("int"):
        raise TypeError(f"Ids must be int32 or int64, got {ids.dtype.name_str}")
    return Meta(tuple(ids.shape) + (w.shape[1],), w.dtype)


def _check_ids(w, ids):
    if ids.size and (ids.min() < 0 or ids.max() >= w.shape[0]):
        bad = ids[(ids < 0) | (ids >= w.shape[0])].ravel()[0]
        raise ValueError(f"lookup_table_v2: id {bad} is out of range [0, {w.shape[0]}): every "
                         f"id must index a row of W (vocab_size {w.shape[0]})")


@lookup_table_v2.def_kernel
def lookup_table_v2_kernel(w, ids, *, padding_idx):
    _check_ids(w, ids)
    out = w[ids]
    if padding_idx != NO_PADDING:
        out[ids == padding_idx] = 0
    return out


@lookup_table_v2.def_grad
def lookup_table_v2_grad(w, ids, dout, *, padding_idx):
    """Dense gradient of W (is_sparse is accepted, but the result is always dense)."""
    flat_ids = ids.reshape(-1)
    rows = dout.reshape(flat_ids.size, w.shape[1])
    if padding_idx != NO_PADDING:
        keep = flat_ids != padding_idx
        flat_ids, rows = flat_ids[keep], rows[keep]
    dw = np.zeros_like(w)
    np.add.at(dw, flat_ids, rows)
    return dw, None
