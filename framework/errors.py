"""The few exception types pyfluid raises for its own reasons.

Each subclasses the builtin that Paddle raises in the same situation, so code written for
Paddle (``except ValueError``) keeps working.
"""
from ..ops.registry import UnknownOpError  # noqa: F401  (re-exported)


class ProgramError(ValueError):
    """A program is malformed: bad slot, attribute, variable or structure."""


class ShapeError(ValueError):
    """Shape or dtype inference failed while an op was appended."""


class ExecutionError(RuntimeError):
    """An op failed while the Executor ran it; the message shows the op and where it was built."""


class FeedError(ValueError):
    """A fed value does not fit the data variable it feeds."""


class FetchError(ValueError):
    """A fetch target that the program cannot produce (unknown name, or no value)."""
