"""``paddle.nn.layer``: the Layer base class and the layers, by family."""
from .activation import ELU, GELU, Hardswish, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, Silu, \
    Softmax, Tanh
from .common import Dropout, Embedding, Flatten, Linear
from .container import Sequential
from .conv import Conv2D
from .layers import Layer
from .loss import CrossEntropyLoss, L1Loss, MSELoss
from .norm import BatchNorm1D, BatchNorm2D, LayerNorm
from .pooling import AdaptiveAvgPool2D, AvgPool2D, MaxPool2D
from .container import LayerList
from .rnn import GRU, LSTM, RNN, BiRNN, RNNBase, SimpleRNN
from .rnn_cells import GRUCell, LSTMCell, RNNCellBase, SimpleRNNCell

__all__ = [
    "AdaptiveAvgPool2D", "AvgPool2D", "BatchNorm1D", "BatchNorm2D", "Conv2D", "CrossEntropyLoss",
    "Dropout", "ELU", "Embedding", "Flatten", "GELU", "Hardswish", "L1Loss", "Layer", "LayerNorm",
    "LeakyReLU", "Linear", "LogSoftmax", "MSELoss", "MaxPool2D", "ReLU", "ReLU6", "Sequential",
    "Sigmoid", "Silu", "Softmax", "Tanh"]
__all__ += ["BiRNN", "GRU", "GRUCell", "LSTM", "LSTMCell", "LayerList", "RNN", "RNNBase",
            "RNNCellBase", "SimpleRNN", "SimpleRNNCell"]
