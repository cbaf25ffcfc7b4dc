"""Cutting tensors into parts and joining parts: slice, strided_slice and split, and their
inverses concat and stack."""
from __future__ import annotations

import numpy as np

from .common import normalize_axis, runtime_ints
from .registry import grad_name, register_op
from .types import AttrType, Meta


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
    starts = runtime_ints(st, stl, starts)
    ends = runtime_ints(et, etl, ends)
    index = [slice(None)] * x.ndim
    for axis, start, end in _slice_bounds(x.shape, axes, starts, ends):
        index[axis] = slice(start, end)
    return tuple(index)


@slice_op.def_kernel
def slice_kernel(x, st=None, et=None, stl=None, etl=None, *, axes, starts, ends, decrease_axis):
    if isinstance(x, list):           # a tensor array (``list[-1]`` in dynamic-to-static code)
        return _slice_array(x, runtime_ints(st, stl, starts), runtime_ints(et, etl, ends),
                            axes, decrease_axis)
    out = x[_index(x, st, et, stl, etl, axes, starts, ends)]
    return out.reshape(_decreased(out.shape, decrease_axis)) if decrease_axis else out


def _slice_array(array: list, starts, ends, axes, decrease_axis):
    """Paddle's slice of a LOD_TENSOR_ARRAY (along its only axis, 0): the sub-array, or with
    ``decrease_axis`` the one element it holds (a copy)."""
    if list(axes) != [0]:
        raise ValueError(f"slice: a tensor array is sliced along axis 0 only, got axes={axes}")
    (_, start, end), = _slice_bounds((len(array),), axes, starts, ends)
    if not decrease_axis:
        return array[start:end]
    if end - start != 1 or array[start] is None:
        raise ValueError(f"slice: decrease_axis needs exactly one element of the tensor array, "
                         f"the slice [{start}:{end}] of its {len(array)} has {end - start}")
    return np.array(array[start], copy=True)


@slice_op.def_grad
def slice_grad(input, startstensor, endstensor, startstensorlist, endstensorlist, dout, *,
               axes, starts, ends):
    index = _index(input, startstensor, endstensor, startstensorlist, endstensorlist, axes,
                   starts, ends)
    dx = np.zeros_like(input)
    dx[index] = dout.reshape(dx[index].shape)
    return dx, None, None, None, None


# -- strided_slice (x[::2] on a static Variable) ---------------------------------------------------
strided_slice = register_op(
    "strided_slice", inputs=["Input", "StartsTensor?", "EndsTensor?", "StridesTensor?",
                             "StartsTensorList*?", "EndsTensorList*?", "StridesTensorList*?"],
    outputs=["Out"],
    attrs={"axes": (AttrType.INTS, []), "starts": (AttrType.INTS, []),
           "ends": (AttrType.INTS, []), "strides": (AttrType.INTS, []),
           "infer_flags": (AttrType.INTS, []), "decrease_axis": (AttrType.INTS, [])},
    no_grad=["StartsTensor", "EndsTensor", "StridesTensor", "StartsTensorList",
             "EndsTensorList", "StridesTensorList"])


def _strided_index(ndim: int, axes, starts, ends, strides) -> tuple:
    index = [slice(None)] * ndim
    for axis, start, end, step in zip(axes, starts, ends, strides):
        index[axis] = slice(start, end, step)
    return tuple(index)


def _no_tensor_bounds(tensors) -> None:
    if any(t is not None and (not isinstance(t, list) or t) for t in tensors):
        raise NotImplementedError("strided_slice: bounds given as tensors are not supported by "
                                  "pyfluid; give starts/ends/strides as Python ints")


@strided_slice.def_infer_shape
def strided_slice_shape(x: Meta, *tensors, axes, starts, ends, strides, infer_flags,
                        decrease_axis):
    probe = np.empty([max(d, 0) for d in x.shape], dtype=np.int8)
    shape = list(probe[_strided_index(len(x.shape), axes, starts, ends, strides)].shape)
    shape = [-1 if x.shape[i] < 0 else d for i, d in enumerate(shape)]
    return Meta(tuple(d for i, d in enumerate(shape) if i not in set(decrease_axis)), x.dtype)


@strided_slice.def_kernel
def strided_slice_kernel(x, *tensors, axes, starts, ends, strides, decrease_axis):
    _no_tensor_bounds(tensors)
    out = x[_strided_index(x.ndim, axes, starts, ends, strides)]
    keep = [d for i, d in enumerate(out.shape) if i not in set(decrease_axis)]
    return np.array(out.reshape(keep))


@strided_slice.def_grad
def strided_slice_grad(input, startstensor, endstensor, stridestensor, startstensorlist,
                       endstensorlist, stridestensorlist, dout, *, axes, starts, ends, strides):
    index = _strided_index(input.ndim, axes, starts, ends, strides)
    dx = np.zeros_like(input)
    dx[index] = dout.reshape(dx[index].shape)
    return dx, None, None, None, None, None, None


# -- split (its gradient is a concat of the output gradients) ------------------------------
split = register_op("split", inputs=["X", "AxisTensor?", "SectionsTensorList*?"],
                    outputs=["Out*"],
                    attrs={"axis": 0, "num": 0, "sections": (AttrType.INTS, [])}, views_input=True,
                    extra_attrs={"use_mkldnn": False, "mkldnn_data_type": "float32"})


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


# -- concat / stack -----------------------------------------------------------------------------
concat = register_op("concat", inputs=["X*", "AxisTensor?"], outputs=["Out"], attrs={"axis": 0},
                     no_grad=["AxisTensor"])


@concat.def_infer_shape
def concat_shape(xs, axis_tensor=None, *, axis):
    first = xs[0].shape
    ax = normalize_axis(axis, len(first))
    total = 0
    for m in xs:
        if len(m.shape) != len(first):
            raise ValueError(f"all inputs must have the same rank; got {[list(m.shape) for m in xs]}")
        total = -1 if total == -1 or m.shape[ax] == -1 else total + m.shape[ax]
    return Meta(first[:ax] + (total,) + first[ax + 1:], xs[0].dtype)


@concat.def_kernel
def concat_kernel(xs, axis_tensor=None, *, axis):
    if axis_tensor is not None:
        axis = int(axis_tensor.reshape(()))
    return np.concatenate(xs, axis=normalize_axis(axis, xs[0].ndim))


@concat.def_grad
def concat_grad(x, axistensor, dout, *, axis):
    if axistensor is not None:
        axis = int(axistensor.reshape(()))
    ax = normalize_axis(axis, dout.ndim)
    cuts = np.cumsum([t.shape[ax] for t in x])[:-1]
    return list(np.split(dout, cuts, axis=ax)), None


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
