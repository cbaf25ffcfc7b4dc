"""Paddle's serialized DenseTensor record (spec section 2.1) and ``.pdiparams`` streams.

One record: uint32 version 0, uint64 LoD level count, per level (uint64 byte size + uint64
offsets), uint32 tensor version 0, int32 TensorDesc size, the TensorDesc protobuf, then the
raw little-endian C-order data. A ``.pdiparams`` file is records concatenated, no header."""
from __future__ import annotations

import struct
from typing import Sequence

import numpy as np

from ..framework.desc_fields import tensor_desc_from_bytes
from ..framework.serialize import tensor_desc_to_bytes
from ..ops.types import VarType, convert_dtype, to_numpy_dtype

_U32, _U64, _I32 = struct.Struct("<I"), struct.Struct("<Q"), struct.Struct("<i")


class TensorStreamError(ValueError):
    """Bytes that are not a serialized tensor record (the message says what is wrong)."""


def tensor_to_bytes(array: np.ndarray, lod: Sequence[Sequence[int]] = (),
                    dtype: VarType | None = None) -> bytes:
    """One record for ``array``; ``dtype`` overrides the element type written (BF16 arrays are
    held as raw uint16 and need ``dtype=VarType.BF16``)."""
    array = np.asarray(array)
    var_type = convert_dtype(array.dtype) if dtype is None else convert_dtype(dtype)
    data = np.ascontiguousarray(array, dtype=to_numpy_dtype(var_type).newbyteorder("<"))
    parts = [_U32.pack(0), _U64.pack(len(lod))]
    for level in lod:
        offsets = np.asarray(level, dtype="<u8").tobytes()
        parts += [_U64.pack(len(offsets)), offsets]
    desc = tensor_desc_to_bytes(var_type, array.shape)
    parts += [_U32.pack(0), _I32.pack(len(desc)), desc, data.tobytes()]
    return b"".join(parts)


class TensorReader:
    """Reads records one after another from a buffer, checking every length against what is
    left, so truncated or corrupt input raises TensorStreamError and never over-allocates."""

    def __init__(self, data: bytes):
        self._data = memoryview(data)
        self.offset = 0

    @property
    def at_end(self) -> bool:
        return self.offset == len(self._data)

    @property
    def remaining(self) -> int:
        return len(self._data) - self.offset

    def read(self) -> tuple[np.ndarray, list[list[int]]]:
        """The next record as (array, lod)."""
        version = self._unpack(_U32, "the tensor version")
        if version != 0:
            raise TensorStreamError(
                "Deserialize to tensor failed, maybe the loaded file is not a paddle model"
                f"(expected file format: 0, but {version} found).")
        lod = [self._lod_level() for _ in range(self._count(self._unpack(_U64, "the LoD size")))]
        inner = self._unpack(_U32, "the inner tensor version")
        if inner != 0:
            raise TensorStreamError(f"tensor version {inner} is not supported, Only version 0 "
                                    "is supported")
        desc_size = self._unpack(_I32, "the tensor desc size")
        if desc_size < 0:
            raise TensorStreamError(f"Deserialize to tensor failed: desc size should >= 0, "
                                    f"got {desc_size}")
        desc = self._take(desc_size, "the tensor desc")
        try:
            var_type, dims = tensor_desc_from_bytes(desc)
            np_dtype = to_numpy_dtype(var_type)
        except Exception as exc:  # protobuf DecodeError, unknown or non-element VarType
            raise TensorStreamError(f"Cannot parse tensor desc ({exc})") from None
        if any(d < 0 for d in dims):
            raise TensorStreamError(f"the tensor desc has negative dims {list(dims)}")
        numel = 1
        for d in dims:
            numel *= d
        nbytes = numel * np_dtype.itemsize
        if nbytes > self.remaining:
            raise TensorStreamError(
                f"the data of a {np_dtype.name}{list(dims)} tensor needs {nbytes} bytes but only "
                f"{self.remaining} are left (truncated file?)")
        raw = self._take(nbytes, "the tensor data")
        array = np.frombuffer(raw, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(dims)
        return array, lod

    def _lod_level(self) -> list[int]:
        size = self._unpack(_U64, "a LoD level size")
        if size % 8:
            raise TensorStreamError(f"a LoD level of {size} bytes is not a whole number of offsets")
        return np.frombuffer(self._take(size, "a LoD level"), dtype="<u8").astype(int).tolist()

    def _count(self, levels: int) -> int:
        if levels * 8 > self.remaining:
            raise TensorStreamError(f"the record claims {levels} LoD levels; the data is too short")
        return levels

    def _take(self, size: int, what: str) -> memoryview:
        if size > self.remaining:
            raise TensorStreamError(f"unexpected end of data while reading {what}: {size} bytes "
                                    f"needed at offset {self.offset}, {self.remaining} left")
        chunk = self._data[self.offset:self.offset + size]
        self.offset += size
        return chunk

    def _unpack(self, fmt: struct.Struct, what: str) -> int:
        return fmt.unpack(self._take(fmt.size, what))[0]


def tensor_from_bytes(data: bytes) -> tuple[np.ndarray, list[list[int]]]:
    """Exactly one record (a per-variable file of ``save_vars``); trailing bytes are an error."""
    reader = TensorReader(data)
    result = reader.read()
    if not reader.at_end:
        raise TensorStreamError(f"{reader.remaining} unexpected bytes after the tensor record")
    return result
