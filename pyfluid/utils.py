"""``paddle.utils``: ``unique_name`` (generate, guard, switch) for layer and variable names."""
from .framework import unique_name  # noqa: F401

__all__ = ["unique_name"]
