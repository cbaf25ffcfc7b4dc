"""``paddle.nn.functional``."""
from __future__ import annotations

from .._dispatch import apply_op
from ..tensor_api import relu, sigmoid, tanh  # noqa: F401


def softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    return apply_op("softmax", {"X": x}, {"axis": axis}, name=name)


def log_softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    return apply_op("log_softmax", {"X": x}, {"axis": axis}, name=name)
