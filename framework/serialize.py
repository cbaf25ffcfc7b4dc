"""Program <-> ProgramDesc bytes (Paddle's ``.pdmodel`` wire format, spec §1).

The codec is hand-written over :mod:`.wire` because building or walking thousands of protobuf
message objects costs tens of milliseconds per 1000 ops; encoded attributes and var types are
memoized, since most ops repeat them. The output is byte-identical to ``SerializeToString``
of the generated module (the tests check this), which stays the reference schema and gives
the text format. This is the only module that imports the generated protobuf code; the
decoding half lives in :mod:`.desc_reader`.
"""
from __future__ import annotations

import functools
import struct
from typing import TYPE_CHECKING, Any

from ..ops.types import AttrType, VarType
from . import wire
from .errors import ProgramError
from .wire import ONE_BYTE_VARINTS, FIXED32, FIXED64, LENGTH, VARINT, WireError

if TYPE_CHECKING:
    from .program import Program

PADDLE_VERSION = 2006002      # the Paddle release whose files we write (2.6.2)

TENSOR_KIND_FIELDS = {VarType.LOD_TENSOR: 3, VarType.LOD_TENSOR_ARRAY: 4, VarType.SELECTED_ROWS: 2}
VAR_TYPE_OF_VALUE = {int(t): t for t in VarType}
ATTR_TYPE_OF_VALUE = {int(t): t for t in AttrType}
# AttrType -> (OpDesc.Attr field, value kind, repeated)
ATTR_FIELDS = {
    AttrType.INT: (3, "int", False), AttrType.FLOAT: (4, "float", False),
    AttrType.STRING: (5, "str", False), AttrType.INTS: (6, "int", True),
    AttrType.FLOATS: (7, "float", True), AttrType.STRINGS: (8, "str", True),
    AttrType.BOOLEAN: (10, "bool", False), AttrType.BOOLEANS: (11, "bool", True),
    AttrType.BLOCK: (12, "int", False), AttrType.LONG: (13, "int", False),
    AttrType.BLOCKS: (14, "int", True), AttrType.LONGS: (15, "int", True),
    AttrType.FLOAT64S: (16, "double", True), AttrType.VAR: (17, "str", False),
    AttrType.VARS: (18, "str", True), AttrType.FLOAT64: (19, "double", False),
    AttrType.SCALAR: (20, "scalar", False), AttrType.SCALARS: (21, "scalar", True),
}
_WIRE_OF_KIND = {"int": VARINT, "bool": VARINT, "float": FIXED32, "double": FIXED64,
                 "str": LENGTH, "scalar": LENGTH}
# never memoized: equal keys of different bytes (0.0 == -0.0; a SCALAR's True == 1 == 1.0)
_UNCACHED_TYPES = frozenset({AttrType.FLOAT, AttrType.FLOATS, AttrType.FLOAT64, AttrType.FLOAT64S,
                             AttrType.SCALAR, AttrType.SCALARS})
SCALAR_BOOLEAN, SCALAR_LONG, SCALAR_FLOAT64, SCALAR_COMPLEX128 = 1, 2, 3, 4


class CorruptProgramError(ProgramError):
    """Bytes that are not a valid ProgramDesc."""


def _k(field: int, wire_type: int) -> bytes:
    return wire.key(field, wire_type)


# -- writing -----------------------------------------------------------------------------------
def program_to_bytes(program: "Program") -> bytes:
    parts = [wire.length_delimited(_k(1, LENGTH), _block_bytes(b)) for b in program.blocks]
    if program._version_field is not None:
        parts.append(wire.length_delimited(_k(4, LENGTH),
                                           _k(1, VARINT) + wire.varint(program._version_field)))
    if program._op_versions is not None:
        pairs = b"".join(
            wire.length_delimited(_k(1, LENGTH), wire.string(_k(1, LENGTH), name) +
                                  wire.length_delimited(_k(2, LENGTH),
                                                        _k(1, VARINT) + wire.varint(version)))
            for name, version in program._op_versions)
        parts.append(wire.length_delimited(_k(5, LENGTH), pairs))
    return b"".join(parts)


