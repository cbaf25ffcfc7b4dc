"""Indexing ops: index_select, take_along_axis, size (numel), gather_nd, where_index and
share_data; the index assignments (set_value, index_put) and a few others have no ONNX form."""
from __future__ import annotations

from ..ops.common import normalize_axis
from .registry import converter, unsupported


@converter("index_select")
def index_select(g, n):
    axis = normalize_axis(int(n.attr("dim")), n.rank("X"))
    g.op("Gather", n.input("X"), n.input("Index"), axis=axis, outputs=[n.output("Out")])


@converter("take_along_axis")
def take_along_axis(g, n):
    axis = normalize_axis(int(n.attr("Axis")), n.rank("Input"))
    g.op("GatherElements", n.input("Input"), n.input("Index"), axis=axis,
         outputs=[n.output("Result")])


@converter("size")
def size(g, n):
    """The element count, int64, shaped as Paddle records it ([] in 2.6, [1] before)."""
    count = g.op("Size", n.input("Input"))
    rank = n.rank("Out", output=True)
    g.reshape(count, [1] * rank, out=n.output("Out"))


@converter("gather_nd")
def gather_nd(g, n):
    index = g.op("Cast", n.input("Index"), to=7)         # ONNX GatherND takes int64 indices
    g.op("GatherND", n.input("X"), index, outputs=[n.output("Out")])


@converter("where_index")
def where_index(g, n):
    """ONNX NonZero gives [rank, N]; Paddle's where_index (paddle.nonzero) is [N, rank]."""
    coords = g.op("NonZero", n.input("Condition"))
    g.op("Transpose", coords, perm=[1, 0], outputs=[n.output("Out")])


@converter("share_data")
def share_data(g, n):
    g.op("Identity", n.input("X"), outputs=[n.output("Out")])


unsupported("set_value", "it writes into a region of a tensor (Paddle's x[index] = value); "
            "compute the new tensor with arithmetic on masks, or export the inference "
            "program without the assignment")
unsupported("index_put", "it writes values at index coordinates (paddle.index_put / "
            "x[index] = value); build the result from masks instead")
unsupported("broadcast_tensors", "its outputs' shapes are only known at run time here; "
            "use paddle.expand to the known shape instead")
unsupported("unique_consecutive", "ONNX has no consecutive-unique operator; run it after the "
            "exported model")
unsupported("auc", "it is a stateful training metric (running counts in persistable "
            "variables); compute the AUC outside the exported model")
