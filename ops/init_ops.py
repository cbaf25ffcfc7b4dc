"""Initializer-only ops: truncated_gaussian_random and assign_value (Paddle 2.6 attributes)."""
from __future__ import annotations

import numpy as np

from .registry import register_op
from .tensor import default_generator
from .types import AttrType, Meta, VarType, to_numpy_dtype


def _created(*_, shape, dtype, **__):
    return Meta(tuple(int(d) for d in shape), VarType(dtype))


truncated_gaussian_random = register_op(
    "truncated_gaussian_random", outputs=["Out"],
    attrs={"shape": (AttrType.INTS, []), "mean": 0.0, "std": 1.0, "seed": 0, "dtype": 5},
    infer_shape=_created, differentiable=False)


@truncated_gaussian_random.def_kernel
def truncated_gaussian_random_kernel(*, shape, mean, std, seed, dtype):
    """Normal(mean, std) restricted to [mean - 2 std, mean + 2 std] (redraws outside)."""
    rng = default_generator.for_seed(seed)
    size = int(np.prod(shape))
    values = rng.normal(0.0, 1.0, size)
    bad = np.abs(values) > 2.0
    while bad.any():
        values[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
        bad = np.abs(values) > 2.0
    return (values * std + mean).reshape(shape).astype(to_numpy_dtype(dtype))


assign_value = register_op(
    "assign_value", outputs=["Out"],
    attrs={"shape": (AttrType.INTS, []), "dtype": 5, "bool_values": (AttrType.INTS, []),
           "fp32_values": (AttrType.FLOATS, []), "int32_values": (AttrType.INTS, []),
           "int64_values": (AttrType.LONGS, []), "fp64_values": (AttrType.FLOAT64S, [])},
    infer_shape=_created, differentiable=False)

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
