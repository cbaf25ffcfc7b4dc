"""``paddle.pir_utils``: run code under Paddle's new IR (PIR). pyfluid builds the legacy
program IR only, as Paddle 2.6 does by default (``paddle.framework.in_pir_mode()`` is False),
so these keep Paddle 2.6's shape without a second IR: ``IrGuard`` gives the block static mode
and fresh default programs (the programs PIR would build into), and ``test_with_pir_api``
runs a test once as written and once more inside an ``IrGuard``, as Paddle does."""
from __future__ import annotations

import functools
from typing import Callable

from .framework import Program, program_guard
from .framework.context import disable_static, enable_static, in_dynamic_mode

__all__ = ["IrGuard", "test_with_pir_api"]


class IrGuard:
    """Static mode and fresh default main/startup programs inside the block."""

    def __enter__(self) -> "IrGuard":
        self._was_dynamic = in_dynamic_mode()
        if self._was_dynamic:
            enable_static()
        self._programs = program_guard(Program(), Program())
        self._programs.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._programs.__exit__(*exc)
        if self._was_dynamic:
            disable_static()


def test_with_pir_api(func: Callable) -> Callable:
    """Run ``func`` as written, then again inside an :class:`IrGuard`."""
    @functools.wraps(func)
    def run_both(*args, **kwargs):
        func(*args, **kwargs)
        with IrGuard():
            func(*args, **kwargs)
    return run_both
