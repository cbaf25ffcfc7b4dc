"""The type vocabulary shared by every layer: Paddle's VarType and AttrType enums, dtype
conversion, and the metadata (`Meta`) that shape inference works on."""
from __future__ import annotations

import enum
from typing import Any, NamedTuple

import numpy as np


class VarType(enum.IntEnum):
    """Paddle's ``VarType.Type``: element dtypes and variable kinds share one enum."""

    BOOL = 0
    INT16 = 1
    INT32 = 2
    INT64 = 3
    FP16 = 4
    FP32 = 5
    FP64 = 6
    LOD_TENSOR = 7
    SELECTED_ROWS = 8
    FEED_MINIBATCH = 9
    FETCH_LIST = 10
    STEP_SCOPES = 11
    LOD_RANK_TABLE = 12
    LOD_TENSOR_ARRAY = 13
    PLACE_LIST = 14
    READER = 15
    RAW = 17
    TUPLE = 18
    SIZE_T = 19
    UINT8 = 20
    INT8 = 21
    BF16 = 22
    COMPLEX64 = 23
    COMPLEX128 = 24
    STRING = 25
    STRINGS = 26
    VOCAB = 27
    FEED_LIST = 28
    PSTRING = 29
    SPARSE_COO = 30
    SPARSE_CSR = 31
    FP8_E4M3FN = 32
    FP8_E5M2 = 33

    def __str__(self) -> str:
        name = _DTYPE_NAMES.get(self)
        return f"paddle.{name}" if name else f"VarType.{self.name}"

    __repr__ = __str__

    @property
    def is_dtype(self) -> bool:
        return self in _DTYPE_NAMES

    @property
    def name_str(self) -> str:
        """'float32' for FP32, 'LOD_TENSOR' for kinds."""
        return _DTYPE_NAMES.get(self, self.name)


class AttrType(enum.IntEnum):
    """Paddle's ``AttrType``; the value picks the field of ``OpDesc.Attr`` on the wire."""

    INT = 0
    FLOAT = 1
    STRING = 2
    INTS = 3
    FLOATS = 4
    STRINGS = 5
    BOOLEAN = 6
    BOOLEANS = 7
    BLOCK = 8
    LONG = 9
    BLOCKS = 10
    LONGS = 11
    FLOAT64S = 12
    VAR = 13
    VARS = 14
    FLOAT64 = 15
    SCALAR = 16
    SCALARS = 17


_NUMPY_OF = {
    VarType.BOOL: np.dtype("bool"),
    VarType.INT16: np.dtype("int16"),
    VarType.INT32: np.dtype("int32"),
    VarType.INT64: np.dtype("int64"),
    VarType.FP16: np.dtype("float16"),
    VarType.FP32: np.dtype("float32"),
    VarType.FP64: np.dtype("float64"),
    VarType.UINT8: np.dtype("uint8"),
    VarType.INT8: np.dtype("int8"),
    VarType.BF16: np.dtype("uint16"),  # raw bit pattern: NumPy has no bfloat16
    VarType.COMPLEX64: np.dtype("complex64"),
    VarType.COMPLEX128: np.dtype("complex128"),
}
_DTYPE_NAMES = {t: ("bfloat16" if t == VarType.BF16 else d.name) for t, d in _NUMPY_OF.items()}
_VARTYPE_OF_NUMPY = {d: t for t, d in _NUMPY_OF.items() if t != VarType.BF16}
_ALIASES = {"float": "float32", "double": "float64", "int": "int32", "long": "int64",
            "half": "float16", "bool_": "bool", "fp32": "float32", "fp64": "float64",
            "fp16": "float16"}
_VARTYPE_OF_NAME = {name: t for t, name in _DTYPE_NAMES.items()}

FLOAT_DTYPES = frozenset({VarType.FP16, VarType.FP32, VarType.FP64, VarType.BF16})


