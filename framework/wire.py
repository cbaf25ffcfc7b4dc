"""Protocol-buffer wire primitives (varints, tags, length-delimited fields) for the fast
ProgramDesc codec in ``serialize.py``.

Encoding follows protobuf's canonical output exactly (fields in the order the caller emits
them, negative int32/int64 as 10-byte two's-complement varints, repeated scalars unpacked), so
bytes match ``SerializeToString`` of the generated module. Decoding accepts packed and
unpacked repeated scalars and raises :class:`WireError` on malformed input.
"""
from __future__ import annotations

import struct

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5

_pack_float, _unpack_float = struct.Struct("<f").pack, struct.Struct("<f").unpack
_pack_double, _unpack_double = struct.Struct("<d").pack, struct.Struct("<d").unpack


class WireError(ValueError):
    """Bytes that do not follow the protobuf wire format."""

    def __init__(self, message: str, pos: int):
        super().__init__(f"{message} at byte {pos}")
        self.pos = pos


# -- encoding ---------------------------------------------------------------------------------
ONE_BYTE_VARINTS = [bytes([n]) for n in range(128)]


def varint(n: int) -> bytes:
    """A varint; negative numbers as 64-bit two's complement (protobuf's int32/int64)."""
    if 0 <= n < 128:
        return ONE_BYTE_VARINTS[n]
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def key(field: int, wire_type: int) -> bytes:
    return varint(field << 3 | wire_type)


def length_delimited(field_key: bytes, payload: bytes) -> bytes:
    n = len(payload)
    return field_key + (ONE_BYTE_VARINTS[n] if n < 128 else varint(n)) + payload


def string(field_key: bytes, text: str) -> bytes:
    payload = text.encode()
    n = len(payload)
    return field_key + (ONE_BYTE_VARINTS[n] if n < 128 else varint(n)) + payload


def float32(value: float) -> bytes:
    return _pack_float(value)


def float64(value: float) -> bytes:
    return _pack_double(value)


# -- decoding ---------------------------------------------------------------------------------
def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """(value, next position); IndexError when the buffer ends inside the varint."""
    b = buf[pos]
    if b < 0x80:
        return b, pos + 1
    result, shift = b & 0x7F, 7
    pos += 1
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError("varint longer than 10 bytes", pos)


def signed(value: int) -> int:
    """A decoded varint as a signed 64-bit integer (int32 and int64 fields)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def fields(buf: bytes, pos: int, end: int) -> list[tuple[int, int, object]]:
    """The fields of the message in ``buf[pos:end]`` as (number, wire type, value): an int for
    varints, the payload bytes for the other wire types."""
    out = []
    append = out.append
    try:
        while pos < end:
            k = buf[pos]
            pos += 1
            if k >= 0x80:
                k, pos = read_varint(buf, pos - 1)
            if k < 8:
                raise WireError("field number 0", pos)
            wire_type = k & 7
            if wire_type == LENGTH:
                n = buf[pos]
                pos += 1
                if n >= 0x80:
                    n, pos = read_varint(buf, pos - 1)
                stop = pos + n
                if stop > end:
                    raise WireError(f"field {k >> 3} claims {n} bytes but only {end - pos} "
                                    "remain", pos)
                append((k >> 3, LENGTH, buf[pos:stop]))
                pos = stop
            elif wire_type == VARINT:
                v = buf[pos]
                pos += 1
                if v >= 0x80:
                    v, pos = read_varint(buf, pos - 1)
                append((k >> 3, VARINT, v))
            elif wire_type == FIXED32 or wire_type == FIXED64:
                stop = pos + (4 if wire_type == FIXED32 else 8)
                if stop > end:
                    raise WireError(f"field {k >> 3} is cut off", pos)
                append((k >> 3, wire_type, buf[pos:stop]))
                pos = stop
            else:
                raise WireError(f"field {k >> 3} has unsupported wire type {wire_type}", pos)
    except IndexError:
        raise WireError("the data ends in the middle of a field", end) from None
    if pos != end:
        raise WireError("a field runs past the end of its message", end)
    return out


def field_slices(buf: bytes, pos: int, end: int):
    """Like :func:`fields`, lazily, with a ``slice`` of ``buf`` instead of the payload of
    length-delimited fields: big messages are walked without copying their parts."""
    try:
        while pos < end:
            k = buf[pos]
            pos += 1
            if k >= 0x80:
                k, pos = read_varint(buf, pos - 1)
            if k < 8:
                raise WireError("field number 0", pos)
            wire_type = k & 7
            if wire_type == LENGTH:
                n, pos = read_varint(buf, pos)
                stop = pos + n
                if stop > end:
                    raise WireError(f"field {k >> 3} claims {n} bytes but only {end - pos} "
                                    "remain", pos)
                yield k >> 3, LENGTH, slice(pos, stop)
                pos = stop
            elif wire_type == VARINT:
                v, pos = read_varint(buf, pos)
                yield k >> 3, VARINT, v
            elif wire_type == FIXED32 or wire_type == FIXED64:
                stop = pos + (4 if wire_type == FIXED32 else 8)
                if stop > end:
                    raise WireError(f"field {k >> 3} is cut off", pos)
                yield k >> 3, wire_type, slice(pos, stop)
                pos = stop
            else:
                raise WireError(f"field {k >> 3} has unsupported wire type {wire_type}", pos)
    except IndexError:
        raise WireError("the data ends in the middle of a field", end) from None
    if pos != end:
        raise WireError("a field runs past the end of its message", end)


def scalars(wire_type: int, value, kind: str) -> list:
    """One or more repeated scalar values of a field (unpacked or packed); ``kind`` is 'varint',
    'float' or 'double'."""
    if wire_type != LENGTH:
        if kind == "float":
            return [_unpack_float(value)[0]]
        if kind == "double":
            return [_unpack_double(value)[0]]
        return [value]
    if kind == "float":
        return list(struct.unpack(f"<{len(value) // 4}f", value))
    if kind == "double":
        return list(struct.unpack(f"<{len(value) // 8}d", value))
    out, pos = [], 0
    while pos < len(value):
        v, pos = read_varint(value, pos)
        out.append(v)
    return out


def unpack_float(data: bytes) -> float:
    return _unpack_float(data)[0]


def unpack_double(data: bytes) -> float:
    return _unpack_double(data)[0]
