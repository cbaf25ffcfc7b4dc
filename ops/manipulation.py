"""Shape and layout ops: cast, reshape2, transpose2, flatten_contiguous_range, squeeze2,
unsqueeze2, tile, expand_v2 and broadcast_tensors. All but cast, tile, expand_v2 and
broadcast_tensors also return XShape: an empty
array of shape [0] + X's shape, Paddle's way of passing X's shape on to the grad op. Cutting and
joining (slice, strided_slice, split, concat, stack) are in slicing.py."""
from __future__ import annotations

import numpy as np

from .common import broadcast_shape, normalize_axis, runtime_ints
from .registry import register_op, unbroadcast
from .types import AttrType, Meta, VarType, to_numpy_dtype


def _xshape(x: np.ndarray) -> np.ndarray:
    return np.empty((0,) + x.shape, dtype=x.dtype)


def _xshape_meta(x: Meta) -> Meta:
    return Meta((0,) + tuple(x.shape), x.dtype)


def _prod(dims) -> int:
    return -1 if -1 in dims else int(np.prod(dims, dtype=np.int64))


def _grad_from_xshape(xshape, dout):
    return dout.reshape(xshape.shape[1:])


# -- cast ---------------------------------------------------------------------------------------
# use_mkldnn is a plain attr of Paddle 2.6's cast (its grad maker copies it, so a program
# without it cannot be differentiated there, as paddle.jit.load does)
cast = register_op("cast", inputs=["X"], outputs=["Out"],
                   attrs={"in_dtype": 5, "out_dtype": 5, "use_mkldnn": False},
                   infer_shape=lambda x, *, out_dtype, **_: Meta(x.shape, VarType(out_dtype)))


@cast.def_kernel
def cast_kernel(x, *, out_dtype):
    return x.astype(to_numpy_dtype(out_dtype))


@cast.def_grad
def cast_grad(x, dout):
    return dout.astype(x.dtype)


# -- reshape2 / transpose2 ---------------------------------------------------------------------
def _reshape_target(in_shape, shape):
    """Paddle's rule: 0 copies the input's dim (unknown, -1, if that one is), one -1 is
    inferred when every input dim is known."""
    if list(shape).count(-1) > 1:
        raise ValueError(f"shape {list(shape)} has more than one -1")
    out = [in_shape[i] if d == 0 else d for i, d in enumerate(shape)]
    if -1 in in_shape:
        return tuple(out)
    total = int(np.prod(in_shape))
    if -1 in shape:
        at = list(shape).index(-1)
        rest = int(np.prod([d for i, d in enumerate(out) if i != at]))
        if rest == 0 or total % rest:
            raise ValueError(f"cannot reshape {list(in_shape)} to {list(shape)}")
        out[at] = total // rest
    elif int(np.prod(out)) != total:
        raise ValueError(f"cannot reshape {list(in_shape)} ({total} elements) "
                         f"to {list(shape)} ({int(np.prod(out))} elements)")
    return tuple(out)


reshape2 = register_op("reshape2", inputs=["X", "Shape?", "ShapeTensor*?"],
                       outputs=["Out", "XShape?"], attrs={"shape": (AttrType.INTS, [])},
                       extra_attrs={"use_mkldnn": False, "mkldnn_data_type": "float32",
                                    "use_quantizer": False},
                       no_grad=["Shape", "ShapeTensor"], views_input=True)


@reshape2.def_infer_shape
def reshape2_shape(x, shape_in=None, shape_list=None, *, shape):
    return Meta(_reshape_target(x.shape, shape), x.dtype), Meta((0,) + tuple(x.shape), x.dtype)


@reshape2.def_kernel
def reshape2_kernel(x, shape_in=None, shape_list=None, *, shape):
    if shape_in is not None:
        shape = [int(d) for d in shape_in.ravel()]
    elif shape_list:
        shape = [int(t.reshape(())) for t in shape_list]
    target = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return x.reshape(target), np.empty((0,) + x.shape, dtype=x.dtype)


@reshape2.def_grad
def reshape2_grad(xshape, dout):
    return dout.reshape(xshape.shape[1:]), None, None


transpose2 = register_op("transpose2", inputs=["X"], outputs=["Out", "XShape"],
                         extra_outputs=["XShape"], attrs={"axis": (AttrType.INTS, [])},
                         extra_attrs={"data_format": "AnyLayout"}, views_input=True)


@transpose2.def_infer_shape
def transpose2_shape(x, *, axis, **_):
    if sorted(normalize_axis(a, len(x.shape)) for a in axis) != list(range(len(x.shape))):
        raise ValueError(f"axis {list(axis)} is not a permutation of the {len(x.shape)} dims")
    return Meta(tuple(x.shape[a] for a in axis), x.dtype), Meta((0,) + tuple(x.shape), x.dtype)


@transpose2.def_kernel
def transpose2_kernel(x, *, axis):
    return x.transpose(axis), np.empty((0,) + x.shape, dtype=x.dtype)


@transpose2.def_grad
def transpose2_grad(dout, *, axis):
    return dout.transpose(np.argsort([normalize_axis(a, dout.ndim) for a in axis]))


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
    a listed axis whose size is not 1 is kept, one of unknown size (-1, before running) is
    dropped as Paddle's compile-time rule does."""
    if not axes:
        return tuple(d for d in shape if d != 1)
    drop = {normalize_axis(a, len(shape)) for a in axes}
    return tuple(d for i, d in enumerate(shape) if not (i in drop and d in (1, -1)))


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
    axes = runtime_ints(axes_tensor, axes_list, axes)
    return x.reshape(unsqueezed_shape(x.shape, axes)), _xshape(x)


