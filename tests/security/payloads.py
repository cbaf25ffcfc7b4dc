"""Hostile inputs, built opcode by opcode: small pickles whose naive loading takes exponential
time or memory, and small ProgramDescs that describe huge numbers of objects."""
from __future__ import annotations

import struct

from pyfluid.framework import wire
from pyfluid.framework.wire import FIXED32, LENGTH, VARINT
from pyfluid.ops.types import AttrType, VarType

PROTO2 = b"\x80\x02"
RECONSTRUCT = b"cnumpy.core.multiarray\n_reconstruct\n"
NDARRAY = b"cnumpy\nndarray\n"


def _put(i: int) -> bytes:
    return b"r" + struct.pack("<I", i)          # LONG_BINPUT


def _get(i: int) -> bytes:
    return b"j" + struct.pack("<I", i)          # LONG_BINGET


def tuple_dag_key(depth: int = 60) -> bytes:
    """``{t: 0}`` where t_0 = () and t_k = (t_k-1, t_k-1): hashing t walks 2**depth tuples."""
    out = PROTO2 + b"}" + _put(0) + b")" + _put(1) + b"0"
    for k in range(1, depth + 1):
        out += _get(k) + _get(k) + b"\x86" + _put(k + 1) + b"0"
    return out + _get(depth + 1) + b"K\x00s."


def list_dag(depth: int = 30) -> tuple[bytes, int]:
    """Opcodes leaving L_depth on the stack (L_0 = [], L_k = [L_k-1, L_k-1]: its repr holds
    2**depth lists), and the next free memo index."""
    out = b"]" + _put(0) + b"0"
    for k in range(1, depth + 1):
        out += b"]" + _put(k) + b"(" + _get(k - 1) + _get(k - 1) + b"e0"
    return out + _get(depth), depth + 1


def list_dag_as_array_shape(depth: int = 30) -> bytes:
    """``{"w": _reconstruct(ndarray, L_depth, b"b")}``: the refusal names the shape."""
    dag, _ = list_dag(depth)
    return (PROTO2 + b"}" + _put(10_000) + b"X\x01\x00\x00\x00w" + RECONSTRUCT + NDARRAY + dag
            + b"C\x01b" + b"\x87R" + b"s.")


def list_dag_value(depth: int = 30) -> bytes:
    """``{"w": L_depth}``."""
    dag, _ = list_dag(depth)
    return PROTO2 + b"}" + _put(10_000) + b"X\x01\x00\x00\x00w" + dag + b"s."


def self_referencing_list() -> bytes:
    return PROTO2 + b"]" + _put(0) + _get(0) + b"a."


def reconstruct_without_arguments() -> bytes:
    return PROTO2 + RECONSTRUCT + b")R."


def shared_raw_data(copies: int = 2000, nbytes: int = 1 << 20) -> bytes:
    """A dict of ``copies`` float32 arrays all built from one ``nbytes`` string (memo GET):
    naive loading allocates copies * nbytes from a file of about nbytes."""
    raw = b"\x00" * nbytes
    out = PROTO2 + b"}" + _put(0) + b"cnumpy\ndtype\n" + b"X\x02\x00\x00\x00f4\x89\x88\x87R" \
        + _put(1) + b"(K\x03X\x01\x00\x00\x00<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb0" \
        + b"B" + struct.pack("<I", nbytes) + raw + _put(2) + b"0"
    items = b""
    for i in range(copies):
        name = f"w{i}".encode()
        items += (b"X" + struct.pack("<I", len(name)) + name + RECONSTRUCT + NDARRAY
                  + b"K\x00\x85C\x01b\x87R"
                  + b"(K\x01J" + struct.pack("<i", nbytes // 4) + b"\x85" + _get(1) + b"\x89"
                  + _get(2) + b"tb")
    return out + b"(" + items + b"u."


# -- ProgramDescs -----------------------------------------------------------------------------
def _k(field: int, wire_type: int) -> bytes:
    return wire.key(field, wire_type)


def _ld(field: int, payload: bytes) -> bytes:
    return wire.length_delimited(_k(field, LENGTH), payload)


def _var(name: str, shape=(-1, 4)) -> bytes:
    tensor = _k(1, VARINT) + wire.varint(int(VarType.FP32)) + b"".join(
        _k(2, VARINT) + wire.varint(d) for d in shape)
    vartype = _k(1, VARINT) + wire.varint(int(VarType.LOD_TENSOR)) + _ld(3, _ld(1, tensor))
    return _ld(1, name.encode()) + _ld(2, vartype) + _k(3, VARINT) + b"\x00"


def _float_attr(name: str, value: float) -> bytes:
    return _ld(4, _ld(1, name.encode()) + _k(2, VARINT) + wire.varint(int(AttrType.FLOAT))
               + _k(4, FIXED32) + struct.pack("<f", value))


def _scale_op(i: int) -> bytes:
    def slot(name, arg):
        return _ld(1, name.encode()) + _ld(2, arg.encode())
    return (_ld(1, slot("X", f"v{i}")) + _ld(2, slot("Out", f"v{i + 1}")) + _ld(3, b"scale")
            + _float_attr("scale", 1.0 + i * 1e-6) + _float_attr("bias", float(i % 7)))


def _program(block_fields: bytes) -> bytes:
    head = _k(1, VARINT) + b"\x00" + _k(2, VARINT) + wire.varint(-1)
    return _ld(1, head + block_fields)


def chain_of_scale_ops(n: int) -> bytes:
    """A chain of ``n`` scale ops, each with its own output variable and distinct attribute
    values (about 100 bytes per op, like a real program without its call stacks)."""
    return _program(b"".join(_ld(3, _var(f"v{i}")) for i in range(n + 1))
                    + b"".join(_ld(4, _scale_op(i)) for i in range(n)))


def tiny_ops(n: int) -> bytes:
    """``n`` ops of five bytes each (only a type): the most objects per byte of file."""
    return _program(_ld(4, _ld(3, b"r")) * n)


def big_attributes(n_ops: int, ints_per_attr: int) -> bytes:
    """Ops with distinct large INTS attributes (what the attribute decoding cache holds)."""
    ops = []
    for i in range(n_ops):
        values = b"".join(_k(6, VARINT) + wire.varint(1000 + (i + j) % 5000)
                          for j in range(ints_per_attr))
        attr = _ld(4, _ld(1, b"shape") + _k(2, VARINT) + wire.varint(int(AttrType.INTS))
                   + values)
        ops.append(_ld(4, _ld(3, b"fill_constant") + attr))
    return _program(b"".join(ops))
