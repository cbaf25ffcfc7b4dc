"""Shape ops of inference models: flatten_contiguous_range, squeeze2, unsqueeze2 (each with
the XShape side output that its gradient reads; an "extra" output, absent from saved inference
programs), slice, stack and split."""
from __future__ import annotations

import numpy as np

from .common import normalize_axis
from .registry import grad_name, register_op
from .types import AttrType, Meta


def _xshape(x: np.ndarray) -> np.ndarray:
    return np.empty((0,) + x.shape, dtype=x.dtype)


def _xshape_meta(x: Meta) -> Meta:
    return Meta((0,) + tuple(x.shape), x.dtype)


def _prod(dims) -> int:
    return -1 if -1 in dims else int(np.prod(dims, dtype=np.int64))


def _grad_from_xshape(xshape, dout):
    return dout.reshape(xshape.shape[1:])


# -- flatten_contiguous_range ------------------------------------------------------------------
flatten = register_op("flatten_contiguous_range", inputs=["X"], outputs=["Out", "XShape"],
                      extra_outputs=["XShape"], attrs={"start_axis": 1, "stop_axis": 1},
                      views_input=True)


def flattened_shape(shape: tuple, start_axis: int, stop_axis: int) -> tuple:
    if not shape:
        return (1,)
    start, stop = normalize_axis(start_axis, len(shape)), normalize_axis(stop_axis, len(shape))
    if start > stop:
        raise ValueError(f"The stop_axis should be greater than or equal to start_axis, but "
                         f"received start_axis={start_axis}, stop_axis={stop_axis} for a "
                         f"{len(shape)}-D input")
    return tuple(shape[:start]) + (_prod(shape[start:stop + 1]),) + tuple(shape[stop + 1:])


@flatten.def_infer_shape
def flatten_shape(x: Meta, *, start_axis, stop_axis):
    return Meta(flattened_shape(x.shape, start_axis, stop_axis), x.dtype), _xshape_meta(x)


@flatten.def_kernel
def flatten_kernel(x, *, start_axis, stop_axis):
    return x.reshape(flattened_shape(x.shape, start_axis, stop_axis)), _xshape(x)


flatten.def_grad(_grad_from_xshape)


# -- squeeze2 / unsqueeze2 ---------------------------------------------------------------------
def squeezed_shape(shape: tuple, axes) -> tuple:
    """Paddle's squeeze: drop the given size-1 axes (all size-1 axes when ``axes`` is empty);
    a listed axis whose size is not 1 is kept."""
    if not axes:
        return tuple(d for d in shape if d != 1)
    drop = {normalize_axis(a, len(shape)) for a in axes}
    return tuple(d for i, d in enumerate(shape) if not (i in drop and d == 1))


squeeze2 = register_op("squeeze2", inputs=["X"], outputs=["Out", "XShape"],
                       extra_outputs=["XShape"], attrs={"axes": (AttrType.INTS, [])},
                       views_input=True)


@squeeze2.def_infer_shape
def squeeze2_shape(x: Meta, *, axes):
    return Meta(squeezed_shape(x.shape, axes), x.dtype), _xshape_meta(x)


@squeeze2.def_kernel
def squeeze2_kernel(x, *, axes):
    return x.reshape(squeezed_shape(x.shape, axes)), _xshape(x)


squeeze2.def_grad(_grad_from_xshape)


def unsqueezed_shape(shape: tuple, axes) -> tuple:
    """Paddle's unsqueeze: insert size-1 axes one after another; a negative axis counts from
    the end of the shape built so far."""
    out = list(shape)
    for axis in axes:
        pos = axis + len(out) + 1 if axis < 0 else axis
        if not 0 <= pos <= len(out):
            raise ValueError(f"The unsqueeze axis {axis} is out of range for a {len(out)}-D "
                             f"shape {out}: it must be in [{-len(out) - 1}, {len(out)}]")
        out.insert(pos, 1)
    return tuple(out)


unsqueeze2 = register_op("unsqueeze2", inputs=["X", "AxesTensor?", "AxesTensorList*?"],
                         outputs=["Out", "XShape"], extra_outputs=["XShape"],
                         attrs={"axes": (AttrType.INTS, [])},
                         no_grad=["AxesTensor", "AxesTensorList"], views_input=True)


def _runtime_ints(tensor, tensor_list, attr) -> list[int]:
    if tensor is not None:
        return [int(v) for v in np.ravel(tensor)]
    if tensor_list:
        return [int(np.ravel(t)[0]) for t in tensor_list]
    return list(attr)