def _block_bytes(block) -> bytes:
    parts = [_k(1, VARINT) + wire.varint(block.idx), _k(2, VARINT) + wire.varint(block.parent_idx)]
    var_key, op_key = _k(3, LENGTH), _k(4, LENGTH)
    parts += [wire.length_delimited(var_key, _var_bytes(v)) for v in block.vars.values()]
    parts += [wire.length_delimited(op_key, _op_bytes(op)) for op in block.ops]
    if block.forward_block_idx != -1 or block._has_forward_idx:
        parts.append(_k(5, VARINT) + wire.varint(block.forward_block_idx))
    return b"".join(parts)


def _var_bytes(var) -> bytes:
    has_desc = var.has_tensor_desc
    shape = var._shape if has_desc else None
    name = var.name.encode()
    n = len(name)
    parts = [b"\x0a" + (ONE_BYTE_VARINTS[n] if n < 128 else wire.varint(n)) + name,          # field 1
             _vartype_field(var.type, shape and tuple(shape), var.dtype if has_desc else None,
                            var._lod_level)]                                          # field 2
    if var.persistable or var.has_persistable:
        parts.append(b"\x18\x01" if var.persistable else b"\x18\x00")                # field 3
    if var.need_check_feed:
        parts.append(b"\x20\x01")                                                   # field 4
    if var.is_parameter or var.has_is_parameter:
        parts.append(b"\x28\x01" if var.is_parameter else b"\x28\x00")             # field 5
    if var.stop_gradient or var.has_stop_gradient:
        parts.append(b"\x30\x01" if var.stop_gradient else b"\x30\x00")            # field 6
    for attr_name, attr_type, value in var.desc_attrs:                               # field 7
        body = wire.string(_k(1, LENGTH), attr_name) + _k(2, VARINT) + wire.varint(attr_type)
        if attr_type == AttrType.INT:
            body += _k(3, VARINT) + wire.varint(value)
        elif attr_type == AttrType.STRING:
            body += wire.string(_k(4, LENGTH), value)
        else:
            body += b"".join(_k(5, VARINT) + wire.varint(v) for v in value)
        parts.append(wire.length_delimited(_k(7, LENGTH), body))
    return b"".join(parts)


@functools.lru_cache(maxsize=4096)
def _vartype_field(vtype: VarType, shape: tuple | None, dtype: VarType | None,
                   lod_level: int | None) -> bytes:
    """VarDesc field 2 (VarType) for a variable of this kind, shape, dtype and LoD level."""
    body = _k(1, VARINT) + wire.varint(vtype)
    field = TENSOR_KIND_FIELDS.get(vtype)
    if dtype is not None and field is not None:
        tensor = _k(1, VARINT) + wire.varint(dtype) + b"".join(
            _k(2, VARINT) + wire.varint(d) for d in (shape or ()))
        if vtype == VarType.SELECTED_ROWS:
            body += wire.length_delimited(_k(field, LENGTH), tensor)
        else:
            holder = wire.length_delimited(_k(1, LENGTH), tensor)
            if lod_level is not None:
                holder += _k(2, VARINT) + wire.varint(lod_level)
            body += wire.length_delimited(_k(field, LENGTH), holder)
    return wire.length_delimited(_k(2, LENGTH), body)


