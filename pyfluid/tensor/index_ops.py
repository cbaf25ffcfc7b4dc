"""The index-driven functions of Paddle's tensor API: gather_nd, nonzero,
broadcast_tensors, index_put and unique_consecutive (each one op, appended or run eagerly)."""
from __future__ import annotations

from typing import Sequence

from .._dispatch import apply_op, layer_op
from ..framework import unique_name
from ..framework.variable import Variable
from ..ops.types import VarType, convert_dtype

__all__ = ["broadcast_tensors", "gather_nd", "index_put", "nonzero", "unique_consecutive"]


def gather_nd(x, index, name: str | None = None):
    """The slices of ``x`` at the coordinates along ``index``'s last axis."""
    return layer_op("gather_nd", "gather_nd", {"X": x, "Index": index}, name=name)[0]


def nonzero(x, as_tuple: bool = False):
    """The coordinates of the non-zero elements, [N, rank] int64 (one [N, 1] per axis with
    ``as_tuple``)."""
    where = layer_op("where_index", "where_index", {"Condition": x},
                     outputs=(("Out", VarType.INT64, True),))[0]
    if not as_tuple:
        return where
    return tuple(where[:, i:i + 1] for i in range(len(x.shape)))


def broadcast_tensors(input: Sequence, name: str | None = None) -> list:  # noqa: A002
    """Every tensor broadcast to their common shape."""
    tensors = list(input)
    if isinstance(tensors[0], Variable):
        block = tensors[0].block.program.current_block()
        prefix = name or unique_name.generate("broadcast_tensors")
        outs = [block.create_var(name=unique_name.generate_with_ignorable_key(prefix + ".tmp"),
                                 dtype=t.dtype) for t in tensors]
        apply_op("broadcast_tensors", {"X": tensors}, outputs={"Out": outs})
        return outs
    return list(apply_op("broadcast_tensors", {"X": tensors}))


def index_put(x, indices: Sequence, value, accumulate: bool = False, name: str | None = None):
    """``x`` with ``value`` written (or added, with ``accumulate``) at ``indices``."""
    return layer_op("index_put", "index_put", {"x": x, "indices": list(indices), "value": value},
                    {"accumulate": accumulate}, outputs=(("out", None, False),), name=name)[0]


def unique_consecutive(x, return_inverse: bool = False, return_counts: bool = False,
                       axis: int | None = None, dtype="int64", name: str | None = None):
    """Runs of equal consecutive elements (slices along ``axis``) collapsed to one; with the
    index of each input element's run and each run's length when asked."""
    index_dtype = convert_dtype(dtype)
    attrs = {"return_inverse": return_inverse, "return_counts": return_counts,
             "axis": [] if axis is None else [axis], "dtype": int(index_dtype)}
    out, inverse, counts = layer_op(
        "unique_consecutive", "unique_consecutive", {"X": x}, attrs,
        (("Out", None, True), ("Index", index_dtype, True), ("Counts", index_dtype, True)),
        name=name)
    extra = [t for t, wanted in ((inverse, return_inverse), (counts, return_counts)) if wanted]
    return (out, *extra) if extra else out
