"""``paddle.optimizer``: SGD, Momentum, Adagrad, Adam, AdamW and the ``lr`` schedulers."""
from . import lr  # noqa: F401
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .momentum import Momentum
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Momentum", "Optimizer", "SGD", "lr"]