@unsqueeze2.def_grad
def unsqueeze2_grad(xshape, dout):
    return _grad_from_xshape(xshape, dout), None, None


# -- tile / expand_v2 ------------------------------------------------------------------------------
tile = register_op("tile", inputs=["X", "RepeatTimes?", "repeat_times_tensor*?"],
                   outputs=["Out"], attrs={"repeat_times": (AttrType.INTS, [])},
                   no_grad=["RepeatTimes", "repeat_times_tensor"])


def _aligned_repeats(shape: tuple, repeat_times) -> tuple[tuple, tuple]:
    """(shape, repeats) padded with leading 1s to the same rank, as Paddle's tile does."""
    repeats = tuple(int(r) for r in repeat_times)
    rank = max(len(shape), len(repeats))
    return (1,) * (rank - len(shape)) + tuple(shape), (1,) * (rank - len(repeats)) + repeats


@tile.def_infer_shape
def tile_shape(x: Meta, repeat_tensor=None, repeat_list=None, *, repeat_times):
    if repeat_tensor is not None or repeat_list:
        return Meta((-1,) * max(len(x.shape), len(repeat_times)), x.dtype)
    shape, repeats = _aligned_repeats(x.shape, repeat_times)
    for r in repeats:
        if r <= 0:
            raise ValueError(f"All elements in repeat_times must be positive for tile, received "
                             f"{list(repeat_times)}")
    return Meta(tuple(-1 if d == -1 else d * r for d, r in zip(shape, repeats)), x.dtype)


def _runtime_repeats(repeat_tensor, repeat_list, repeat_times) -> list[int]:
    if repeat_tensor is not None:
        return [int(v) for v in repeat_tensor.ravel()]
    if repeat_list:
        return [int(t.reshape(())) for t in repeat_list]
    return list(repeat_times)


@tile.def_kernel
def tile_kernel(x, repeat_tensor=None, repeat_list=None, *, repeat_times):
    return np.tile(x, _runtime_repeats(repeat_tensor, repeat_list, repeat_times))


@tile.def_grad
def tile_grad(x, repeattimes, repeat_times_tensor, dout, *, repeat_times):
    repeats = _runtime_repeats(repeattimes, repeat_times_tensor, repeat_times)
    shape, repeats = _aligned_repeats(x.shape, repeats)
    split = dout.reshape([v for pair in zip(repeats, shape) for v in pair])
    return split.sum(axis=tuple(range(0, split.ndim, 2))).reshape(x.shape), None, None


expand_v2 = register_op("expand_v2", inputs=["X", "Shape?", "expand_shapes_tensor*?"],
                        outputs=["Out"], attrs={"shape": (AttrType.INTS, [])},
                        no_grad=["Shape", "expand_shapes_tensor"])


def _expanded(x_shape: tuple, shape) -> tuple:
    if len(shape) < len(x_shape):
        raise ValueError(f"The number of elements ({len(shape)}) of 'shape' for expand_v2 op "
                         f"must be greater than or equal to the rank ({len(x_shape)}) of the "
                         f"input {list(x_shape)}.")
    lead = len(shape) - len(x_shape)
    out = []
    for i, target in enumerate(shape):
        dim = x_shape[i - lead] if i >= lead else 1
        if target == -1 and i >= lead:
            out.append(dim)
        elif dim not in (1, -1, target) and target >= 0:
            raise ValueError(f"expand_v2: the {i}-th dim of the input {list(x_shape)} is {dim}; "
                             f"it must be 1 or equal to the target {target} (shape "
                             f"{list(shape)})")
        else:
            out.append(int(target))
    return tuple(out)


@expand_v2.def_infer_shape
def expand_v2_shape(x: Meta, shape_tensor=None, shape_list=None, *, shape):
    if shape_tensor is not None:
        return Meta((-1,) * max(shape_tensor.shape[0], 0), x.dtype)
    return Meta(_expanded(tuple(x.shape), [-1 if s == -2 else s for s in shape]), x.dtype)


@expand_v2.def_kernel
def expand_v2_kernel(x, shape_tensor=None, shape_list=None, *, shape):
    if shape_tensor is not None:
        shape = [int(v) for v in shape_tensor.ravel()]
    elif shape_list:
        shape = [int(t.reshape(())) for t in shape_list]
    return np.broadcast_to(x, _expanded(x.shape, shape)).copy()


@expand_v2.def_grad
def expand_v2_grad(x, dout):
    return dout, None, None     # reduced to X's shape by the registry (unbroadcast)


# -- broadcast_tensors: every input broadcast to their common shape --------------------------
broadcast_tensors = register_op("broadcast_tensors", inputs=["X*"], outputs=["Out*"])


@broadcast_tensors.def_infer_shape
def broadcast_tensors_shape(xs):
    shape: tuple = ()
    for m in xs:
        shape = broadcast_shape(shape, tuple(m.shape))
    return [Meta(shape, m.dtype) for m in xs]


@broadcast_tensors.def_kernel
def broadcast_tensors_kernel(xs):
    return [np.array(a) for a in np.broadcast_arrays(*xs)]


@broadcast_tensors.def_grad
def broadcast_tensors_grad(x, dout):
    return [unbroadcast(g, like) for g, like in zip(dout, x)]
