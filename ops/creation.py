"""Creation ops: fill_constant, fill_any_like, assign_value and assign."""
from __future__ import annotations

import numpy as np

from .registry import register_op, same_as
from .types import AttrType, Meta, VarType, to_numpy_dtype


def created_meta(*_, shape, dtype, **__):
    """Shape rule of the ops that create a tensor of their ``shape`` and ``dtype`` attributes."""
    return Meta(tuple(int(d) for d in shape), VarType(dtype))


fill_constant = register_op(
    "fill_constant", inputs=["ValueTensor?", "ShapeTensor?", "ShapeTensorList*?"], outputs=["Out"],
    attrs={"shape": (AttrType.LONGS, []), "value": 0.0, "str_value": "", "dtype": 5,
           "force_cpu": False, "place_type": -1},
    infer_shape=created_meta, differentiable=False, foldable=True)


def runtime_shape(shape, shape_tensor=None, shape_list=None) -> list:
    """The shape attr, or the ShapeTensor / ShapeTensorList inputs when given (Paddle's rule)."""
    if shape_tensor is not None:
        return [int(d) for d in shape_tensor.ravel()]
    if shape_list:
        return [int(t.reshape(())) for t in shape_list]
    return shape


@fill_constant.def_kernel
def fill_constant_kernel(value_tensor=None, shape_tensor=None, shape_list=None, *, shape, value,
                         str_value, dtype):
    shape = runtime_shape(shape, shape_tensor, shape_list)
    np_dtype = to_numpy_dtype(dtype)
    if value_tensor is not None:
        fill = value_tensor.reshape(())
    elif str_value:   # Paddle's exact spelling of values a float32 attr cannot hold
        exact_int = np_dtype.kind in "iu" and str_value.lstrip("+-").isdigit()
        fill = int(str_value) if exact_int else float(str_value)
    else:
        fill = value
    return np.full(shape, fill, dtype=np_dtype)


fill_any_like = register_op(
    "fill_any_like", inputs=["X"], outputs=["Out"], attrs={"value": 0.0, "dtype": -1},
    infer_shape=lambda x, *, dtype, **_: Meta(x.shape, x.dtype if dtype == -1 else VarType(dtype)),
    differentiable=False)


@fill_any_like.def_kernel
def fill_any_like_kernel(x, *, value, dtype):
    return np.full(x.shape, value, dtype=x.dtype if dtype == -1 else to_numpy_dtype(dtype))


assign_value = register_op(
    "assign_value", outputs=["Out"],
    attrs={"shape": (AttrType.INTS, []), "dtype": 5, "bool_values": (AttrType.INTS, []),
           "fp32_values": (AttrType.FLOATS, []), "int32_values": (AttrType.INTS, []),
           "int64_values": (AttrType.LONGS, []), "fp64_values": (AttrType.FLOAT64S, [])},
    infer_shape=created_meta, differentiable=False)

_VALUES_ATTR = {VarType.BOOL: "bool_values", VarType.FP32: "fp32_values",
                VarType.INT32: "int32_values", VarType.INT64: "int64_values",
                VarType.FP64: "fp64_values"}


@assign_value.def_kernel
def assign_value_kernel(**attrs):
    dtype = VarType(attrs["dtype"])
    if dtype not in _VALUES_ATTR:
        raise ValueError(f"assign_value: unsupported dtype {dtype}; expected one of "
                         f"{[str(d) for d in _VALUES_ATTR]}")
    values = attrs[_VALUES_ATTR[dtype]]
    return np.array(values, dtype=to_numpy_dtype(dtype)).reshape(attrs["shape"])


# -- assign ----------------------------------------------------------------------------------------
assign = register_op("assign", inputs=["X?"], outputs=["Out"], infer_shape=same_as())


@assign.def_kernel
def assign_kernel(x):
    return x.copy()


@assign.def_grad
def assign_grad(dout):
    return dout
