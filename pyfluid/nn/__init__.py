"""``paddle.nn``."""
from . import functional, initializer
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from .layer import *  # noqa: F401,F403  (every layer class)
from .layer import __all__ as _layers
from .layer import loss  # noqa: F401  (paddle.nn.loss is paddle.nn.layer.loss)

__all__ = ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue", "functional",
           "initializer"] + _layers
