"""LoDTensor: the value held by a scope variable (a NumPy array plus Paddle's LoD)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.types import VarType, convert_dtype
from .place import CPUPlace


class LoDTensor:
    """A dense tensor on the CPU. ``np.array(tensor)`` gives its values."""

    __slots__ = ("_array", "_lod")

    def __init__(self, array: np.ndarray | None = None):
        self._array = array
        self._lod: list[list[int]] = []

    def set(self, array: Any, place: Any = None) -> None:
        """Copy ``array`` into this tensor (Paddle's ``tensor.set(ndarray, place)``)."""
        self._array = np.array(array, copy=True)

    def _is_initialized(self) -> bool:
        return self._array is not None

    def shape(self) -> list[int]:
        return list(self._require().shape)

    def _dtype(self) -> VarType:
        return convert_dtype(self._require().dtype)

    def numpy(self) -> np.ndarray:
        return self._require()

    def lod(self) -> list[list[int]]:
        return [list(level) for level in self._lod]

    def set_lod(self, lod: list[list[int]]) -> None:
        self._lod = [list(level) for level in lod]

    def recursive_sequence_lengths(self) -> list[list[int]]:
        return [list(np.diff(level)) for level in self._lod]

    def set_recursive_sequence_lengths(self, lengths: list[list[int]]) -> None:
        self._lod = [[0, *np.cumsum(level).tolist()] for level in lengths]

    def _place(self) -> CPUPlace:
        return CPUPlace()

    def _require(self) -> np.ndarray:
        if self._array is None:
            raise RuntimeError("The tensor is not initialized: it holds no value yet "
                               "(run the startup program, or feed it)")
        return self._array

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        array = self._require()
        if dtype is not None and array.dtype != dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def __len__(self) -> int:
        return len(self._require())

    def __repr__(self) -> str:
        if self._array is None:
            return "LoDTensor(not initialized)"
        return (f"LoDTensor(shape={list(self._array.shape)}, dtype={self._array.dtype}, "
                f"lod={self._lod},\n{np.array2string(self._array)})")

    __str__ = __repr__


class LoDTensorArray(list):
    """A tensor array's value fetched with ``return_numpy=False``: a list of LoDTensors."""
