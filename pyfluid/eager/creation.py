"""Tensor creation: ``to_tensor``, ``randn``, ``rand``, ``zeros``, ``ones``, ``full``, the
``*_like`` forms and ``arange``. All but ``to_tensor``/``arange`` run the registered creation
ops (fill_constant, gaussian_random, uniform_random, fill_any_like), so in static mode they
append those ops like Paddle does."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._dispatch import apply_op
from ..ops.types import convert_dtype, to_numpy_dtype
from .tensor import Tensor

_DEFAULT_FLOAT = "float32"


def _shape(shape: Any) -> list[int]:
    if isinstance(shape, Tensor):
        return [int(d) for d in shape._array.ravel()]
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [int(d) for d in shape]


def _dtype(dtype: Any, default: str = _DEFAULT_FLOAT) -> int:
    return int(convert_dtype(dtype if dtype is not None else default))


def to_tensor(data: Any, dtype: Any = None, place: Any = None,
              stop_gradient: bool = True) -> Tensor:
    """A new leaf Tensor holding a copy of ``data``. Python floats become float32 (Paddle's
    default dtype), Python ints int64; NumPy arrays keep their dtype."""
    if isinstance(data, Tensor):
        array = data._array.copy()
    else:
        array = np.array(data)
        if not isinstance(data, np.ndarray) and not isinstance(data, np.generic):
            if array.dtype.kind == "f":
                array = array.astype(_DEFAULT_FLOAT)
            elif array.dtype.kind in "iu":
                array = array.astype("int64")
    if dtype is not None:
        array = array.astype(to_numpy_dtype(dtype), copy=False)
    return Tensor._wrap(array, bool(stop_gradient))


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None, name: str | None = None):
    """A ``fill_constant`` op (Paddle's attrs and, in static mode, temporary names)."""
    from ..tensor_manip import full_constant
    return full_constant(_shape(shape), _dtype(dtype), fill_value)


def zeros(shape: Sequence[int], dtype: Any = None, name: str | None = None):
    return full(shape, 0.0, dtype)


def ones(shape: Sequence[int], dtype: Any = None, name: str | None = None):
    return full(shape, 1.0, dtype)


def full_like(x, fill_value: Any, dtype: Any = None, name: str | None = None):
    return apply_op("fill_any_like", {"X": x}, {"value": float(fill_value),
                                                "dtype": -1 if dtype is None else _dtype(dtype)},
                    layer="full_like")


def zeros_like(x, dtype: Any = None, name: str | None = None):
    return full_like(x, 0.0, dtype)


def ones_like(x, dtype: Any = None, name: str | None = None):
    return full_like(x, 1.0, dtype)


def randn(shape: Sequence[int], dtype: Any = None, name: str | None = None):
    """Standard-normal samples from pyfluid's default generator (``pyfluid.seed``)."""
    return apply_op("gaussian_random", {}, {"shape": _shape(shape), "mean": 0.0, "std": 1.0,
                                            "seed": 0, "dtype": _dtype(dtype)})


def rand(shape: Sequence[int], dtype: Any = None, name: str | None = None):
    """Uniform samples in [0, 1) from pyfluid's default generator."""
    return apply_op("uniform_random", {}, {"shape": _shape(shape), "min": 0.0, "max": 1.0,
                                           "seed": 0, "dtype": _dtype(dtype)})


def arange(start: Any = 0, end: Any = None, step: Any = 1, dtype: Any = None,
           name: str | None = None) -> Tensor:
    """Evenly spaced values in [start, end); int64 for integer arguments, else float32."""
    if end is None:
        start, end = 0, start
    values = [float(v) if isinstance(v, Tensor) else v for v in (start, end, step)]
    is_int = all(isinstance(v, (int, np.integer)) for v in values)
    default = "int64" if is_int else _DEFAULT_FLOAT
    return Tensor._wrap(np.arange(*values).astype(to_numpy_dtype(dtype or default)))
