"""Decoding the small messages of a ProgramDesc (VarDesc fields, VarType, TensorDesc,
OpDesc.Attr, Scalar) from protobuf wire bytes; :mod:`.desc_reader` assembles them into a
Program. Malformed input raises ValueError / WireError / KeyError."""
from __future__ import annotations

from typing import Any

from ..ops.types import AttrType, VarType
from . import wire
from .serialize import (ATTR_FIELDS, ATTR_TYPE_OF_VALUE, SCALAR_BOOLEAN, SCALAR_COMPLEX128,
                        SCALAR_FLOAT64, SCALAR_LONG, VAR_TYPE_OF_VALUE)
from .wire import VARINT

MAX_RANK = 64                   # NumPy's limit (Paddle's is 9)


def text(value) -> str:
    """A string field's value; a field of the wrong wire type is corrupt input."""
    if type(value) is not bytes:
        raise ValueError(f"a string field holds the non-string value {value!r}")
    return value.decode()


def expect(wire_type: int, expected: int, number: int, message: str) -> None:
    if wire_type != expected:
        raise ValueError(f"{message} field {number} has wire type {wire_type}, "
                         f"expected {expected}")


def read_op_versions(data: bytes) -> list:
    pairs = []
    for _, _, pair in wire.fields(data, 0, len(data)):
        name, version = None, None
        for n, _, v in wire.fields(pair, 0, len(pair)):
            if n == 1:
                name = text(v)
            elif n == 2:
                version = next((wire.signed(x) for k, _, x in wire.fields(v, 0, len(v)) if k == 1),
                               None)
        if name is None or version is None:
            raise ValueError("an OpVersionMap entry lacks op_name or op_version")
        pairs.append((name, version))
    return pairs


def read_var_fields(data: bytes) -> tuple:
    """(name or None, (kind, shape, dtype, lod_level), {field: flag}, attrs) of VarDesc bytes."""
    name, vtype, flags, attrs = None, None, {}, []
    for number, wire_type, value in wire.fields(data, 0, len(data)):
        if number == 1:
            name = text(value)
        elif number == 2:
            vtype = read_vartype(value)
        elif 3 <= number <= 6:
            expect(wire_type, VARINT, number, "VarDesc")
            flags[number] = bool(value)
        elif number == 7:
            attrs.append(read_var_attr(value))
    return name, vtype, flags, tuple(attrs)


def read_vartype(data: bytes) -> tuple:
    """VarType bytes -> (kind, shape, dtype, lod_level); shape/dtype None without a desc."""
    kind, shape, dtype, lod_level = None, None, None, None
    for number, wire_type, value in wire.fields(data, 0, len(data)):
        if number == 1:
            kind = VAR_TYPE_OF_VALUE[value]
        elif number in (3, 4):
            for n, w, v in wire.fields(value, 0, len(value)):
                if n == 1:
                    shape, dtype = read_tensor_desc(v)
                elif n == 2:
                    lod_level = wire.signed(v)
            if dtype is None:
                raise ValueError("a LoDTensorDesc lacks its required tensor")
        elif number == 2:
            shape, dtype = read_tensor_desc(value)
    if kind is None:
        raise ValueError("a VarType lacks its required type")
    return kind, shape, dtype, lod_level


def read_tensor_desc(data: bytes) -> tuple:
    """``VarType.TensorDesc`` bytes -> (dims, data type)."""
    dtype, dims = None, []
    for number, wire_type, value in wire.fields(data, 0, len(data)):
        if number == 1:
            dtype = VAR_TYPE_OF_VALUE[value]
        elif number == 2:
            dims += [wire.signed(d) for d in wire.scalars(wire_type, value, "varint")]
    if dtype is None:
        raise ValueError("a TensorDesc lacks its required data_type")
    if len(dims) > MAX_RANK:
        raise ValueError(f"a TensorDesc has rank {len(dims)}; at most {MAX_RANK} is supported")
    return tuple(dims), dtype


def read_var_attr(data: bytes) -> tuple:
    name, attr_type, value, ints = None, None, None, []
    for number, wire_type, v in wire.fields(data, 0, len(data)):
        if number == 1:
            name = text(v)
        elif number == 2:
            attr_type = ATTR_TYPE_OF_VALUE[v]
        elif number == 3:
            value = wire.signed(v)
        elif number == 4:
            value = text(v)
        elif number == 5:
            ints += [wire.signed(x) for x in wire.scalars(wire_type, v, "varint")]
    if name is None or attr_type is None:
        raise ValueError("a VarDesc.Attr lacks its name or type")
    return name, attr_type, tuple(ints) if attr_type == AttrType.INTS else value


def read_attr(data: bytes) -> tuple:
    """OpDesc.Attr bytes -> (name, AttrType, value); lists come back as tuples."""
    name, attr_type, by_field = None, None, {}
    for number, wire_type, value in wire.fields(data, 0, len(data)):
        if number == 1:
            name = text(value)
        elif number == 2:
            attr_type = ATTR_TYPE_OF_VALUE[value]
        else:
            by_field.setdefault(number, []).append((wire_type, value))
    if name is None or attr_type is None:
        raise ValueError("an OpDesc.Attr lacks its required name or type")
    field, kind, repeated = ATTR_FIELDS[attr_type]
    values = [_decode_value(kind, w, v) for w, v in by_field.get(field, [])]
    if repeated:
        flat = [x for group in values for x in group]
        return name, attr_type, tuple(flat)
    if not values:
        return name, attr_type, {"int": 0, "bool": False, "float": 0.0, "double": 0.0,
                                 "str": "", "scalar": 0}[kind]
    return name, attr_type, values[-1][-1]


def _decode_value(kind: str, wire_type: int, value) -> list:
    if kind == "str":
        return [text(value)]
    if kind == "scalar":
        return [_read_scalar(value)]
    if kind in ("float", "double"):
        return wire.scalars(wire_type, value, kind)
    ints = [wire.signed(v) for v in wire.scalars(wire_type, value, "varint")]
    return [bool(v) for v in ints] if kind == "bool" else ints


def _read_scalar(data: bytes) -> Any:
    found = {number: (wire_type, value) for number, wire_type, value in
             wire.fields(data, 0, len(data))}
    kind = found.get(1, (None, None))[1]
    if kind == SCALAR_BOOLEAN:
        return bool(found.get(2, (0, 0))[1])
    if kind == SCALAR_LONG:
        return wire.signed(found.get(3, (0, 0))[1])
    if kind == SCALAR_COMPLEX128:
        parts = {n: wire.unpack_double(v) for n, _, v in wire.fields(found[5][1], 0,
                                                                      len(found[5][1]))}
        return complex(parts.get(1, 0.0), parts.get(2, 0.0))
    if kind == SCALAR_FLOAT64:
        return wire.unpack_double(found[4][1]) if 4 in found else 0.0
    raise ValueError(f"a Scalar has unknown type {kind}")


def tensor_desc_from_bytes(data: bytes) -> tuple[VarType, tuple]:
    """``VarType.TensorDesc`` bytes -> (dtype, dims); raises ValueError on malformed bytes."""
    shape, dtype = read_tensor_desc(bytes(data))
    return dtype, shape
