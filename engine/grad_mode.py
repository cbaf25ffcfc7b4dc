"""Whether eager ops record the autograd tape (``no_grad`` / ``set_grad_enabled``)."""
from __future__ import annotations

import contextlib
import functools
from typing import Callable, Iterator


class _GradMode:
    """The one switch of eager autograd: ops record backward nodes only while it is on."""

    enabled = True


def is_grad_enabled() -> bool:
    return _GradMode.enabled


@contextlib.contextmanager
def set_grad_enabled(mode: bool) -> Iterator[None]:
    """Turn tape recording on or off inside the block (Paddle's ``set_grad_enabled``)."""
    old, _GradMode.enabled = _GradMode.enabled, bool(mode)
    try:
        yield
    finally:
        _GradMode.enabled = old


class no_grad:  # noqa: N801  (Paddle's spelling)
    """Run without recording gradients; usable as ``with no_grad():`` or as a decorator."""

    def __enter__(self) -> None:
        self._old, _GradMode.enabled = _GradMode.enabled, False

    def __exit__(self, *exc) -> None:
        _GradMode.enabled = self._old

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with no_grad():
                return fn(*args, **kwargs)
        return wrapper


def enable_grad() -> contextlib.AbstractContextManager:
    return set_grad_enabled(True)
