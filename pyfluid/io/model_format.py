"""Which file holds a model and in which format: ``.pdmodel`` (Paddle 2.x ProgramDesc) or
``.json`` (Paddle 3's PIR), for saving (``format=`` / ``FLAGS_enable_pir_api``) and loading
(what is on disk)."""
from __future__ import annotations

import errno
import os

from .pir import LEGACY_SUFFIX, PIR_SUFFIX


def save_format(fmt: str | None) -> str:
    """``"pdmodel"`` (Paddle 2.x ProgramDesc, the default) or ``"pir"`` (Paddle 3 JSON); with
    no ``format`` given, ``FLAGS_enable_pir_api`` set to 1/true in the environment picks PIR."""
    if fmt is None:
        flag = os.environ.get("FLAGS_enable_pir_api", "").strip().lower()
        return "pir" if flag in ("1", "true", "on") else "pdmodel"
    if fmt not in ("pdmodel", "pir"):
        raise ValueError(f"format must be 'pdmodel' (Paddle 2.x .pdmodel) or 'pir' (Paddle 3 "
                         f".json), got {fmt!r}")
    return fmt


def model_file(path_prefix: str) -> str:
    """``<prefix>.pdmodel`` (Paddle 2.x) or ``<prefix>.json`` (Paddle 3's PIR), whichever
    exists; when both do, the newer (a model saved again in the other format), ties going
    to ``.pdmodel``. The format is then told by the file's content."""
    legacy, pir = path_prefix + LEGACY_SUFFIX, path_prefix + PIR_SUFFIX
    if not os.path.exists(pir):
        if not os.path.exists(legacy):
            raise FileNotFoundError(errno.ENOENT, f"No such model file (neither {LEGACY_SUFFIX} "
                                    f"nor {PIR_SUFFIX} exists)", legacy)
        return legacy
    if os.path.exists(legacy) and os.path.getmtime(legacy) >= os.path.getmtime(pir):
        return legacy
    return pir


def old_style_path(folder: str, filename: str | None, default: str, *suffixes: str) -> str:
    """``folder/filename`` with the first suffix that exists (Paddle 3 saves ``__model__``
    as ``__model__.json``)."""
    if filename is None:
        if not default or os.path.exists(os.path.join(folder, default)):
            return os.path.join(folder, default)
        filename = default
    for suffix in suffixes:
        path = os.path.join(folder, filename + suffix)
        if os.path.exists(path):
            return path
    return os.path.join(folder, filename)