@unsqueeze2.def_infer_shape
def unsqueeze2_shape(x: Meta, axes_tensor=None, axes_list=None, *, axes):
    if axes_tensor is not None or axes_list:
        count = len(axes_list) if axes_list else max(axes_tensor.shape[0], 0)
        out = Meta((-1,) * (len(x.shape) + count), x.dtype)
    else:
        out = Meta(unsqueezed_shape(x.shape, axes), x.dtype)
    return out, _xshape_meta(x)


@unsqueeze2.def_kernel
def unsqueeze2_kernel(x, axes_tensor=None, axes_list=None, *, axes):
    axes = _runtime_ints(axes_tensor, axes_list, axes)
    return x.reshape(unsqueezed_shape(x.shape, axes)), _xshape(x)


@unsqueeze2.def_grad
def unsqueeze2_grad(xshape, dout):
    return _grad_from_xshape(xshape, dout), None, None


# -- slice -------------------------------------------------------------------------------------
_TENSOR_SLOTS = ["StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"]
slice_op = register_op(
    "slice", inputs=["Input", "StartsTensor?", "EndsTensor?", "StartsTensorList*?",
                     "EndsTensorList*?"], outputs=["Out"],
    attrs={"axes": (AttrType.INTS, []), "starts": (AttrType.INTS, []),
           "ends": (AttrType.INTS, []), "infer_flags": (AttrType.INTS, []),
           "decrease_axis": (AttrType.INTS, [])},
    no_grad=_TENSOR_SLOTS, views_input=True)


def _slice_bounds(shape, axes, starts, ends) -> list[tuple[int, int, int]]:
    """(axis, start, end) per sliced axis, normalized and clamped as Paddle does."""
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(f"slice: axes, starts and ends must have the same length, received "
                         f"axes={list(axes)}, starts={list(starts)}, ends={list(ends)}")
    bounds = []
    for axis, start, end in zip(axes, starts, ends):
        if axis >= len(shape):
            raise ValueError(f"The axis value should be less than the rank of input, but "
                             f"received axes = {axis}, rank of input is {len(shape)}.")
        axis = normalize_axis(axis, len(shape))
        dim = shape[axis]
        if dim < 0:
            bounds.append((axis, start, end))
            continue
        start = min(max(start + dim if start < 0 else start, 0), dim)
        end = max(min(end + dim if end < 0 else end, dim), 0)
        if end < start:
            raise ValueError(f"When step > 0, end should be greater than start, but received "
                             f"end = {end}, start = {start} (axis {axis} of shape "
                             f"{list(shape)}).")
        bounds.append((axis, start, end))
    return bounds


def _decreased(shape: tuple, decrease_axis) -> tuple:
    drop = {normalize_axis(a, len(shape)) for a in decrease_axis}
    for a in drop:
        if shape[a] not in (1, -1):
            raise ValueError(f"slice: decrease_axis {a} must have size 1 after slicing, but "
                             f"the sliced shape is {list(shape)}")
    return tuple(d for i, d in enumerate(shape) if i not in drop)


@slice_op.def_infer_shape
def slice_shape(x: Meta, st=None, et=None, stl=None, etl=None, *, axes, starts, ends,
                infer_flags, decrease_axis):
    runtime = st is not None or et is not None or bool(stl) or bool(etl)
    out = list(x.shape)
    if runtime:
        for axis in axes:
            out[normalize_axis(axis, len(out))] = -1
    else:
        flags = list(infer_flags) or [1] * len(axes)
        for (axis, start, end), flag in zip(_slice_bounds(x.shape, axes, starts, ends), flags):
            out[axis] = -1 if flag == -1 or x.shape[axis] < 0 else end - start
    return Meta(_decreased(tuple(out), decrease_axis), x.dtype)


def _index(x, st, et, stl, etl, axes, starts, ends):
    starts = _runtime_ints(st, stl, starts)
    ends = _runtime_ints(et, etl, ends)
    index = [slice(None)] * x.ndim
    for axis, start, end in _slice_bounds(x.shape, axes, starts, ends):
        index[axis] = slice(start, end)
    return tuple(index)


@slice_op.def_kernel
def slice_kernel(x, st=None, et=None, stl=None, etl=None, *, axes, starts, ends, decrease_axis):
    out = x[_index(x, st, et, stl, etl, axes, starts, ends)]
    return out.reshape(_decreased(out.shape, decrease_axis)) if decrease_axis else out


