"""Shape and layout ops: reshape2, transpose2, squeeze2 / unsqueeze2, flatten, slice /
strided_slice, concat, split, stack, expand_v2, tile, gather and cast."""
from __future__ import annotations

import numpy as np

from ..ops.common import normalize_axis
from ..ops.manipulation import unsqueezed_shape
from ..ops.types import VarType, to_numpy_dtype
from .registry import converter


def dims(g, x: str, shape: tuple, start: int, end: int | None = None) -> str:
    """The int64 vector ``shape(x)[start:end]``: a constant where Paddle knows the dims."""
    part = shape[start:end]
    if all(d >= 0 for d in part):
        return g.ints(part)
    return g.shape(x, start, end)


def int64_list(g, names: list[str]) -> str:
    """Scalars / 1-element tensors (Paddle's ``*TensorList`` inputs) as one int64 vector."""
    parts = [g.cast(g.reshape(name, [1]), np.int64) for name in names]
    return parts[0] if len(parts) == 1 else g.op("Concat", *parts, axis=0)


def int64_vector(g, name: str) -> str:
    return g.cast(g.reshape(name, [-1]), np.int64)


@converter("reshape2")
def reshape2(g, n):
    """ONNX Reshape has Paddle's conventions: 0 copies the input dim, -1 is inferred."""
    if n.has("Shape"):
        target = int64_vector(g, n.input("Shape"))
    elif n.has("ShapeTensor"):
        target = int64_list(g, n.inputs("ShapeTensor"))
    else:
        target = g.ints(n.attr("shape"))
    g.reshape(n.input("X"), target, out=n.output("Out"))


@converter("transpose2")
def transpose2(g, n):
    rank = n.rank("X")
    perm = [normalize_axis(a, rank) for a in n.attr("axis")]
    g.op("Transpose", n.input("X"), perm=perm, outputs=[n.output("Out")])


@converter("squeeze2")
def squeeze2(g, n):
    """Paddle drops the listed axes of size 1 and keeps the others (all size-1 axes when none
    are listed); an axis whose size is unknown until run time counts as size 1."""
    shape, x, out = n.shape("X"), n.input("X"), n.output("Out")
    if not n.attr("axes"):
        if -1 in shape:
            g.op("Squeeze", x, outputs=[out])
        else:
            g.squeeze(x, [i for i, d in enumerate(shape) if d == 1], out=out)
        return
    axes = sorted({normalize_axis(a, len(shape)) for a in n.attr("axes")})
    axes = [a for a in axes if shape[a] in (1, -1)]
    if axes:
        g.squeeze(x, axes, out=out)
    else:
        g.op("Identity", x, outputs=[out])


@converter("unsqueeze2")
def unsqueeze2(g, n):
    """Paddle inserts the axes one after another; ONNX wants their final positions."""
    x, out = n.input("X"), n.output("Out")
    if n.has("AxesTensor") or n.has("AxesTensorList"):
        slot = "AxesTensor" if n.has("AxesTensor") else "AxesTensorList"
        known = [n.writer.constant_value(v) for v in n.op.input(slot)]
        if any(v is None for v in known):
            axes = int64_vector(g, n.input(slot)) if slot == "AxesTensor" else \
                int64_list(g, n.inputs(slot))
            g.op("Unsqueeze", x, axes, outputs=[out])
            return
        axes_attr = [int(v) for value in known for v in np.ravel(value)]
    else:
        axes_attr = list(n.attr("axes"))
    marked = unsqueezed_shape(tuple(range(2, n.rank("X") + 2)), axes_attr)
    g.unsqueeze(x, [i for i, d in enumerate(marked) if d == 1], out=out)


