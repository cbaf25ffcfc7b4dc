"""Paddle 3's PIR model files (``NAME.json`` + ``NAME.pdiparams``): read into a legacy
Program, written from one. See docs/pir_format.md for the format and docs/interop.md for
what is supported."""
from __future__ import annotations

import contextlib
import gc

from ...framework.program import Program
from ..errors import ModelFileError
from .decode import parse
from .lower import lower_module
from .schema import PirFormatError

PIR_SUFFIX, LEGACY_SUFFIX = ".json", ".pdmodel"


def is_pir_json(data: bytes) -> bool:
    """PIR files are JSON objects; a ProgramDesc (protobuf) never starts with ``{``."""
    return bytes(data[:64]).lstrip()[:1] == b"{"


def program_from_json(data: bytes, source: str = "<bytes>") -> Program:
    """A PIR JSON program as a legacy Program (feed ops, ops, fetch ops); any problem with
    the file, including an op pyfluid cannot run, raises ModelFileError naming ``source``."""
    try:
        with _collection_paused():
            return lower_module(parse(data)).program
    except PirFormatError as exc:
        raise ModelFileError(source, f"{exc} (a Paddle 3 PIR program, .json)") from None


def program_to_json(program: Program) -> bytes:
    """The PIR JSON of an inference program (feed ops, ops, fetch ops)."""
    from .raise_ import raise_program
    with _collection_paused():
        return raise_program(program)


@contextlib.contextmanager
def _collection_paused():
    """Reading or writing builds one object graph without garbage cycles; the cyclic
    collector's passes over it cost 40% of the time on large programs, so it waits."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


__all__ = ["LEGACY_SUFFIX", "PIR_SUFFIX", "is_pir_json", "program_from_json",
           "program_to_json"]