@slice_op.def_grad
def slice_grad(input, startstensor, endstensor, startstensorlist, endstensorlist, dout, *,
               axes, starts, ends):
    index = _index(input, startstensor, endstensor, startstensorlist, endstensorlist, axes,
                   starts, ends)
    dx = np.zeros_like(input)
    dx[index] = dout.reshape(dx[index].shape)
    return dx, None, None, None, None


# -- stack / split -----------------------------------------------------------------------------
stack = register_op("stack", inputs=["X*"], outputs=["Y"], attrs={"axis": 0})


@stack.def_infer_shape
def stack_shape(xs, *, axis):
    first = tuple(xs[0].shape)
    for m in xs[1:]:
        if len(m.shape) != len(first) or any(a != b and -1 not in (a, b)
                                             for a, b in zip(m.shape, first)):
            raise ValueError(f"stack: all inputs must have the same shape, received "
                             f"{[list(m.shape) for m in xs]}")
    ax = normalize_axis(axis, len(first) + 1)
    return Meta(first[:ax] + (len(xs),) + first[ax:], xs[0].dtype)


@stack.def_kernel
def stack_kernel(xs, *, axis):
    return np.stack(xs, axis=normalize_axis(axis, xs[0].ndim + 1))


@stack.def_grad
def stack_grad(dy, *, axis):
    ax = normalize_axis(axis, dy.ndim)
    return [np.take(dy, i, axis=ax) for i in range(dy.shape[ax])]


split = register_op("split", inputs=["X", "AxisTensor?", "SectionsTensorList*?"],
                    outputs=["Out*"],
                    attrs={"axis": 0, "num": 0, "sections": (AttrType.INTS, [])}, views_input=True)


def _sections(dim: int, num: int, sections, axis: int) -> list[int]:
    if num > 0:
        if dim >= 0 and dim % num:
            raise ValueError(f"The input's size along the split dimension must be evenly "
                             f"divisible by Attr(num_or_sections). But received Attr(num_or_"
                             f"sections) = {num}, input(X)'s shape = dim {dim} on axis {axis}.")
        return [dim // num if dim >= 0 else -1] * num
    sections = list(sections)
    if not sections:
        raise ValueError("split: give either Attr(num) > 0 or a non-empty Attr(sections)")
    if sections.count(-1) > 1:
        raise ValueError(f"Only one dimension value of Attr(num_or_sections) in SplitOp can "
                         f"be -1. But received Attr(num_or_sections) = {sections}.")
    if -1 in sections and dim >= 0:
        sections[sections.index(-1)] = dim - (sum(sections) + 1)
    elif dim >= 0 and sum(sections) != dim:
        raise ValueError(f"The sum of Attr(num_or_sections) must be equal to the input's size "
                         f"along the split dimension. But received Attr(num_or_sections) = "
                         f"{list(sections)}, input(X)'s dim on axis {axis} = {dim}.")
    return sections


@split.def_infer_shape
def split_shape(x: Meta, axis_tensor=None, sections_list=None, *, axis, num, sections):
    if axis_tensor is not None:
        count = num if num > 0 else len(sections)
        return [Meta((-1,) * len(x.shape), x.dtype)] * count
    ax = normalize_axis(axis, len(x.shape))
    parts = _sections(x.shape[ax], num, sections, axis)
    if sections_list:
        parts = [-1] * len(parts)
    return [Meta(x.shape[:ax] + (p,) + x.shape[ax + 1:], x.dtype) for p in parts]


@split.def_kernel
def split_kernel(x, axis_tensor=None, sections_list=None, *, axis, num, sections):
    if axis_tensor is not None:
        axis = int(np.ravel(axis_tensor)[0])
    ax = normalize_axis(axis, x.ndim)
    if sections_list:
        sections = [int(np.ravel(t)[0]) for t in sections_list]
    parts = _sections(x.shape[ax], num, sections, axis)
    return list(np.split(x, np.cumsum(parts)[:-1], axis=ax))


@split.def_grad_maker
def split_grad_maker(op, no_grad_names: set) -> list[dict]:
    """Paddle's SplitGradMaker: the gradient of split is concat of the output gradients."""
    x_grad = [grad_name(n) for n in op.input("X")]
    if all(g in no_grad_names for g in x_grad):
        return []
    inputs = {"X": [grad_name(n) for n in op.output("Out")]}
    if op.input("AxisTensor"):
        inputs["AxisTensor"] = op.input("AxisTensor")
    return [{"type": "concat", "inputs": inputs, "outputs": {"Out": x_grad},
             "attrs": {"axis": op.attrs.get("axis", 0)}}]