@converter("flatten_contiguous_range")
def flatten(g, n):
    x, shape, out = n.input("X"), n.shape("X"), n.output("Out")
    rank = len(shape)
    if rank == 0:
        g.reshape(x, [1], out=out)
        return
    start = normalize_axis(n.attr("start_axis"), rank)
    stop = normalize_axis(n.attr("stop_axis"), rank)
    if start == 1 and stop == rank - 1:
        g.op("Flatten", x, axis=1, outputs=[out])
        return
    parts = []
    if start:
        parts.append(dims(g, x, shape, 0, start))
    parts.append(g.ints([-1]))
    if stop + 1 < rank:
        parts.append(dims(g, x, shape, stop + 1))
    target = parts[0] if len(parts) == 1 else g.op("Concat", *parts, axis=0)
    g.reshape(x, target, out=out)


def _bounds(g, n, attr: str, tensor: str, tensor_list: str) -> str:
    if n.has(tensor):
        return int64_vector(g, n.input(tensor))
    if n.has(tensor_list):
        return int64_list(g, n.inputs(tensor_list))
    return g.ints(n.attr(attr))


def _decrease(g, n, sliced: str, out: str) -> None:
    rank = n.rank("Input")
    drop = sorted({normalize_axis(a, rank) for a in n.attr("decrease_axis") or []})
    if drop and len(drop) == rank and n.rank("Out", output=True) == 1:
        g.reshape(sliced, [1], out=out)      # Paddle 2.6 keeps 1-D when every axis goes
    elif drop:
        g.squeeze(sliced, drop, out=out)
    else:
        g.op("Identity", sliced, outputs=[out])


@converter("slice")
def slice_op(g, n):
    if n.var("Input").type == VarType.LOD_TENSOR_ARRAY:
        _array_item(g, n)
        return
    rank = n.rank("Input")
    axes = [normalize_axis(a, rank) for a in n.attr("axes")]
    starts = _bounds(g, n, "starts", "StartsTensor", "StartsTensorList")
    ends = _bounds(g, n, "ends", "EndsTensor", "EndsTensorList")
    sliced = g.op("Slice", n.input("Input"), starts, ends, g.ints(axes))
    _decrease(g, n, sliced, n.output("Out"))


def _array_item(g, n) -> None:
    """``array[i]`` of a tensor array (dy2static's ``list[i]``): one element of the sequence."""
    if list(n.attr("axes")) != [0] or list(n.attr("decrease_axis") or []) != [0]:
        n.fail("only single elements of a tensor array (list[i]) can be exported, not "
               f"slices (axes {n.attr('axes')}, decrease_axis {n.attr('decrease_axis')})")
    start = _bounds(g, n, "starts", "StartsTensor", "StartsTensorList")
    g.op("SequenceAt", n.input("Input"), g.reshape(start, []), outputs=[n.output("Out")])


@converter("strided_slice")
def strided_slice(g, n):
    rank = n.rank("Input")
    axes = [normalize_axis(a, rank) for a in n.attr("axes")]
    starts = _bounds(g, n, "starts", "StartsTensor", "StartsTensorList")
    ends = _bounds(g, n, "ends", "EndsTensor", "EndsTensorList")
    steps = _bounds(g, n, "strides", "StridesTensor", "StridesTensorList")
    sliced = g.op("Slice", n.input("Input"), starts, ends, g.ints(axes), steps)
    _decrease(g, n, sliced, n.output("Out"))


def _static_axis(n, slot: str, attr: str = "axis") -> int:
    if n.has("AxisTensor"):
        value = n.constant("AxisTensor")
        if value is None:
            n.fail("an axis given as a run-time tensor (AxisTensor) has no ONNX equivalent; "
                   "give the axis as a Python int")
        return int(np.ravel(value)[0])
    return int(n.attr(attr))


@converter("concat")
def concat(g, n):
    axis = normalize_axis(_static_axis(n, "X"), n.rank("X"))
    g.op("Concat", *n.inputs("X"), axis=axis, outputs=[n.output("Out")])


