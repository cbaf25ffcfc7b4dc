"""Random tensors (``paddle.tensor.random``): samples from pyfluid's default generator
(``pyfluid.seed``), through the ``gaussian_random`` / ``uniform_random`` ops."""
from __future__ import annotations

from typing import Any, Sequence

from .._dispatch import apply_op
from .creation import _dtype, _shape


def randn(shape: Sequence[int], dtype: Any = None, name: str | None = None):
    """Standard-normal samples from pyfluid's default generator (``pyfluid.seed``)."""
    return apply_op("gaussian_random", {}, {"shape": _shape(shape), "mean": 0.0, "std": 1.0,
                                            "seed": 0, "dtype": _dtype(dtype)})


def rand(shape: Sequence[int], dtype: Any = None, name: str | None = None):
    """Uniform samples in [0, 1) from pyfluid's default generator."""
    return apply_op("uniform_random", {}, {"shape": _shape(shape), "min": 0.0, "max": 1.0,
                                           "seed": 0, "dtype": _dtype(dtype)})
