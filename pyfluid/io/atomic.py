"""Atomic file writes: data goes to a temporary file in the destination folder, is fsynced,
then renamed over the destination, so readers see the old file or the new one, never a mix.
``write_files`` stages several files before renaming any of them: a failure while writing
leaves every previous file intact."""
from __future__ import annotations

import os
import secrets
from typing import Mapping


def write_file(path: str, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically."""
    write_files({path: data})


def write_files(contents: Mapping[str, bytes]) -> None:
    """Write every ``path -> bytes`` of ``contents``: all temporaries first, then the renames."""
    staged: list[tuple[str, str]] = []
    try:
        for path, data in contents.items():
            staged.append((_write_temporary(path, data), path))
        for temporary, path in staged:
            os.replace(temporary, path)
    finally:
        for temporary, _ in staged:
            if os.path.exists(temporary):
                os.unlink(temporary)
    for folder in {os.path.dirname(os.path.abspath(p)) for p in contents}:
        _fsync_folder(folder)


def _write_temporary(path: str, data: bytes) -> str:
    if os.path.isdir(path):
        raise ValueError(f"'{path}' is an existing directory.")
    folder, base = os.path.split(os.path.abspath(path))
    temporary = os.path.join(folder, f".{base}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        os.unlink(temporary)
        raise
    return temporary


def _fsync_folder(folder: str) -> None:
    """Make the renames durable (best effort: not every platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
