"""The vocabulary of Paddle 3's PIR JSON files (docs/pir_format.md): compressed op names,
value types (``TT``) and attributes (``AT``), decoded to plain Python values and encoded back.

Decoding checks the shape of every JSON node and raises :class:`PirFormatError` with what was
expected, so a corrupt or foreign file gives a clear error and never a KeyError/TypeError."""
from __future__ import annotations

from typing import Any, NamedTuple

from ...ops.types import VarType

DIALECTS = {"0": "builtin", "1": "pd_op", "2": "cf", "3": "custom_op", "4": "dist_op"}
_DIALECT_IDS = {name: key for key, name in DIALECTS.items()}
PARAMETER_OP = "builtin.parameter"
MAX_DIM = 2**62
MAX_NESTING = 16            # vector types in vector types, arrays in array attributes


class PirFormatError(ValueError):
    """The JSON is not a PIR program as Paddle writes it (the message says where and why)."""


# -- names ------------------------------------------------------------------------------------
def op_name(compressed: Any) -> str:
    """``"1.matmul"`` -> ``"pd_op.matmul"``; ``"p"`` -> ``"builtin.parameter"``."""
    if not isinstance(compressed, str) or not compressed:
        raise PirFormatError(f"an op name must be a non-empty string, got {compressed!r}")
    if compressed == "p":
        return PARAMETER_OP
    dialect, dot, rest = compressed.partition(".")
    if not dot or not rest:
        raise PirFormatError(f"op name {compressed!r} is not DIALECT.NAME")
    return f"{DIALECTS.get(dialect, dialect)}.{rest}"


def compress(name: str) -> str:
    if name == PARAMETER_OP:
        return "p"
    dialect, _, rest = name.partition(".")
    return f"{_DIALECT_IDS.get(dialect, dialect)}.{rest}"


# -- types ------------------------------------------------------------------------------------
ELEMENT_TYPES = {
    "t_f32": VarType.FP32, "t_f64": VarType.FP64, "t_f16": VarType.FP16, "t_bf16": VarType.BF16,
    "t_i8": VarType.INT8, "t_ui8": VarType.UINT8, "t_i16": VarType.INT16, "t_i32": VarType.INT32,
    "t_i64": VarType.INT64, "t_bool": VarType.BOOL, "t_c64": VarType.COMPLEX64,
    "t_c128": VarType.COMPLEX128, "t_f8e4m3fn": VarType.FP8_E4M3FN,
    "t_f8e5m2": VarType.FP8_E5M2,
}
_ELEMENT_IDS = {dtype: key for key, dtype in ELEMENT_TYPES.items()}
TENSOR, VECTOR, ARRAY, SELECTED_ROWS = "tensor", "vector", "array", "selected_rows"
_KINDS = {"t_dtensor": TENSOR, "t_selectedrows": SELECTED_ROWS,
          "t_dense_tensor_array": ARRAY, "t_densetensorarray": ARRAY, "t_tensor_array": ARRAY}


class PirType(NamedTuple):
    """A value's type: ``kind`` (tensor, array, selected_rows, vector), element dtype, dims
    (-1 = unknown), and for vectors the element types."""
    kind: str
    dtype: VarType | None = None
    dims: tuple = ()
    items: tuple = ()


def decode_type(node: Any, depth: int = 0) -> PirType | None:
    """A ``TT`` node -> PirType; ``{"#": "NULL"}`` -> None."""
    if depth > MAX_NESTING:
        raise PirFormatError(f"types nested more than {MAX_NESTING} deep")
    key = _id_of(node, "type")
    if key == "NULL":
        return None
    dialect, _, local = key.partition(".")
    if local == "t_vec":
        items = _list(node.get("D", []), "a vector type's D")
        return PirType(VECTOR, items=tuple(decode_type(item, depth + 1) for item in items))
    kind = _KINDS.get(local)
    if kind is None:
        if local in ELEMENT_TYPES:
            raise PirFormatError(f"element type {key!r} where a tensor type was expected")
        raise PirFormatError(f"unsupported value type {key!r}")
    data = _list(node.get("D"), f"the D of type {key!r}")
    if len(data) < 2:
        raise PirFormatError(f"type {key!r} needs [dtype, dims, ...], got {data!r}")
    return PirType(kind, decode_element(data[0]), decode_dims(data[1]))


def decode_element(node: Any) -> VarType:
    key = _id_of(node, "element type")
    dtype = ELEMENT_TYPES.get(key.partition(".")[2])
    if dtype is None:
        raise PirFormatError(f"unknown element type {key!r}")
    return dtype


def decode_dims(node: Any) -> tuple:
    """Dims, any negative one read as -1 (unknown): Paddle writes e.g. -8 for a batch-sized
    dim times 8."""
    dims = _list(node, "dims")
    if not all(type(d) is int and abs(d) <= MAX_DIM for d in dims):
        raise PirFormatError(f"dims must be integers of magnitude <= 2**62, got {dims!r}")
    return tuple(d if d >= 0 else -1 for d in dims)


def encode_type(ptype: PirType | None) -> dict:
    if ptype is None:
        return {"#": "NULL"}
    if ptype.kind == VECTOR:
        return {"#": "0.t_vec", "D": [encode_type(item) for item in ptype.items]}
    element = {"#": "0." + _ELEMENT_IDS[ptype.dtype]}
    if ptype.kind == ARRAY:
        return {"#": "1.t_dense_tensor_array", "D": [element, list(ptype.dims), "NCHW"]}
    key = "0.t_dtensor" if ptype.kind == TENSOR else "1.t_selectedrows"
    return {"#": key, "D": [element, list(ptype.dims), "NCHW", [], 0]}


