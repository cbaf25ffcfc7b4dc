"""``paddle.dataset``: public datasets as reader creators."""
from . import mnist
from .reader import batch

__all__ = ["batch", "mnist"]
