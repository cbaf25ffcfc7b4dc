"""Tensor arrays (Paddle's LOD_TENSOR_ARRAY: ``list.append`` in dy2static, ``array_write``)
as ONNX sequences: write_to_array, read_from_array, lod_array_length,
tensor_array_to_tensor, and ``slice`` of an array (``list[-1]``)."""
from __future__ import annotations

import numpy as np
from onnx import helper

from .graph import onnx_dtype
from .registry import converter


def _index(g, n, slot: str = "I") -> str:
    return g.cast(g.reshape(n.input(slot), []), np.int64)


def _sequence_out(g, n, slot: str = "Out") -> str:
    out = n.output(slot)
    n.writer.sequences.add(out)
    return out


@converter("write_to_array")
def write_to_array(g, n):
    """array[I] = X: replaces an element, or appends when I is the array's length."""
    x, i = n.input("X"), _index(g, n)
    seq = n.writer.read(g, n.op.output("Out")[0], n)
    dtype = n.np_dtype("X")
    inside = g.op("Less", i, g.op("SequenceLength", seq))
    replace, append = g.subgraph(), g.subgraph()
    replaced = replace.op("SequenceInsert", replace.op("SequenceErase", seq, i), x, i)
    appended = append.op("SequenceInsert", seq, x)
    info = lambda name: helper.make_tensor_sequence_value_info(name, onnx_dtype(dtype), None)  # noqa
    g.op("If", inside,
         then_branch=replace.to_graph(f"{g.label}_replace", [], [info(replaced)]),
         else_branch=append.to_graph(f"{g.label}_append", [], [info(appended)]),
         outputs=[_sequence_out(g, n)])


@converter("read_from_array")
def read_from_array(g, n):
    g.op("SequenceAt", n.input("X"), _index(g, n), outputs=[n.output("Out")])


@converter("lod_array_length")
def lod_array_length(g, n):
    g.reshape(g.op("SequenceLength", n.input("X")), [1], out=n.output("Out"))


@converter("tensor_array_to_tensor")
def tensor_array_to_tensor(g, n):
    g.op("ConcatFromSequence", n.input("X"), axis=int(n.attr("axis")),
         new_axis=int(bool(n.attr("use_stack"))), outputs=[n.output("Out")])
