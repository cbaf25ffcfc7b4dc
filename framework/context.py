"""The default main/startup programs, program_guard, and the static/dynamic mode switch:
the only mutable globals of the framework (besides the executor's global scope)."""
from __future__ import annotations

import contextlib
from typing import Iterator

from .program import Program


class _Defaults:
    def __init__(self) -> None:
        self.main = Program()
        self.startup = Program()
        self.startup._is_start_up_program_ = True
        self.dynamic = True          # Paddle 2.x starts in dynamic mode


_defaults = _Defaults()


def default_main_program() -> Program:
    return _defaults.main


def default_startup_program() -> Program:
    return _defaults.startup


def switch_main_program(program: Program) -> Program:
    old, _defaults.main = _defaults.main, program
    return old


def switch_startup_program(program: Program) -> Program:
    old, _defaults.startup = _defaults.startup, program
    return old


@contextlib.contextmanager
def program_guard(main_program: Program, startup_program: Program | None = None) -> Iterator[None]:
    """Build into ``main_program`` (and ``startup_program``, if given) inside the block."""
    for arg, value in (("main_program", main_program), ("startup_program", startup_program)):
        if value is not None and not isinstance(value, Program):
            raise TypeError(f"The type of '{arg}' in paddle.static.program_guard must be "
                            f"<class 'Program'>, but received {type(value)}.")
    if startup_program is not None:
        startup_program._is_start_up_program_ = True
    old_main = switch_main_program(main_program)
    old_startup = switch_startup_program(startup_program) if startup_program is not None else None
    try:
        yield
    finally:
        switch_main_program(old_main)
        if old_startup is not None:
            switch_startup_program(old_startup)


def reset_default_programs() -> None:
    """Fresh default programs (used by tests)."""
    _defaults.main = Program()
    _defaults.startup = Program()
    _defaults.startup._is_start_up_program_ = True


def enable_static() -> None:
    _defaults.dynamic = False


def disable_static(place=None) -> None:
    _defaults.dynamic = True


def in_dynamic_mode() -> bool:
    return _defaults.dynamic


def in_pir_mode() -> bool:
    """False: pyfluid builds Paddle's legacy program IR (ProgramDesc), never PIR."""
    return False


def use_pir_api() -> bool:
    """False: static-graph APIs build the legacy IR (Paddle 2.6's default)."""
    return False


def in_dynamic_or_pir_mode() -> bool:
    return in_dynamic_mode()