# -- attributes -------------------------------------------------------------------------------
DTYPE_NAMES = {
    "float32": VarType.FP32, "float64": VarType.FP64, "float16": VarType.FP16,
    "bfloat16": VarType.BF16, "int8": VarType.INT8, "uint8": VarType.UINT8,
    "int16": VarType.INT16, "int32": VarType.INT32, "int64": VarType.INT64,
    "bool": VarType.BOOL, "complex64": VarType.COMPLEX64, "complex128": VarType.COMPLEX128,
}
_DTYPE_IDS = {dtype: name for name, dtype in DTYPE_NAMES.items()}
UNDEFINED_DTYPE = "Undefined(ALL_DTYPE)"


class Dtype(NamedTuple):
    """A ``1.a_dtype`` attribute: a VarType, or None for Paddle's undefined dtype."""
    value: VarType | None


class Place(NamedTuple):
    """A ``1.a_place`` attribute (allocation type, device id, device type); pyfluid runs
    everything on the CPU, so places are kept only to be written back."""
    kind: int = 0
    device: int = 0
    device_type: str = ""


_SCALARS = {"a_bool": bool, "a_i32": int, "a_i64": int, "a_f32": float, "a_f64": float,
            "a_str": str, "a_index": int, "a_tensorname": str}


def decode_attr(node: Any, depth: int = 0) -> Any:
    """An ``AT`` node -> bool, int, float, str, list, complex, Dtype, Place or PirType."""
    if depth > MAX_NESTING:
        raise PirFormatError(f"attributes nested more than {MAX_NESTING} deep")
    key = _id_of(node, "attribute")
    local = key.partition(".")[2]
    data = node.get("D")
    kind = _SCALARS.get(local)
    if kind is not None:
        ok = type(data) is bool if kind is bool else (
            isinstance(data, (int, float)) and type(data) is not bool if kind is float
            else type(data) is kind)
        if not ok:
            raise PirFormatError(f"attribute {key!r} holds {data!r}, expected a {kind.__name__}")
        return kind(data)
    if local == "a_array":
        return [decode_attr(item, depth + 1) for item in _list(data, "an array attribute's D")]
    if local == "a_intarray":
        values = _list(data, "an int array")
        return values if all(type(d) is int and abs(d) <= MAX_DIM for d in values) else \
            _bad(key, data)
    if local == "a_dtype":
        if data in DTYPE_NAMES:
            return Dtype(DTYPE_NAMES[data])
        if isinstance(data, str) and data.lower().startswith("undefined"):
            return Dtype(None)
        return _bad(key, data)
    if local == "a_place":
        items = _list(data, "a place attribute's D")
        if len(items) != 3 or type(items[0]) is not int or type(items[1]) is not int:
            return _bad(key, data)
        return Place(items[0], items[1], str(items[2]))
    if local == "a_scalar":
        items = _list(data, "a scalar attribute's D")
        if len(items) != 2 or not isinstance(items[1], (int, float, list)):
            return _bad(key, data)
        return items[1] if not isinstance(items[1], list) else complex(*items[1][:2])
    if local in ("a_c64", "a_c128"):
        items = _list(data, "a complex attribute's D")
        return complex(*items[:2]) if len(items) == 2 else _bad(key, data)
    if local in ("a_layout", "a_datalayout"):
        return str(data)
    if local == "a_type":
        return decode_type(data, depth + 1)
    raise PirFormatError(f"unsupported attribute type {key!r}")


def encode_attr(kind: str, value: Any) -> dict:
    """``kind``: b, i32, i64, f32, f64, s, an array of one of those (``i32s``...), ``dtype``,
    ``place``, ``ia`` (int array) or ``sc`` (scalar)."""
    if kind.endswith("s") and kind != "s":
        return {"#": "0.a_array", "D": [encode_attr(kind[:-1], v) for v in value]}
    if kind == "b":
        return {"#": "0.a_bool", "D": bool(value)}
    if kind in ("i32", "i64"):
        return {"#": f"0.a_{kind}", "D": int(value)}
    if kind in ("f32", "f64"):
        return {"#": f"0.a_{kind}", "D": float(value)}
    if kind == "s":
        return {"#": "0.a_str", "D": str(value)}
    if kind == "dtype":
        dtype = value.value if isinstance(value, Dtype) else value
        return {"#": "1.a_dtype", "D": UNDEFINED_DTYPE if dtype is None
                else _DTYPE_IDS[VarType(dtype)]}
    if kind == "place":
        place = value if isinstance(value, Place) else Place()
        return {"#": "1.a_place", "D": [place.kind, place.device, place.device_type]}
    if kind == "ia":
        return {"#": "1.a_intarray", "D": [int(v) for v in value]}
    if kind == "sc":
        number = value
        return {"#": "1.a_scalar", "D": ["float64" if isinstance(number, float) else "int64",
                                          number]}
    raise ValueError(f"unknown PIR attribute kind {kind!r}")


def dtype_attr_name(dtype: VarType) -> str:
    return _DTYPE_IDS[VarType(dtype)]


# -- helpers ----------------------------------------------------------------------------------
def _id_of(node: Any, what: str) -> str:
    if not isinstance(node, dict) or not isinstance(node.get("#"), str):
        raise PirFormatError(f"a {what} must be an object with a string '#', got "
                             f"{_preview(node)}")
    return node["#"]


def _list(value: Any, what: str) -> list:
    if not isinstance(value, list):
        raise PirFormatError(f"{what} must be a list, got {_preview(value)}")
    return value


def _bad(key: str, data: Any):
    raise PirFormatError(f"attribute {key!r} has the malformed value {_preview(data)}")


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