def _op_bytes(op) -> bytes:
    parts = []
    for slot_key, slots in ((b"\x0a", op.inputs), (b"\x12", op.outputs)):   # fields 1, 2
        for slot, names in slots.items():
            body = [_utf8_field(b"\x0a", slot)]
            for arg in names:
                data = arg.encode()
                n = len(data)
                body.append(b"\x12" + (ONE_BYTE_VARINTS[n] if n < 128 else wire.varint(n)) + data)
            body = b"".join(body)
            n = len(body)
            parts.append(slot_key + (ONE_BYTE_VARINTS[n] if n < 128 else wire.varint(n)) + body)
    parts.append(_utf8_field(b"\x1a", op.type))                               # field 3
    explicit = op.attr_types
    declared = op.opdef.attr_types if op.opdef is not None else {}
    cached = _encode_attr_cached
    for name, value in op.attrs.items():                                       # field 4
        attr_type = explicit.get(name)
        if attr_type is None:
            attr_type = declared.get(name)
            if attr_type is None:
                attr_type = op.attr_type(name)
        if attr_type in _UNCACHED_TYPES:
            parts.append(_encode_attr(name, attr_type, value))
        else:
            parts.append(cached(name, attr_type, tuple(value) if type(value) is list else value))
    if op.is_target:
        parts.append(b"\x28\x01")                                             # field 5
    return b"".join(parts)


@functools.lru_cache(maxsize=4096)
def _utf8_field(field_key: bytes, text: str) -> bytes:
    """A memoized string field (slot names and op types repeat)."""
    return wire.string(field_key, text)


def _encode_attr(name: str, attr_type: AttrType, value: Any) -> bytes:
    """OpDesc field 4 for one attribute (memoized as ``_encode_attr_cached`` for all types
    but ``_UNCACHED_TYPES``)."""
    field, kind, repeated = ATTR_FIELDS[attr_type]
    field_key = _k(field, _WIRE_OF_KIND[kind])
    body = wire.string(_k(1, LENGTH), name) + _k(2, VARINT) + wire.varint(attr_type)
    body += b"".join(_encode_value(field_key, kind, v) for v in (value if repeated else [value]))
    return wire.length_delimited(_k(4, LENGTH), body)


_encode_attr_cached = functools.lru_cache(maxsize=8192)(_encode_attr)


def _encode_value(field_key: bytes, kind: str, value: Any) -> bytes:
    if kind == "int":
        return field_key + wire.varint(int(value))
    if kind == "bool":
        return field_key + (b"\x01" if value else b"\x00")
    if kind == "float":
        return field_key + wire.float32(value)
    if kind == "double":
        return field_key + wire.float64(value)
    if kind == "str":
        return wire.string(field_key, value)
    return wire.length_delimited(field_key, _scalar_bytes(value))


def _scalar_bytes(value: Any) -> bytes:
    if isinstance(value, bool):
        return _k(1, VARINT) + wire.varint(SCALAR_BOOLEAN) + _k(2, VARINT) + wire.varint(int(value))
    if isinstance(value, int):
        return _k(1, VARINT) + wire.varint(SCALAR_LONG) + _k(3, VARINT) + wire.varint(value)
    if isinstance(value, complex):
        pair = (_k(1, FIXED64) + wire.float64(value.real) +
                _k(2, FIXED64) + wire.float64(value.imag))
        return (_k(1, VARINT) + wire.varint(SCALAR_COMPLEX128) +
                wire.length_delimited(_k(5, LENGTH), pair))
    return _k(1, VARINT) + wire.varint(SCALAR_FLOAT64) + _k(4, FIXED64) + wire.float64(value)


# -- text and tensor descriptors (through the generated module) ---------------------------------
def program_to_text_proto(program: "Program") -> str:
    """The protobuf text format of the program (Paddle's ``to_string``), for debugging."""
    from ..proto import framework_pb2 as pb
    desc = pb.ProgramDesc()
    desc.ParseFromString(program_to_bytes(program))
    return str(desc)


def tensor_desc_to_bytes(dtype: VarType, dims) -> bytes:
    """``VarType.TensorDesc`` bytes (used by the tensor file format)."""
    return _k(1, VARINT) + wire.varint(int(dtype)) + b"".join(
        _k(2, VARINT) + wire.varint(int(d)) for d in dims)
