"""Tensor creation and manipulation ops, plus feed/fetch (which the Executor handles itself)."""
from __future__ import annotations

import numpy as np

from .common import normalize_axis
from .registry import register_op, same_as
from .types import AttrType, Meta, VarType, to_numpy_dtype


class _Generator:
    """The process-wide default random generator (``pyfluid.seed`` reseeds it)."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def for_seed(self, seed: int) -> np.random.Generator:
        return np.random.default_rng(seed) if seed else self.rng


default_generator = _Generator()


def seed(value: int) -> None:
    default_generator.rng = np.random.default_rng(value)


def _created(shape, dtype):
    return Meta(tuple(int(d) for d in shape), VarType(dtype))


# -- creation --------------------------------------------------------------------------------------
fill_constant = register_op(
    "fill_constant", inputs=["ValueTensor?", "ShapeTensor?", "ShapeTensorList*?"], outputs=["Out"],
    attrs={"shape": (AttrType.LONGS, []), "value": 0.0, "str_value": "", "dtype": 5,
           "force_cpu": False, "place_type": -1},
    infer_shape=lambda *_, shape, dtype, **__: _created(shape, dtype), differentiable=False,
    foldable=True)


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


_RANDOM_ATTRS = {"shape": (AttrType.LONGS, []), "seed": 0, "dtype": 5}

uniform_random = register_op(
    "uniform_random", inputs=["ShapeTensor?", "ShapeTensorList*?"], outputs=["Out"],
    attrs={**_RANDOM_ATTRS, "min": -1.0, "max": 1.0, "diag_num": 0, "diag_step": 0,
           "diag_val": 1.0},
    infer_shape=lambda *_, shape, dtype, **__: _created(shape, dtype), differentiable=False)


@uniform_random.def_kernel
def uniform_random_kernel(shape_tensor=None, shape_list=None, *, shape, min, max, seed, dtype):
    rng = default_generator.for_seed(seed)
    size = runtime_shape(shape, shape_tensor, shape_list)
    return rng.uniform(min, max, size=size).astype(to_numpy_dtype(dtype))


gaussian_random = register_op(
    "gaussian_random", inputs=["ShapeTensor?", "ShapeTensorList*?"], outputs=["Out"],
    attrs={**_RANDOM_ATTRS, "mean": 0.0, "std": 1.0},
    infer_shape=lambda *_, shape, dtype, **__: _created(shape, dtype), differentiable=False)


@gaussian_random.def_kernel
def gaussian_random_kernel(shape_tensor=None, shape_list=None, *, shape, mean, std, seed, dtype):
    rng = default_generator.for_seed(seed)
    size = runtime_shape(shape, shape_tensor, shape_list)
    return rng.normal(mean, std, size=size).astype(to_numpy_dtype(dtype))


fill_any_like = register_op(
    "fill_any_like", inputs=["X"], outputs=["Out"], attrs={"value": 0.0, "dtype": -1},
    infer_shape=lambda x, *, dtype, **_: Meta(x.shape, x.dtype if dtype == -1 else VarType(dtype)),
    differentiable=False)


@fill_any_like.def_kernel
def fill_any_like_kernel(x, *, value, dtype):
    return np.full(x.shape, value, dtype=x.dtype if dtype == -1 else to_numpy_dtype(dtype))


# -- copies and casts ------------------------------------------------------------------------------
assign = register_op("assign", inputs=["X?"], outputs=["Out"], infer_shape=same_as())


@assign.def_kernel
def assign_kernel(x):
    return x.copy()


@assign.def_grad
def assign_grad(dout):
    return dout


cast = register_op("cast", inputs=["X"], outputs=["Out"], attrs={"in_dtype": 5, "out_dtype": 5},
                   infer_shape=lambda x, *, out_dtype, **_: Meta(x.shape, VarType(out_dtype)))


@cast.def_kernel
def cast_kernel(x, *, out_dtype):
    return x.astype(to_numpy_dtype(out_dtype))


@cast.def_grad
def cast_grad(x, dout):
    return dout.astype(x.dtype)


# -- shape manipulation ----------------------------------------------------------------------------
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


sum_op = register_op("sum", inputs=["X*"], outputs=["Out"], extra_attrs={"use_mkldnn": False},
                     infer_shape=lambda xs, **_: xs[0])


@sum_op.def_kernel
def sum_kernel(xs):
    if len(xs) == 1:
        return xs[0].copy()
    out = np.asarray(np.add(xs[0], xs[1]))  # 0-D inputs give a NumPy scalar
    for x in xs[2:]:
        np.add(out, x, out=out)
    return out


@sum_op.def_grad
def sum_grad(x, dout):
    return [dout] * len(x)


# -- feed / fetch: declarations only; the Executor moves the data ---------------------------------
register_op("feed", inputs=["X"], outputs=["Out"], attrs={"col": 0}, differentiable=False,
            has_kernel=False)
register_op("fetch", inputs=["X"], outputs=["Out"], attrs={"col": 0}, differentiable=False,
            has_kernel=False)

