"""Transposed convolution (``paddle.nn.functional.conv``): conv1d_transpose, conv2d_transpose
and conv3d_transpose, with Paddle 2.6's op choice, attributes and temporaries. conv1d_transpose
is Paddle's ``conv2d_transpose`` of the input and filter given a unit W dim (``unsqueeze2``),
the bias added with ``elementwise_add``'s axis, then ``squeeze2``; conv3d_transpose's
``data_format`` attribute is Paddle's "NCHW" / "NHWC" (what paddle.nn.functional writes)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.tensor import Tensor
from ...framework.variable import Variable
from ...tensor.manipulation import squeeze, unsqueeze
from .conv import add_bias_along, channels_of, conv_op, padding_1d
from .window_args import convert_to_list, update_padding_nd


def _output_size(output_size: Any, output_padding: Any) -> list[int]:
    """conv2d_transpose's output_size attr: ints, or (eager) Tensors read as ints: a 1-element
    Tensor serves both dims, as in Paddle. Static Variables Paddle 2.6 stores as a VAR/VARS
    attribute, which pyfluid's programs do not hold."""
    if output_size is None:
        return []
    if output_padding != 0:
        raise ValueError("output_padding option is mutually exclusive with output_size")
    parts = output_size if isinstance(output_size, (list, tuple)) else [output_size]
    if any(isinstance(v, Variable) for v in parts):
        raise NotImplementedError(
            "conv2d_transpose: output_size holding a static Variable (Paddle 2.6 stores it as "
            "a VAR/VARS attribute) is not supported; pass Python ints, or run in dynamic mode")
    if isinstance(output_size, Tensor):
        values = output_size.numpy()
        if len(values.shape) != 1 or values.shape[0] not in (1, 2):
            raise ValueError("output_size must contain one or two integers.")
        if values.dtype not in (np.int32, np.int64):
            raise TypeError(f"Data type error. Currently, The data type of IntArrayBase only "
                            f"supports Tensor with int32 and int64, but now received "
                            f"`{values.dtype}`.")
        return [int(v) for v in values] * (3 - values.shape[0])
    if isinstance(output_size, (list, tuple)):
        return convert_to_list([int(v.numpy().reshape(-1)[0]) if isinstance(v, Tensor) else v
                                for v in output_size], 2, "output_size")
    if isinstance(output_size, int):
        return convert_to_list(output_size, 2, "output_size")
    raise ValueError("output_size should be int or Tensor or list, tuple of ints or Tensor")


def _ints_only(output_size: Any, output_padding: Any, n: int) -> list[int]:
    """conv1d_transpose's and conv3d_transpose's output_size: ints only, as in Paddle 2.6."""
    if output_size is None:
        return []
    if output_padding != 0:
        raise ValueError("output_padding option is mutually exclusive with output_size")
    if isinstance(output_size, (list, tuple, int)):
        return convert_to_list(output_size, n, "output_size")
    raise ValueError("output_size should be int, or list, tuple of ints")


def _check_rank(x, weight, rank: int) -> None:
    if len(x.shape) != rank:
        raise ValueError(f"Input x should be {rank}D tensor, but received x with the shape of "
                         f"{list(x.shape)}")
    if len(weight.shape) != rank:
        raise ValueError(f"Input weight should be {rank}D tensor, but received weight with the "
                         f"shape of {list(weight.shape)}")


def _check_groups(x, num_channels: int, groups: int) -> None:
    if num_channels % groups:
        raise ValueError(f"the channel of input must be divisible by groups,received: the "
                         f"channel of input is {num_channels}, the shape of input is "
                         f"{list(x.shape)}, the groups is {groups}")


def _transpose_attrs(stride, padding, algorithm, output_padding, output_size, groups,
                     dilation, data_format, n: int) -> dict:
    return {"output_padding": [] if output_padding == 0 else
            convert_to_list(output_padding, n, "output_padding"),
            "output_size": output_size, "strides": convert_to_list(stride, n, "stride"),
            "paddings": padding, "padding_algorithm": algorithm,
            "dilations": convert_to_list(dilation, n, "dilation"), "groups": groups,
            "data_format": data_format}


def _depthwise(num_channels: int, groups: int, weight) -> bool:
    """Paddle's choice of ``depthwise_conv2d_transpose`` (on CPU, without cuDNN)."""
    return num_channels == groups and num_channels != 1 and weight.shape[1] == 1


