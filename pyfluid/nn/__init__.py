"""``paddle.nn``."""
from . import functional  # noqa: F401
from . import initializer  # noqa: F401,E402
from . import loss  # noqa: F401,E402
from .loss import CrossEntropyLoss  # noqa: F401,E402
from .layer import Conv2D, Layer, Linear, ReLU, Sequential  # noqa: F401,E402
from .layers_extra import (BatchNorm1D, BatchNorm2D, Dropout, Embedding, Flatten,  # noqa: F401,E402
                           L1Loss, LayerNorm, MSELoss, ReLU6, Sigmoid, Silu, Softmax, Tanh)
from .pool_layers import AdaptiveAvgPool2D, AvgPool2D, MaxPool2D  # noqa: F401,E402
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401,E402
from .activation_layers import ELU, GELU, Hardswish, LeakyReLU, LogSoftmax  # noqa: F401,E402
