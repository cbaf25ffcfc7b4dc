"""Reading model files that may be hostile: only regular files (a FIFO would block forever, a
device such as /dev/zero never ends), symlinks resolved and checked, names from a file kept
inside the folder they belong to, and never more bytes than the file had when opened."""
from __future__ import annotations

import errno
import os
import stat

from .errors import ModelFileError

PROGRAM_LIMIT = (1 << 31) - 1       # protobuf cannot parse a bigger ProgramDesc (nor Paddle)
_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK:
          "a block device", stat.S_IFSOCK: "a socket"}


def path_inside(folder: str, name: str) -> str:
    """``folder/name`` for a file name that comes from a model file (a variable name): it must
    stay inside ``folder``, also after symlinks are resolved."""
    parts = name.replace("\\", "/").split("/")
    if not name or "\0" in name or os.path.isabs(name) or ".." in parts:
        raise ModelFileError(os.path.join(folder, name.lstrip("/")),
                             f"variable {name!r} names a file outside the model folder "
                             f"'{folder}'; a variable name must be a path inside it")
    path = os.path.join(folder, name)
    base = os.path.realpath(folder)
    if os.path.commonpath([os.path.realpath(path), base]) != base:
        raise ModelFileError(path, f"variable {name!r} is a symlink to "
                             f"'{os.path.realpath(path)}', outside the model folder '{folder}'")
    return path


def read_file(path: str, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed), at most ``limit`` bytes.
    Missing files raise FileNotFoundError; anything else that is wrong, ModelFileError."""
    try:
        before = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise FileNotFoundError(errno.ENOENT, "No such model file", path) from None
    except OSError as exc:
        raise ModelFileError(path, f"it cannot be read ({exc.strerror})") from None
    _check_kind(path, before.st_mode)
    if limit is not None and before.st_size > limit:
        raise ModelFileError(path, f"it has {before.st_size} bytes, more than the {limit} such a "
                             "file may have")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ModelFileError(path, f"it cannot be opened ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        now = os.fstat(fd)
        _check_kind(path, now.st_mode)
        if (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino):
            raise ModelFileError(path, "it was replaced while being opened; try again")
        data = f.read(now.st_size)
    if len(data) != now.st_size:
        raise ModelFileError(path, f"it shrank while being read ({len(data)} of {now.st_size} "
                             "bytes); try again")
    return data


def _check_kind(path: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise ModelFileError(path, "it is a directory, expected a file")
    kind = _KINDS.get(stat.S_IFMT(mode), "not a plain file")
    raise ModelFileError(path, f"it is not a regular file ({kind}); model, parameter and "
                         "checkpoint files must be regular files")
