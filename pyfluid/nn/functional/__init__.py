"""``paddle.nn.functional``."""
from .activation import (elu, gelu, hardswish, leaky_relu, log_softmax, relu, relu6, sigmoid,
                         silu, softmax, tanh)
from .common import dropout, linear
from .conv import conv2d
from .input import embedding, one_hot
from .loss import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,
                   kl_div, l1_loss, mse_loss, nll_loss, smooth_l1_loss, softmax_with_cross_entropy,
                   square_error_cost)
from .norm import batch_norm, layer_norm, normalize
from .pooling import adaptive_avg_pool2d, avg_pool2d, max_pool2d
from .activation import (celu, hardshrink, hardtanh, log_sigmoid, mish, prelu, selu,
                         softplus, softshrink, softsign, tanhshrink, thresholded_relu)
from .common import pad, zeropad2d
from .conv import conv1d, conv3d
from .conv_transpose import conv1d_transpose, conv2d_transpose, conv3d_transpose
from .norm import instance_norm
from .pooling import adaptive_max_pool2d
from .vision import interpolate, upsample

__all__ = [
    "adaptive_avg_pool2d", "avg_pool2d", "batch_norm", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "conv2d", "cross_entropy", "dropout", "elu", "embedding",
    "gelu", "hardswish", "kl_div", "l1_loss", "layer_norm", "leaky_relu", "linear", "log_softmax",
    "max_pool2d", "mse_loss", "nll_loss", "normalize", "one_hot", "relu", "relu6", "sigmoid",
    "silu", "smooth_l1_loss", "softmax", "softmax_with_cross_entropy", "square_error_cost", "tanh",
    "adaptive_max_pool2d", "celu", "conv1d", "conv1d_transpose", "conv2d_transpose", "conv3d",
    "conv3d_transpose", "hardshrink", "hardtanh",
    "instance_norm", "interpolate", "log_sigmoid", "mish", "pad", "prelu", "selu", "softplus",
    "softshrink", "softsign", "tanhshrink", "thresholded_relu", "upsample", "zeropad2d"]
