"""Convolution layers."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import functional as F
from ..initializer import Normal
from .layers import Layer


class Conv2D(Layer):
    """2-D convolution (``F.conv2d``: the ``conv2d`` / ``depthwise_conv2d`` op plus bias)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW"):
        super().__init__()
        if padding_mode != "zeros":
            raise NotImplementedError(f"Conv2D padding_mode '{padding_mode}': only 'zeros' is "
                                      "supported")
        if in_channels % groups:
            raise ValueError(f"in_channels ({in_channels}) must be divisible by groups ({groups})")
        kernel = [int(k) for k in kernel_size] if isinstance(kernel_size, (list, tuple)) \
            else [int(kernel_size)] * 2
        self._options = {"stride": stride, "padding": padding, "dilation": dilation,
                         "groups": groups, "data_format": data_format}
        std = (2.0 / (int(np.prod(kernel)) * in_channels)) ** 0.5
        self.weight = self.create_parameter([out_channels, in_channels // groups] + kernel,
                                            weight_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, **self._options)
