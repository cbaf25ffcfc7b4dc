"""The pickles of ``paddle.static.save`` (``.pdparams`` / ``.pdopt``): writing them so Paddle
reads them, and reading them without ever running code from the file.

Reading goes through :mod:`.safe_pickle` (the project's one restricted unpickler): only plain
numeric arrays in dicts, nothing callable is ever resolved from the file."""
from __future__ import annotations

import io
import math
import pickle
from typing import Any

import numpy as np

from .safe_pickle import UnsafePickleError, describe, loads_tree

try:                                    # NumPy 2 moved the module; both spellings are read
    from numpy._core.multiarray import _reconstruct
except ImportError:                     # pragma: no cover - NumPy 1.x
    from numpy.core.multiarray import _reconstruct

UNPACK_INFO_KEY = "UnpackBigParamInfor@@"     # Paddle's key for arrays cut into slices
MAX_SLICE_BYTES = 2**30 - 1                   # protocols 2/3 cannot hold bigger objects
_PLAIN_KINDS = frozenset("biufc")


# -- writing --------------------------------------------------------------------------------
class _PaddlePickler(pickle._Pickler):  # the Python pickler lets us choose global names
    """Writes ``numpy.core.multiarray._reconstruct`` (readable by NumPy 1 and 2) instead of
    NumPy 2's ``numpy._core`` spelling, which Paddle environments on NumPy 1 cannot import."""

    def save_global(self, obj: Any, name: str | None = None) -> None:
        if obj is not _reconstruct:
            super().save_global(obj, name)
            return
        if self.proto >= 4:
            self.save("numpy.core.multiarray")
            self.save("_reconstruct")
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + b"numpy.core.multiarray\n_reconstruct\n")
        self.memoize(obj)


def dump_arrays(arrays: dict[str, np.ndarray], protocol: int = 4) -> bytes:
    """Pickle bytes of ``{name: ndarray}`` as Paddle writes them (big arrays sliced for
    protocols 2 and 3)."""
    buffer = io.BytesIO()
    _PaddlePickler(buffer, protocol=protocol).dump(split_big_arrays(dict(arrays), protocol))
    return buffer.getvalue()


def split_big_arrays(arrays: dict[str, Any], protocol: int) -> dict[str, Any]:
    """Paddle's ``_unpack_saved_dict``: protocols 2/3 cannot hold 4 GB objects, so an array
    with more than MAX_SLICE_BYTES // itemsize elements is flattened into ``name@@.<i>`` slices."""
    if not 1 < protocol < 4:
        return arrays
    info = {}
    for name, value in list(arrays.items()):
        if not isinstance(value, np.ndarray):
            continue
        limit = MAX_SLICE_BYTES // value.dtype.itemsize
        if value.size <= limit:
            continue
        flat = value.reshape(-1)
        slices = [f"{name}@@.{i}" for i in range(math.ceil(value.size / limit))]
        info[name] = {"OriginShape": value.shape, "slices": slices}
        del arrays[name]
        for i, key in enumerate(slices):
            arrays[key] = flat[i * limit:(i + 1) * limit]
    if info:
        arrays[UNPACK_INFO_KEY] = info
    return arrays


# -- reading --------------------------------------------------------------------------------
def load_arrays(data: bytes) -> dict[str, np.ndarray]:
    """``{name: ndarray}`` from pickle bytes written by Paddle or :func:`dump_arrays`, with
    sliced big arrays joined again. Raises UnsafePickleError (a pickle.UnpicklingError) for
    anything else, garbage included; never calls a function named by the data."""
    return join_big_arrays(_check_plain(_load_dict(data, "a dict of names to numpy arrays")))


def _load_dict(data: bytes, expected: str) -> dict:
    """The dict a pickle holds, read by the restricted unpickler."""
    obj = loads_tree(data)
    if type(obj) is not dict:
        raise UnsafePickleError(f"the pickle holds {describe(obj)}, expected {expected}")
    return obj


def load_state(data: bytes) -> dict:
    """Like :func:`load_arrays`, but a top-level value may also be a dict of names to plain
    numbers and strings (``paddle.save``'s name table and ``LR_Scheduler`` state)."""
    obj = _load_dict(data, "a dict")
    tables = {key: obj.pop(key) for key in list(obj) if type(obj[key]) is dict
              and key != UNPACK_INFO_KEY}
    for key, table in tables.items():
        for inner, value in table.items():
            if type(value) not in (int, float, bool, str):
                raise UnsafePickleError(f"entry {describe(key)} holds {describe(inner)}: "
                                        f"{describe(value)}; expected names to numbers or "
                                        "strings")
    return {**join_big_arrays(_check_plain(obj)), **tables}


def _check_plain(obj: dict) -> dict:
    for key, value in obj.items():
        if key == UNPACK_INFO_KEY:
            continue
        if type(value) is not np.ndarray or value.dtype.kind not in _PLAIN_KINDS \
                or value.dtype.fields is not None:
            raise UnsafePickleError(f"value of {describe(key)} is {describe(value)}, expected "
                                    "a plain numeric numpy array")
    return dict(obj)


def join_big_arrays(obj: dict) -> dict:
    info = obj.pop(UNPACK_INFO_KEY, None)
    if info is None:
        return obj
    try:
        for name, entry in info.items():
            parts = [obj.pop(key) for key in entry["slices"]]
            obj[name] = np.concatenate(parts).reshape(tuple(entry["OriginShape"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UnsafePickleError(f"malformed '{UNPACK_INFO_KEY}' entry ({type(exc).__name__}: "
                                f"{describe(str(exc))})") from None
    return obj
