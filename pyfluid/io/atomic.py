"""Atomic file writes: data goes to a temporary file in the destination folder, is fsynced,
then renamed over the destination, so readers see the old file or the new one, never a part.

``write_files`` stages every file before renaming any; with ``lead`` that file is renamed
first and its rename made durable before the others (the save manifest, see
:mod:`.manifest`). A replaced file keeps its permissions; a new one gets those of a file it
is saved with, or the umask's. Temporaries are named ``.<name>.<pid>.<random>.tmp``; a save
removes those of its destinations left by processes that no longer run (killed saves).
"""
from __future__ import annotations

import os
import re
import secrets
import stat
from typing import Mapping

_TEMPORARY = re.compile(r"^\.(?P<base>.+?)\.(?:(?P<pid>\d+)\.)?[0-9a-f]{12}\.tmp$")


def write_file(path: str, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically."""
    write_files({path: data})


def write_files(contents: Mapping[str, bytes], lead: str | None = None) -> None:
    """Write every ``path -> bytes`` of ``contents``: all temporaries first, then the renames
    (``lead`` first, durably)."""
    paths = sorted(contents, key=lambda p: p != lead)
    for path in paths:
        if os.path.isdir(path):
            raise ValueError(f"'{path}' is an existing directory.")
    folders = {os.path.dirname(os.path.abspath(p)) for p in paths}
    for folder in folders:
        remove_stale_temporaries(folder, {os.path.basename(p) for p in paths
                                          if os.path.dirname(os.path.abspath(p)) == folder})
    modes = {path: _mode(path) for path in paths}
    shared_mode = next((m for m in modes.values() if m is not None), None)
    staged: list[tuple[str, str]] = []
    try:
        for path in paths:
            mode = modes[path] if modes[path] is not None else shared_mode
            staged.append((_write_temporary(path, contents[path], mode), path))
        for i, (temporary, path) in enumerate(staged):
            os.replace(temporary, path)
            if i == 0 and lead is not None:
                _fsync_folder(os.path.dirname(os.path.abspath(path)))
    finally:
        for temporary, _ in staged:
            if os.path.exists(temporary):
                os.unlink(temporary)
    for folder in folders:
        _fsync_folder(folder)


def remove_stale_temporaries(folder: str, names: set[str]) -> None:
    """Delete temporaries for ``names`` in ``folder`` whose writer no longer runs."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        match = _TEMPORARY.match(entry)
        if match is None or match["base"] not in names:
            continue
        pid = match["pid"]
        if pid is None or not _running(int(pid)):
            try:
                os.unlink(os.path.join(folder, entry))
            except OSError:
                pass


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True                 # another thread of ours is saving right now
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def _mode(path: str) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def _write_temporary(path: str, data: bytes, mode: int | None) -> str:
    folder, base = os.path.split(os.path.abspath(path))
    temporary = os.path.join(folder, f".{base}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:
                os.fchmod(f.fileno(), mode)           # before any data is written
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
