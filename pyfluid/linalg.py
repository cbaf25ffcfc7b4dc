"""``paddle.linalg``: the norms pyfluid supports."""
from .tensor_api import matmul  # noqa: F401
from .tensor_more import norm  # noqa: F401

__all__ = ["matmul", "norm"]