def conv1d_transpose(x, weight, bias=None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1,
                     output_size: Any = None, data_format: str = "NCL",
                     name: str | None = None):
    """Transposed 1-D convolution of ``x`` (NCL/NLC) with ``weight`` [C_in, C_out/groups, K]."""
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"Attr(data_format) of conv2d_transpose got wrong value: received "
                         f"{data_format}, but only 'NCL' or 'NLC' are supported.")
    channel_last = data_format == "NLC"
    channel_dim = -1 if channel_last else 1
    if len(x.shape) != 3:
        raise ValueError(f"Input x should be 3D tensor, but received x with the shape of "
                         f"{list(x.shape)}")
    num_channels = channels_of(x, channel_dim, groups, "conv1d_transpose")
    _check_groups(x, num_channels, groups)
    padding, algorithm = padding_1d(padding, channel_last, before=False)
    stride = convert_to_list(stride, 1, "stride") + [1]
    dilation = convert_to_list(dilation, 1, "dilation") + [1]
    sizes = _ints_only(output_size, output_padding, 1)
    sizes = sizes + [1] if sizes else []
    extra = [] if output_padding == 0 else \
        convert_to_list(output_padding, 1, "output_padding") + [0]
    if extra and extra[0] > stride[0]:
        raise ValueError(f"The size of output_padding should not be greater than stride.But "
                         f"got output_padding={extra[0]} and stride={stride[0]}")
    if len(weight.shape) != 3:
        raise ValueError(f"Input weight should be 3D tensor, but received weight with the "
                         f"shape of {list(weight.shape)}")
    op_type = ("depthwise_conv2d_transpose" if _depthwise(num_channels, groups, weight)
               else "conv2d_transpose")
    squeeze_axis = -2 if channel_last else -1
    x = unsqueeze(x, axis=[squeeze_axis])
    weight = unsqueeze(weight, axis=[-1])
    attrs = {"output_padding": extra, "output_size": sizes, "strides": stride,
             "paddings": padding, "padding_algorithm": algorithm, "dilations": dilation,
             "groups": groups, "data_format": "NHWC" if channel_last else "NCHW"}
    out = conv_op(op_type, x, weight, None, attrs, channel_dim, name)
    return squeeze(add_bias_along(out, bias, channel_dim), axis=[squeeze_axis])


def conv2d_transpose(x, weight, bias=None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1,
                     output_size: Any = None, data_format: str = "NCHW",
                     name: str | None = None):
    """Transposed 2-D convolution of ``x`` with ``weight`` [C_in, C_out/groups, kH, kW]
    (``depthwise_conv2d_transpose`` when every channel is its own group with one filter)."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) of conv2d_transpose got wrong value: received "
                         f"{data_format}, but only 'NCHW' or 'NHWC' are supported.")
    channel_last = data_format == "NHWC"
    channel_dim = -1 if channel_last else 1
    _check_rank(x, weight, 4)
    num_channels = channels_of(x, channel_dim, groups, "conv2d_transpose")
    _check_groups(x, num_channels, groups)
    padding, algorithm = update_padding_nd(padding, channel_last)
    attrs = _transpose_attrs(stride, padding, algorithm, output_padding,
                             _output_size(output_size, output_padding), groups, dilation,
                             data_format, 2)
    op_type = ("depthwise_conv2d_transpose" if _depthwise(num_channels, groups, weight)
               else "conv2d_transpose")
    return conv_op(op_type, x, weight, bias, attrs, channel_dim, name)


def conv3d_transpose(x, weight, bias=None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1,
                     output_size: Any = None, data_format: str = "NCDHW",
                     name: str | None = None):
    """Transposed 3-D convolution of ``x`` (NCDHW/NDHWC) with ``weight``
    [C_in, C_out/groups, kD, kH, kW] (op ``conv3d_transpose``, the bias added along the
    channel axis)."""
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    channel_last = data_format == "NDHWC"
    channel_dim = -1 if channel_last else 1
    _check_rank(x, weight, 5)
    num_channels = channels_of(x, channel_dim, groups, "conv3d_transpose")
    if num_channels % groups:
        raise ValueError(f"The number of input channels must be divisible by Attr(groups). "
                         f"Received: number of channels({num_channels}), groups({groups}).")
    padding, algorithm = update_padding_nd(padding, channel_last, 3)
    attrs = _transpose_attrs(stride, padding, algorithm, output_padding,
                             _ints_only(output_size, output_padding, 3), groups, dilation,
                             "NHWC" if channel_last else "NCHW", 3)
    out = conv_op("conv3d_transpose", x, weight, None, attrs, channel_dim, name)
    return add_bias_along(out, bias, channel_dim)
