"""Creation ops: fill_constant, fill_any_like, assign_value, assign, share_data, range and
tril_triu
(Paddle keeps tril/triu with the creation API)."""
from __future__ import annotations

import numpy as np

from .registry import grad_name, register_op, same_as
from .types import AttrType, Meta, VarType, to_numpy_dtype


def created_meta(*metas, shape, dtype, **__):
    """Shape rule of the ops that create a tensor of their ``shape`` and ``dtype`` attributes.
    Where such an op takes ``ShapeTensor?, ShapeTensorList*?`` (its last two input slots) and
    one is given, the sizes come when it runs: the ``shape`` attribute still says what is
    known (Paddle's API writes -1 for the sizes a tensor gives) when it has the right rank,
    else every size is -1."""
    shape_tensor, shape_list = (metas[-2], metas[-1]) if len(metas) >= 2 else (None, None)
    rank = len(shape)
    if shape_list:
        rank = len(shape_list)
    elif shape_tensor is not None and len(shape_tensor.shape) == 1 and shape_tensor.shape[0] >= 0:
        rank = shape_tensor.shape[0]
    if (shape_list or shape_tensor is not None) and rank != len(shape):
        return Meta((-1,) * rank, VarType(dtype))
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
    return list(x) if isinstance(x, list) else x.copy()     # an array copies its list


@assign.def_grad_maker
def assign_grad(op, no_grad_names: set) -> list[dict]:
    """Paddle's grad of assign is an assign of the output's gradient."""
    x = op.input("X")
    if not x or grad_name(x[0]) in no_grad_names:
        return []
    return [{"type": "assign", "inputs": {"X": [grad_name(op.output("Out")[0])]},
             "outputs": {"Out": [grad_name(x[0])]}, "attrs": {}}]


# -- share_data (Variable.detach): the same value under another name, off the gradient path --
share_data = register_op("share_data", inputs=["X"], outputs=["Out"], infer_shape=same_as(),
                         differentiable=False, views_input=True)


@share_data.def_kernel
def share_data_kernel(x):
    return x


# -- range (paddle.arange): [Start, End) by Step, three one-element tensors ----------------------
range_op = register_op("range", inputs=["Start", "End", "Step"], outputs=["Out"],
                       differentiable=False,
                       infer_shape=lambda start, end, step: Meta((-1,), start.dtype))


def _range_size(start, end, step) -> int:
    """Paddle's element count: ceil(|end - start| / |step|), in integers for integer dtypes."""
    if step == 0:
        raise ValueError("range: the step of range op should not be 0 (Start, End, Step = "
                         f"{start}, {end}, {step})")
    if start < end and step < 0:
        raise ValueError(f"range: the step should be greater than 0 while start < end "
                         f"(Start {start}, End {end}, Step {step})")
    if start > end and step > 0:
        raise ValueError(f"range: the step should be less than 0 while start > end "
                         f"(Start {start}, End {end}, Step {step})")
    if isinstance(start, np.integer):
        return int((abs(int(end) - int(start)) + abs(int(step)) - 1) // abs(int(step)))
    return int(np.ceil(abs((end - start) / step)))


@range_op.def_kernel
def range_kernel(start, end, step):
    first, last, stride = (np.ravel(t)[0] for t in (start, end, step))
    n = _range_size(first, last, stride)
    if n == 0:
        return np.zeros(0, dtype=start.dtype)
    # Paddle adds the step n times (value += step): a running sum rounds as it does
    terms = np.full(n, stride, dtype=start.dtype)
    terms[0] = first
    return np.cumsum(terms, dtype=start.dtype)


# -- tril_triu (paddle.tril / paddle.triu): keep one triangle of the last two dims ---------------
tril_triu = register_op("tril_triu", inputs=["X"], outputs=["Out"],
                        attrs={"diagonal": 0, "lower": False})


@tril_triu.def_infer_shape
def tril_triu_shape(x: Meta, **_):
    if len(x.shape) < 2:
        raise ValueError(f"tril_triu: X must have at least 2 dims, received shape "
                         f"{list(x.shape)}")
    return x


def _triangle(shape: tuple, diagonal: int, lower: bool) -> np.ndarray:
    rows, cols = shape[-2:]
    return (np.tri(rows, cols, diagonal, dtype=bool) if lower
            else ~np.tri(rows, cols, diagonal - 1, dtype=bool))


@tril_triu.def_kernel
def tril_triu_kernel(x, *, diagonal, lower):
    return np.where(_triangle(x.shape, diagonal, lower), x, x.dtype.type(0))


@tril_triu.def_grad
def tril_triu_grad(dout, *, diagonal, lower):
    return np.where(_triangle(dout.shape, diagonal, lower), dout, dout.dtype.type(0))

