"""``paddle.linalg``."""
from .tensor.linalg import matmul, norm

__all__ = ["matmul", "norm"]
