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
from .activation import (CELU, SELU, Hardshrink, Hardtanh, LogSigmoid, Mish, PReLU, Softplus,
                         Softshrink, Softsign, Tanhshrink, ThresholdedReLU)
from .common import (Pad1D, Pad2D, Pad3D, Upsample, UpsamplingBilinear2D, UpsamplingNearest2D,
                     ZeroPad2D)
from .conv import Conv1D, Conv1DTranspose, Conv2DTranspose, Conv3D, Conv3DTranspose
from .norm import GroupNorm, InstanceNorm1D, InstanceNorm2D, InstanceNorm3D
from .pooling import AdaptiveMaxPool2D

__all__ = [
    "AdaptiveAvgPool2D", "AvgPool2D", "BatchNorm1D", "BatchNorm2D", "Conv2D", "CrossEntropyLoss",
    "Dropout", "ELU", "Embedding", "Flatten", "GELU", "Hardswish", "L1Loss", "Layer", "LayerNorm",
    "LeakyReLU", "Linear", "LogSoftmax", "MSELoss", "MaxPool2D", "ReLU", "ReLU6", "Sequential",
    "Sigmoid", "Silu", "Softmax", "Tanh"]
__all__ += ["BiRNN", "GRU", "GRUCell", "LSTM", "LSTMCell", "LayerList", "RNN", "RNNBase",
            "RNNCellBase", "SimpleRNN", "SimpleRNNCell"]
__all__ += [
    "AdaptiveMaxPool2D", "CELU", "Conv1D", "Conv1DTranspose", "Conv2DTranspose", "Conv3D",
    "Conv3DTranspose", "GroupNorm", "Hardshrink",
    "Hardtanh", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LogSigmoid", "Mish",
    "PReLU", "Pad1D", "Pad2D", "Pad3D", "SELU", "Softplus", "Softshrink", "Softsign",
    "Tanhshrink", "ThresholdedReLU", "Upsample", "UpsamplingBilinear2D", "UpsamplingNearest2D",
    "ZeroPad2D"]
