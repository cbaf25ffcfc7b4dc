"""Reading and writing IDX files (the format MNIST ships in), gzipped or plain.

An IDX file is a 4-byte magic ``0x00 0x00 <type code> <ndim>``, then ``ndim`` big-endian uint32
dimensions, then the data in row-major order, big-endian.
"""
from __future__ import annotations

import gzip
import os
import struct
import tempfile
import zlib

import numpy as np

_DTYPE_BY_CODE = {0x08: np.dtype("u1"), 0x09: np.dtype("i1"), 0x0B: np.dtype(">i2"),
                  0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
_CODE_BY_KIND = {(dtype.kind, dtype.itemsize): code for code, dtype in _DTYPE_BY_CODE.items()}


class IDXFormatError(ValueError):
    """An IDX file is malformed or truncated."""


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        head = f.read(2)
        f.seek(0)
        if head != b"\x1f\x8b":
            return f.read()
        try:
            return gzip.GzipFile(fileobj=f).read()
        except (EOFError, OSError, zlib.error) as exc:
            raise IDXFormatError(
                f"IDX file {path!r} is a damaged or truncated gzip stream ({exc}); delete it "
                f"and fetch it again") from exc


def parse_idx(data: bytes, source: str = "<bytes>") -> np.ndarray:
    """Decode the bytes of an IDX file into an array in native byte order."""
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise IDXFormatError(
            f"{source!r} is not an IDX file: expected the magic 0x00 0x00 <type> <ndim>, "
            f"received {data[:4].hex() or 'an empty file'}")
    code, ndim = data[2], data[3]
    if code not in _DTYPE_BY_CODE:
        raise IDXFormatError(f"IDX file {source!r} has unknown element type code 0x{code:02x}; "
                             f"expected one of {sorted(hex(c) for c in _DTYPE_BY_CODE)}")
    header_size = 4 + 4 * ndim
    if len(data) < header_size:
        raise IDXFormatError(f"IDX file {source!r} is truncated inside its header: expected "
                             f"{header_size} header bytes for {ndim} dimensions, received {len(data)}")
    shape = struct.unpack(f">{ndim}I", data[4:header_size])
    dtype = _DTYPE_BY_CODE[code]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    received = len(data) - header_size
    if received != expected:
        state = "truncated" if received < expected else "longer than its header declares"
        raise IDXFormatError(
            f"IDX file {source!r} is {state}: shape {tuple(shape)} of {dtype.name} needs "
            f"{expected} data bytes, received {received}; delete it and fetch it again")
    array = np.frombuffer(data, dtype=dtype, offset=header_size).reshape(shape)
    return array.astype(dtype.newbyteorder("="), copy=True)


def read_idx(path: str) -> np.ndarray:
    """Read an IDX file (gzipped or plain) into an array in native byte order."""
    return parse_idx(_read_bytes(path), source=path)


def encode_idx(array: np.ndarray) -> bytes:
    """The bytes of ``array`` as an IDX file."""
    array = np.asarray(array)
    code = _CODE_BY_KIND.get((array.dtype.kind, array.dtype.itemsize))
    if code is None:
        raise TypeError(f"IDX cannot store dtype {array.dtype}; expected one of "
                        f"{sorted(d.name for d in _DTYPE_BY_CODE.values())}")
    header = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + np.ascontiguousarray(array, dtype=_DTYPE_BY_CODE[code]).tobytes()


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_file_atomically(path: str, payload: bytes, compress: bool = False) -> None:
    """Write ``payload`` (gzipped when ``compress``) to ``path`` via a temporary file and a
    rename, so ``path`` is either absent, its old content, or the complete new content."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp_path = tempfile.mkstemp(prefix=".partial-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            if compress:
                with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0,
                                   compresslevel=6) as gz:
                    gz.write(payload)
            else:
                f.write(payload)
        os.chmod(tmp_path, 0o666 & ~_current_umask())
        os.replace(tmp_path, path)
    except BaseException:
        if os.path.exists(tmp_path):
            os.unlink(tmp_path)
        raise
