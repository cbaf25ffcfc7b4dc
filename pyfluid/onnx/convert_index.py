"""Indexing ops: index_select, take_along_axis and size (numel)."""
from __future__ import annotations

from ..ops.common import normalize_axis
from .registry import converter


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
