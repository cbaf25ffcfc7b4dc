"""Convolution layers: Conv1D, Conv2D, Conv3D and their transposes, sharing Paddle's
``_ConvNd`` construction (filter shapes, default initializers, padding modes)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import functional as F
from ..functional.window_args import convert_to_list, update_padding_nd
from ..initializer import Normal
from .layers import Layer

_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW", "NLC", "NCL")
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Layer):
    """Weight [C_out, C_in/groups, *kernel] (transposed: [C_in, C_out/groups, *kernel]) and
    bias [C_out]. Non-zero padding modes pad the input with ``F.pad`` first."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, transposed: bool,
                 dims: int, stride=1, padding=0, padding_mode: str = "zeros",
                 output_padding=0, dilation=1, groups: int = 1, weight_attr: Any = None,
                 bias_attr: Any = None, data_format: str = "NCHW"):
        super().__init__()
        if weight_attr is False:
            raise AssertionError("weight_attr should not be False in Conv.")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and not isinstance(padding, int):
            raise TypeError("when padding_mode in ['reflect', 'replicate', 'circular'], type of "
                            "padding must be int")
        if data_format not in _FORMATS:
            raise ValueError(f"data_format must be one of {set(_FORMATS)}, but got "
                             f"data_format='{data_format}'")
        channel_last = data_format in ("NHWC", "NDHWC", "NLC")
        self._in_channels, self._out_channels, self._groups = in_channels, out_channels, groups
        self._data_format, self._padding, self._padding_mode = data_format, padding, padding_mode
        self._stride = convert_to_list(stride, dims, "stride")
        self._dilation = convert_to_list(dilation, dims, "dilation")
        self._kernel_size = convert_to_list(kernel_size, dims, "kernel_size")
        self.output_padding = output_padding
        if dims != 1:      # Paddle leaves a 1-D padding to F.conv1d
            self._updated_padding, self._padding_algorithm = update_padding_nd(
                padding, channel_last, dims)
        if transposed:
            filter_shape = [in_channels, out_channels // groups] + self._kernel_size
            initializer = None
        else:
            if in_channels % groups:
                raise ValueError("in_channels must be divisible by groups.")
            if padding_mode != "zeros":
                self._reversed_padding_repeated_twice = [
                    p for p in reversed(convert_to_list(padding, dims, "padding"))
                    for _ in range(2)]
                self._updated_padding, self._padding_algorithm = update_padding_nd(
                    0, channel_last, dims)
            filter_shape = [out_channels, in_channels // groups] + self._kernel_size
            std = (2.0 / (int(np.prod(self._kernel_size)) * in_channels)) ** 0.5
            initializer = Normal(0.0, std)
        self.weight = self.create_parameter(filter_shape, weight_attr,
                                            default_initializer=initializer)
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)

    def _padded(self, x):
        if self._padding_mode == "zeros":
            return x
        return F.pad(x, self._reversed_padding_repeated_twice, mode=self._padding_mode,
                     data_format=self._data_format)

    def _convolve_transposed(self, conv, x, output_size):
        """``conv`` (F.conv2d_transpose / conv3d_transpose) of ``x``; an ``output_size``
        replaces the layer's output_padding."""
        output_padding = self.output_padding if output_size is None else 0
        return conv(x, self.weight, bias=self.bias, padding=self._padding,
                    output_padding=output_padding, stride=self._stride,
                    dilation=self._dilation, groups=self._groups, output_size=output_size,
                    data_format=self._data_format)

    def _convolve(self, conv, x):
        """``conv`` (F.conv2d / F.conv3d) of ``x`` padded by the layer's padding mode."""
        return conv(self._padded(x), self.weight, self.bias, stride=self._stride,
                    padding=self._updated_padding if self._padding_mode != "zeros"
                    else self._padding, dilation=self._dilation, groups=self._groups,
                    data_format=self._data_format)

    def extra_repr(self) -> str:
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"data_format={self._data_format}")


class Conv2D(_ConvNd):
    """2-D convolution (``F.conv2d``: the ``conv2d`` / ``depthwise_conv2d`` op plus bias)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 2, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x):
        return self._convolve(F.conv2d, x)


class Conv3D(_ConvNd):
    """3-D convolution (op ``conv3d`` plus bias) of NCDHW / NDHWC inputs."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 3, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x):
        return self._convolve(F.conv3d, x)


class Conv2DTranspose(_ConvNd):
    """Transposed 2-D convolution (``F.conv2d_transpose``); ``forward(x, output_size)`` may
    pick the output size (then output_padding is not used)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups: int = 1, weight_attr: Any = None,
                 bias_attr: Any = None, data_format: str = "NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, 2, stride=stride,
                         padding=padding, dilation=dilation, output_padding=output_padding,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x, output_size=None):
        return self._convolve_transposed(F.conv2d_transpose, x, output_size)


class Conv1D(_ConvNd):
    """1-D convolution (``F.conv1d``: ``conv2d`` of the unsqueezed NCL / NLC input)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL"):
        super().__init__(in_channels, out_channels, kernel_size, False, 1, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x):
        return self._convolve(F.conv1d, x)


class Conv1DTranspose(_ConvNd):
    """Transposed 1-D convolution (``F.conv1d_transpose``); Paddle passes the layer's
    output_padding even with an ``output_size`` (then they must not both be set)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, dilation=1, weight_attr: Any = None,
                 bias_attr: Any = None, data_format: str = "NCL"):
        super().__init__(in_channels, out_channels, kernel_size, True, 1, stride=stride,
                         padding=padding, dilation=dilation, output_padding=output_padding,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x, output_size=None):
        return F.conv1d_transpose(x, self.weight, bias=self.bias, output_size=output_size,
                                  output_padding=self.output_padding, padding=self._padding,
                                  stride=self._stride, dilation=self._dilation,
                                  groups=self._groups, data_format=self._data_format)


class Conv3DTranspose(_ConvNd):
    """Transposed 3-D convolution (``F.conv3d_transpose``); ``forward(x, output_size)`` may
    pick the output size (then output_padding is not used)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups: int = 1, weight_attr: Any = None,
                 bias_attr: Any = None, data_format: str = "NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, 3, stride=stride,
                         padding=padding, dilation=dilation, output_padding=output_padding,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x, output_size=None):
        return self._convolve_transposed(F.conv3d_transpose, x, output_size)
