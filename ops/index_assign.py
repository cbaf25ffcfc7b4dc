"""Writing into a tensor at an index, out of place (Paddle's static ``x[index] = value``):
``set_value`` (a region given by slices, ints and new axes) and ``index_put`` (coordinates
given by index tensors)."""
from __future__ import annotations

import numpy as np

from .common import normalize_axis, runtime_ints
from .registry import register_op, unbroadcast
from .types import AttrType, Meta, VarType, to_numpy_dtype

_MAX_INT = 2 ** 31 - 1

# -- set_value --------------------------------------------------------------------------------
_BOUND_SLOTS = ["StartsTensorList", "EndsTensorList", "StepsTensorList"]
set_value = register_op(
    "set_value", inputs=["Input", "ValueTensor?", "StartsTensorList*?", "EndsTensorList*?",
                         "StepsTensorList*?"], outputs=["Out"],
    attrs={"dtype": int(VarType.FP32), "axes": (AttrType.LONGS, []),
           "starts": (AttrType.LONGS, []), "ends": (AttrType.LONGS, []),
           "steps": (AttrType.LONGS, []), "decrease_axes": (AttrType.LONGS, []),
           "none_axes": (AttrType.LONGS, []), "values": (AttrType.SCALARS, []),
           "shape": (AttrType.LONGS, [])},
    no_grad=_BOUND_SLOTS)


@set_value.def_infer_shape
def set_value_shape(x: Meta, *_, **__):
    return x


def _region(shape: tuple, axes, starts, ends, steps, decrease_axes) -> tuple:
    """The NumPy index of the written region (ints on decreased axes, so they drop out)."""
    index: list = [slice(None)] * len(shape)
    decreased = {normalize_axis(a, len(shape)) for a in decrease_axes}
    for axis, start, end, step in zip(axes, starts, ends, steps or [1] * len(axes)):
        axis = normalize_axis(axis, len(shape))
        if axis in decreased:
            index[axis] = start + shape[axis] if start < 0 else start
        else:
            stop = None if (end >= _MAX_INT and step > 0) or (end == -1 and step < 0 and
                                                              start >= _MAX_INT) else end
            start = None if start >= _MAX_INT and step < 0 else start
            index[axis] = slice(start, stop, step)
    return tuple(index)


def _value_shape(region_shape: tuple, none_axes) -> tuple:
    """The region's shape with the size-1 axes a value may carry at ``none_axes``."""
    shape = list(region_shape)
    for axis in sorted(none_axes):
        shape.insert(min(axis, len(shape)), 1)
    return tuple(shape)


def _bounds(starts_t, ends_t, steps_t, starts, ends, steps) -> tuple:
    return (runtime_ints(None, starts_t, starts), runtime_ints(None, ends_t, ends),
            runtime_ints(None, steps_t, steps))


@set_value.def_kernel
def set_value_kernel(x, value=None, starts_t=None, ends_t=None, steps_t=None, *, dtype, axes,
                     starts, ends, steps, decrease_axes, none_axes, values, shape):
    starts, ends, steps = _bounds(starts_t, ends_t, steps_t, starts, ends, steps)
    out = x.copy()
    index = _region(x.shape, axes, starts, ends, steps, decrease_axes)
    region_shape = out[index].shape
    if value is None:
        value = np.array(values, dtype=to_numpy_dtype(dtype)).reshape(shape)
    try:
        value = np.broadcast_to(value, _value_shape(region_shape, none_axes))
    except ValueError:
        raise ValueError(f"set_value: the value of shape {list(np.shape(value))} cannot be "
                         f"assigned to the region of shape {list(region_shape)} of the input "
                         f"{list(x.shape)}") from None
    out[index] = value.reshape(region_shape)
    return out


@set_value.def_grad
def set_value_grad(valuetensor, startstensorlist, endstensorlist, stepstensorlist, dout,
                   *, axes, starts, ends, steps, decrease_axes, none_axes):
    starts, ends, steps = _bounds(startstensorlist, endstensorlist, stepstensorlist, starts,
                                  ends, steps)
    index = _region(dout.shape, axes, starts, ends, steps, decrease_axes)
    dx = dout.copy()
    dx[index] = 0
    dvalue = None
    if valuetensor is not None:
        region = dout[index]
        dvalue = unbroadcast(region.reshape(_value_shape(region.shape, none_axes)),
                             valuetensor.shape).astype(valuetensor.dtype)
    return dx, dvalue, None, None, None


# -- index_put ---------------------------------------------------------------------------------
index_put = register_op("index_put", inputs=["x", "indices*", "value"], outputs=["out"],
                        attrs={"accumulate": False}, no_grad=["indices"])


@index_put.def_infer_shape
def index_put_shape(x: Meta, indices, value: Meta, *, accumulate):
    return x


def _coordinates(indices: list) -> tuple:
    if len(indices) == 1 and indices[0].dtype == np.bool_:
        return (indices[0],)
    return tuple(np.asarray(i) for i in indices)


@index_put.def_kernel
def index_put_kernel(x, indices, value, *, accumulate):
    out = x.copy()
    where = _coordinates(indices)
    value = value.astype(x.dtype, copy=False)
    if accumulate:
        np.add.at(out, where, np.broadcast_to(value, out[where].shape))
    else:
        out[where] = value
    return out


@index_put.def_grad
def index_put_grad(indices, value, dout, *, accumulate):
    where = _coordinates(indices)
    dx = dout.copy()
    if not accumulate:
        dx[where] = 0
    return dx, None, unbroadcast(dout[where], value.shape).astype(value.dtype)
