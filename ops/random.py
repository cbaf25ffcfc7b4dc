"""Random ops: uniform_random, gaussian_random and truncated_gaussian_random, drawn from the
process-wide default generator (which ``pyfluid.seed`` reseeds through :func:`seed`)."""
from __future__ import annotations

import numpy as np

from .creation import created_meta, runtime_shape
from .registry import register_op
from .types import AttrType, to_numpy_dtype


class _Generator:
    """The process-wide default random generator (``pyfluid.seed`` reseeds it)."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def for_seed(self, seed: int) -> np.random.Generator:
        return np.random.default_rng(seed) if seed else self.rng


default_generator = _Generator()


def seed(value: int) -> None:
    default_generator.rng = np.random.default_rng(value)


_RANDOM_ATTRS = {"shape": (AttrType.LONGS, []), "seed": 0, "dtype": 5}

uniform_random = register_op(
    "uniform_random", inputs=["ShapeTensor?", "ShapeTensorList*?"], outputs=["Out"],
    attrs={**_RANDOM_ATTRS, "min": -1.0, "max": 1.0, "diag_num": 0, "diag_step": 0,
           "diag_val": 1.0},
    infer_shape=created_meta, differentiable=False)


@uniform_random.def_kernel
def uniform_random_kernel(shape_tensor=None, shape_list=None, *, shape, min, max, seed, dtype):
    rng = default_generator.for_seed(seed)
    size = runtime_shape(shape, shape_tensor, shape_list)
    return rng.uniform(min, max, size=size).astype(to_numpy_dtype(dtype))


gaussian_random = register_op(
    "gaussian_random", inputs=["ShapeTensor?", "ShapeTensorList*?"], outputs=["Out"],
    attrs={**_RANDOM_ATTRS, "mean": 0.0, "std": 1.0},
    infer_shape=created_meta, differentiable=False)


@gaussian_random.def_kernel
def gaussian_random_kernel(shape_tensor=None, shape_list=None, *, shape, mean, std, seed, dtype):
    rng = default_generator.for_seed(seed)
    size = runtime_shape(shape, shape_tensor, shape_list)
    return rng.normal(mean, std, size=size).astype(to_numpy_dtype(dtype))


truncated_gaussian_random = register_op(
    "truncated_gaussian_random", outputs=["Out"],
    attrs={"shape": (AttrType.INTS, []), "mean": 0.0, "std": 1.0, "seed": 0, "dtype": 5},
    infer_shape=created_meta, differentiable=False)


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
