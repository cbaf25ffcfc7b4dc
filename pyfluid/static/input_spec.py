"""``paddle.static.InputSpec``: the shape, dtype and name of one input of a traced program."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..ops.types import VarType, convert_dtype


class InputSpec:
    """Describes a program input for ``paddle.jit.to_static`` / ``paddle.jit.save``. A None
    or -1 dimension accepts any size (stored as -1)."""

    def __init__(self, shape: Sequence[int | None], dtype: Any = "float32",
                 name: str | None = None, stop_gradient: bool = False):
        if isinstance(shape, (int, np.integer)):
            shape = [shape]
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"Type of `shape` in InputSpec should be one of (tuple, list), but "
                            f"received {type(shape).__name__}.")
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype: VarType = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> "InputSpec":
        """The spec of an eager Tensor (or static Variable), its exact shape included."""
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, "_name", None))

    @classmethod
    def from_numpy(cls, ndarray: np.ndarray, name: str | None = None) -> "InputSpec":
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size: int | Sequence[int]) -> "InputSpec":
        """Prepend a batch dimension."""
        size = batch_size[0] if isinstance(batch_size, (list, tuple)) else batch_size
        return InputSpec((int(size),) + self.shape, self.dtype, self.name, self.stop_gradient)

    def unbatch(self) -> "InputSpec":
        """Remove the leading (batch) dimension."""
        if not self.shape:
            raise ValueError("Not support to unbatch a InputSpec when len(shape) == 0.")
        return InputSpec(self.shape[1:], self.dtype, self.name, self.stop_gradient)

    def _key(self) -> tuple:
        return self.shape, self.dtype, self.name, self.stop_gradient

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InputSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")
