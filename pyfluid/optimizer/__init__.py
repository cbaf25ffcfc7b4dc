"""``paddle.optimizer``: SGD, Momentum, Adam, AdamW and the ``lr`` schedulers."""
from . import lr  # noqa: F401
from .adam import Adam, AdamW
from .momentum import Momentum
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Momentum", "Optimizer", "SGD", "lr"]