@converter("split")
def split(g, n):
    x, shape = n.input("X"), n.shape("X")
    axis = normalize_axis(_static_axis(n, "X"), len(shape))
    outs = n.outputs("Out")
    if n.has("SectionsTensorList"):
        sizes = int64_list(g, n.inputs("SectionsTensorList"))
        g.op("Split", x, sizes, axis=axis, outputs=outs)
        return
    sections = list(n.attr("sections") or [])
    if n.attr("num") or not sections:
        if g.opset >= 18:
            g.op("Split", x, axis=axis, num_outputs=len(outs), outputs=outs)
        else:
            g.op("Split", x, axis=axis, outputs=outs)     # equal parts, one per output
        return
    if -1 in sections:
        if shape[axis] < 0:
            n.fail("a -1 section needs the size of the split axis, unknown until run time")
        sections[sections.index(-1)] = shape[axis] - (sum(sections) + 1)
    g.split(x, sections, axis, outputs=outs)


@converter("stack")
def stack(g, n):
    xs = n.inputs("X")
    axis = normalize_axis(n.attr("axis"), n.rank("X") + 1)
    parts = [g.unsqueeze(x, [axis]) for x in xs]
    g.op("Concat", *parts, axis=axis, outputs=[n.output("Y")])


@converter("expand_v2")
def expand_v2(g, n):
    """Paddle's -1 keeps the input's dim; ONNX Expand broadcasts, so -1 becomes 1."""
    if n.has("Shape") or n.has("expand_shapes_tensor"):
        target = int64_vector(g, n.input("Shape")) if n.has("Shape") else \
            int64_list(g, n.inputs("expand_shapes_tensor"))
        keep = g.op("Equal", target, g.ints([-1]))
        target = g.op("Where", keep, g.ints([1]), target)
    else:
        target = g.ints([1 if d == -1 else d for d in n.attr("shape")])
    g.op("Expand", n.input("X"), target, outputs=[n.output("Out")])


@converter("tile")
def tile(g, n):
    """Paddle pads the shorter of shape and repeat_times with leading 1s."""
    x, rank = n.input("X"), n.rank("X")
    if n.has("RepeatTimes") or n.has("repeat_times_tensor"):
        repeats = int64_vector(g, n.input("RepeatTimes")) if n.has("RepeatTimes") else \
            int64_list(g, n.inputs("repeat_times_tensor"))
        count = n.rank("Out", output=True)
        if count > rank:
            x = g.unsqueeze(x, list(range(count - rank)))
        g.op("Tile", x, repeats, outputs=[n.output("Out")])
        return
    repeats = [int(r) for r in n.attr("repeat_times")]
    if len(repeats) > rank:
        x = g.unsqueeze(x, list(range(len(repeats) - rank)))
    repeats = [1] * (rank - len(repeats)) + repeats
    g.op("Tile", x, g.ints(repeats), outputs=[n.output("Out")])


@converter("gather")
def gather(g, n):
    """Index [N, 1] acts as [N]; a 0-D index drops the axis."""
    index = n.input("Index")
    if n.rank("Index") == 2:
        index = g.reshape(index, [-1])
    axis = n.attr("axis")
    if n.has("Axis"):
        value = n.constant("Axis")
        if value is None:
            n.fail("an axis given as a run-time tensor (Axis input) has no ONNX equivalent")
        axis = int(value.ravel()[0])
    axis = normalize_axis(axis, n.rank("X"))
    g.op("Gather", n.input("X"), index, axis=axis, outputs=[n.output("Out")])


@converter("cast")
def cast(g, n):
    g.cast(n.input("X"), to_numpy_dtype(n.attr("out_dtype")), out=n.output("Out"))


@converter("tril_triu")
def tril_triu(g, n):
    g.op("Trilu", n.input("X"), g.const(np.array(int(n.attr("diagonal") or 0), np.int64)),
         upper=int(not n.attr("lower")), outputs=[n.output("Out")])