def convert_dtype(dtype: Any) -> VarType:
    """Any user spelling of a dtype ('float32', np.float32, np.dtype, VarType) -> VarType."""
    if isinstance(dtype, VarType):
        if not dtype.is_dtype:
            raise TypeError(f"{dtype} is a variable kind, not a data type")
        return dtype
    if isinstance(dtype, str):
        key = dtype.lower().replace("paddle.", "")
        key = _ALIASES.get(key, key)
        if key in _VARTYPE_OF_NAME:
            return _VARTYPE_OF_NAME[key]
        raise TypeError(f"Unsupported data type {dtype!r}; expected one of "
                        f"{sorted(_VARTYPE_OF_NAME)}")
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        return convert_dtype(VarType(dtype))
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"Unsupported data type {dtype!r}") from None
    if np_dtype not in _VARTYPE_OF_NUMPY:
        raise TypeError(f"Unsupported data type {np_dtype}")
    return _VARTYPE_OF_NUMPY[np_dtype]


def to_numpy_dtype(dtype: Any) -> np.dtype:
    return _NUMPY_OF[convert_dtype(dtype)]


def dtype_name(dtype: Any) -> str:
    """'float32' for every spelling of float32."""
    return _DTYPE_NAMES[convert_dtype(dtype)]


class Meta(NamedTuple):
    """What shape inference knows about a tensor: its shape (-1 = unknown) and dtype."""

    shape: tuple
    dtype: VarType


def attr_type_of(value: Any) -> AttrType:
    """Guess the AttrType of a Python value (used only for attrs an op does not declare)."""
    if isinstance(value, bool):
        return AttrType.BOOLEAN
    if isinstance(value, (int, np.integer)):
        return AttrType.INT if -2**31 <= int(value) < 2**31 else AttrType.LONG
    if isinstance(value, (float, np.floating)):
        return AttrType.FLOAT
    if isinstance(value, str):
        return AttrType.STRING
    if isinstance(value, (list, tuple)):
        if not value:
            return AttrType.INTS
        first = value[0]
        if isinstance(first, bool):
            return AttrType.BOOLEANS
        if isinstance(first, (int, np.integer)):
            return AttrType.LONGS if any(not -2**31 <= int(v) < 2**31 for v in value) else AttrType.INTS
        if isinstance(first, (float, np.floating)):
            return AttrType.FLOATS
        if isinstance(first, str):
            return AttrType.STRINGS
    raise TypeError(f"cannot store {value!r} ({type(value).__name__}) as an op attribute")


def coerce_attr(value: Any, attr_type: AttrType) -> Any:
    """Convert a Python value to the canonical form of ``attr_type``; raise TypeError if it
    does not fit."""
    scalar = {AttrType.INT: int, AttrType.LONG: int, AttrType.FLOAT: float,
              AttrType.FLOAT64: float, AttrType.STRING: str, AttrType.BOOLEAN: bool,
              AttrType.BLOCK: int, AttrType.VAR: str}
    listed = {AttrType.INTS: int, AttrType.LONGS: int, AttrType.FLOATS: float,
              AttrType.FLOAT64S: float, AttrType.STRINGS: str, AttrType.BOOLEANS: bool,
              AttrType.BLOCKS: int, AttrType.VARS: str}
    if attr_type in scalar:
        kind = scalar[attr_type]
        if not _fits(value, kind):
            raise TypeError(f"expected {attr_type.name} ({kind.__name__}), got {value!r}")
        return float(np.float32(value)) if attr_type == AttrType.FLOAT else kind(value)
    if attr_type in listed:
        kind = listed[attr_type]
        if isinstance(value, np.ndarray):
            value = value.tolist()
        if not isinstance(value, (list, tuple)) or not all(_fits(v, kind) for v in value):
            raise TypeError(f"expected {attr_type.name} (list of {kind.__name__}), got {value!r}")
        if attr_type == AttrType.FLOATS:
            return [float(np.float32(v)) for v in value]
        return [kind(v) for v in value]
    return value  # SCALAR(S): kept as given


def _fits(value: Any, kind: type) -> bool:
    if kind is bool:
        return isinstance(value, (bool, np.bool_))
    if kind is int:
        return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    return isinstance(value, str)
