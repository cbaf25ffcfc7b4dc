"""Reductions and the ops that pick along an axis: reduce_*, mean, logsumexp, p_norm, cumsum,
arg_max / arg_min, top_k / top_k_v2 and argsort."""
from __future__ import annotations

import numpy as np

from ..ops.common import normalize_axis, reduce_axes
from ..ops.types import VarType, to_numpy_dtype
from .registry import converter

_REDUCE = {"reduce_sum": "ReduceSum", "reduce_mean": "ReduceMean", "reduce_max": "ReduceMax",
           "reduce_min": "ReduceMin", "reduce_prod": "ReduceProd"}


def _axes(n, dim_attr: str = "dim", all_attr: str = "reduce_all"):
    return reduce_axes(n.rank("X"), n.attr(dim_attr), n.attr(all_attr))


@converter(*_REDUCE)
def reduce(g, n):
    x, out = n.input("X"), n.output("Out")
    out_dtype = n.attr("out_dtype")
    cast_first = out_dtype not in (None, -1) and n.type == "reduce_sum"
    if cast_first:
        x = g.cast(x, to_numpy_dtype(out_dtype))
    cast_after = out_dtype not in (None, -1) and not cast_first
    value = g.reduce(_REDUCE[n.type], x, _axes(n), bool(n.attr("keep_dim")),
                     out=None if cast_after else out)
    if cast_after:
        g.cast(value, to_numpy_dtype(out_dtype), out=out)


@converter("reduce_any", "reduce_all")
def reduce_bool(g, n):
    """ONNX has no boolean reductions: max / min over 0/1 integers."""
    as_int = g.cast(n.input("X"), np.int32)
    op_type = "ReduceMax" if n.type == "reduce_any" else "ReduceMin"
    value = g.reduce(op_type, as_int, _axes(n), bool(n.attr("keep_dim")))
    g.cast(value, np.bool_, out=n.output("Out"))


@converter("mean")
def mean(g, n):
    g.reduce("ReduceMean", n.input("X"), None, False, out=n.output("Out"))


@converter("logsumexp")
def logsumexp(g, n):
    """``log(sum(exp(x - max))) + max``, as pyfluid computes it (stable for large x)."""
    x = n.input("X")
    axes = _axes(n, "axis", "reduce_all")
    top = g.reduce("ReduceMax", x, axes, True)
    total = g.reduce("ReduceSum", g.op("Exp", g.op("Sub", x, top)), axes, True)
    result = g.op("Add", g.op("Log", total), top)
    squeeze = list(axes) if axes is not None else list(range(n.rank("X")))
    if n.attr("keepdim") or not squeeze:
        g.op("Identity", result, outputs=[n.output("Out")])
    else:
        g.squeeze(result, squeeze, out=n.output("Out"))


@converter("p_norm")
def p_norm(g, n):
    x, dtype, out = n.input("X"), n.np_dtype("X"), n.output("Out")
    rank = n.rank("X")
    axes = None if n.attr("asvector") or rank == 0 else [normalize_axis(n.attr("axis"), rank)]
    keep, p = bool(n.attr("keepdim")), float(n.attr("porder"))
    magnitude = g.op("Abs", x)
    if p == 0:
        nonzero = g.cast(g.op("Not", g.op("Equal", x, g.scalar(0, dtype))), dtype)
        g.reduce("ReduceSum", nonzero, axes, keep, out=out)
    elif np.isinf(p):
        g.reduce("ReduceMax" if p > 0 else "ReduceMin", magnitude, axes, keep, out=out)
    else:
        powered = g.op("Pow", magnitude, g.scalar(p, dtype))
        total = g.reduce("ReduceSum", powered, axes, keep)
        g.op("Pow", total, g.scalar(1 / np.float32(p) if dtype == np.float32 else 1 / p, dtype),
             outputs=[out])


@converter("cumsum")
def cumsum(g, n):
    x = n.input("X")
    axis = n.attr("axis")
    if n.attr("flatten"):
        x, axis = g.reshape(x, [-1]), 0
    elif n.rank("X") == 0:
        n.fail("cumsum of a 0-D tensor is not supported by the exporter")
    g.op("CumSum", x, g.const(np.array(axis, dtype=np.int64)),
         exclusive=int(bool(n.attr("exclusive"))), reverse=int(bool(n.attr("reverse"))),
         outputs=[n.output("Out")])


@converter("arg_max", "arg_min")
def arg_extreme(g, n):
    x, rank = n.input("X"), n.rank("X")
    keep = bool(n.attr("keepdims"))
    dtype = n.attr("dtype")
    np_dtype = to_numpy_dtype(VarType.INT64 if dtype in (None, -1) else dtype)
    op_type = "ArgMax" if n.type == "arg_max" else "ArgMin"
    if n.attr("flatten") or rank == 0:
        index = g.op(op_type, g.reshape(x, [-1]), axis=0, keepdims=0)
        index = g.reshape(index, [1] * rank) if keep else index
    else:
        index = g.op(op_type, x, axis=normalize_axis(n.attr("axis"), rank), keepdims=int(keep))
    g.cast(index, np_dtype, out=n.output("Out"))


def _k(g, n) -> str:
    if n.has("K"):
        return g.cast(g.reshape(n.input("K"), [1]), np.int64)
    return g.ints([n.attr("k")])


@converter("top_k", "top_k_v2")
def top_k(g, n):
    rank = n.rank("X")
    axis = rank - 1 if n.type == "top_k" else normalize_axis(n.attr("axis"), max(rank, 1))
    largest = True if n.type == "top_k" else bool(n.attr("largest"))
    g.op("TopK", n.input("X"), _k(g, n), axis=axis, largest=int(largest), sorted=1,
         outputs=[n.output("Out"), n.output("Indices")])


@converter("argsort")
def argsort(g, n):
    """A full TopK along the axis: ties keep their order, as NumPy's stable sort."""
    x, rank = n.input("X"), n.rank("X")
    axis = normalize_axis(n.attr("axis"), rank)
    size = n.shape("X")[axis]
    k = g.ints([size]) if size >= 0 else g.shape(x, axis, axis + 1)
    g.op("TopK", x, k, axis=axis, largest=int(bool(n.attr("descending"))), sorted=1,
         outputs=[n.output("Out"), n.output("Indices")])
