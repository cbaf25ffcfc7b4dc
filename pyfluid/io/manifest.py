"""Saves that are all or nothing across files: ``<prefix>.pdsha256``, the save manifest.

A save of several files (``save_inference_model``: ``.pdmodel`` + ``.pdiparams``;
``paddle.static.save``: ``.pdparams`` + ``.pdopt`` + ``.pdmodel``) cannot rename them all at
once, and a crash between two renames would leave files of two saves that load without
error. So the save also writes ``<prefix>.pdsha256``, the SHA-256 of each file it wrote (in
``sha256sum`` format: ``sha256sum -c model.pdsha256`` checks it), and renames it *first*:

* killed before that rename: every file (and the old manifest) is the old save's;
* killed after it: each file is the new save's or differs from the manifest, and loading
  such a file is refused with an error that says so;
* done: every file is the new save's.

Loading checks every file it reads against the manifest beside it, if there is one and it
lists the file. Paddle's own file formats are untouched (Paddle ignores the extra file); files
without a manifest (saved by Paddle) load as before. A single-file save (``paddle.save``)
first drops its file's entry, since one rename is atomic already.
"""
from __future__ import annotations

import hashlib
import os
import re

from . import atomic
from .errors import ModelFileError
from .safe_read import read_file

SUFFIXES = (".pdmodel", ".json", ".pdiparams", ".pdparams", ".pdopt")   # .json: Paddle 3 PIR
SUFFIX = ".pdsha256"
_LIMIT = 64 << 10
_LINE = re.compile(r"^([0-9a-f]{64})  ([^/\n]+)$")


def manifest_path(path: str) -> str | None:
    """``<prefix>.pdsha256`` for ``<prefix>.pdmodel`` and the other save files, else None."""
    for suffix in SUFFIXES:
        if path.endswith(suffix) and len(path) > len(suffix):
            return path[:-len(suffix)] + SUFFIX
    return None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save_files(contents: dict[str, bytes]) -> None:
    """Write the files of one save (paths sharing one prefix) and the manifest that ties them
    together, manifest first."""
    manifests = {manifest_path(p) for p in contents}
    if len(manifests) != 1 or None in manifests:
        atomic.write_files(contents)
        return
    manifest = manifests.pop()
    entries = _entries_for_rewrite(manifest)
    entries.update({os.path.basename(p): digest(data) for p, data in contents.items()})
    atomic.write_files({manifest: _text(entries), **contents}, lead=manifest)


def save_file(path: str, data: bytes) -> None:
    """Write one file atomically, first removing its entry from a manifest that lists it."""
    manifest = manifest_path(path)
    if manifest is not None and os.path.exists(manifest):
        entries = _entries_for_rewrite(manifest)
        if entries.pop(os.path.basename(path), None) is not None:
            if entries:
                atomic.write_file(manifest, _text(entries))
            else:
                os.unlink(manifest)
    atomic.write_file(path, data)


def check(path: str, data: bytes) -> None:
    """Refuse ``data`` read from ``path`` when the manifest beside it records other content."""
    expected = _recorded(path)
    if expected is None:
        return
    got = digest(data)
    if got != expected:
        raise ModelFileError(path, _mixed(path, f"its SHA-256 is {got[:16]}..., but "
                                              f"{os.path.basename(manifest_path(path))} records "
                                              f"{expected[:16]}... for it"))


def check_present(path: str) -> None:
    """Refuse a save whose manifest lists ``path`` while the file is missing."""
    if not os.path.exists(path) and _recorded(path) is not None:
        raise ModelFileError(path, _mixed(path, "it is missing, but "
                                              f"{os.path.basename(manifest_path(path))} lists it"))


def _recorded(path: str) -> str | None:
    manifest = manifest_path(path)
    if manifest is None or not os.path.lexists(manifest):
        return None
    entries = _parse(read_file(manifest, _LIMIT), manifest)
    return entries.get(os.path.basename(path))


def _mixed(path: str, what: str) -> str:
    manifest = os.path.basename(manifest_path(path))
    return (f"{what}: the files of this save come from different saves. A save was interrupted "
            f"(save again), or files were replaced since pyfluid saved them (delete "
            f"'{manifest}' to load the files as they are).")


def _parse(data: bytes, manifest: str) -> dict[str, str]:
    entries = {}
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        lines = None
    for line in lines if lines is not None else ["<not UTF-8>"]:
        match = _LINE.match(line)
        if match is None:
            raise ModelFileError(manifest, f"line {line[:80]!r} is not '<sha256>  <file name>': "
                                 "the save manifest is corrupt; delete it to load the files "
                                 "as they are")
        entries[match[2]] = match[1]
    return entries


def _entries_for_rewrite(manifest: str) -> dict[str, str]:
    """The entries of an existing manifest about to be rewritten (a corrupt one is replaced)."""
    try:
        return _parse(read_file(manifest, _LIMIT), manifest)
    except (OSError, ModelFileError):
        return {}


def _text(entries: dict[str, str]) -> bytes:
    return "".join(f"{sha}  {name}\n" for name, sha in sorted(entries.items())).encode()
