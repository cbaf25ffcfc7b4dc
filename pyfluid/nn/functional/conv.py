"""Convolution (``paddle.nn.functional.conv``): conv2d, conv3d and conv2d_transpose, with
Paddle 2.6's op choice (depthwise variants), attributes, and static-mode temporaries: one
``LayerHelper(op_type)`` holds the op's output and, with a bias, the sum; the bias is reshaped
to broadcast along the channel axis (``reshape2``) unless the layout is channel-last."""
from __future__ import annotations

from typing import Any

from ..._dispatch import TENSOR_TYPES, apply_op, is_static
from ...framework.layer_helper import LayerHelper
from ...tensor.manipulation import reshape
from .window_args import _check_4d, _check_data_format, convert_to_list, update_padding_nd


def _conv_op(op_type: str, x, weight, bias, attrs: dict, channel_dim: int,
             name: str | None):
    """Append (or run) ``op_type`` and add the bias along ``channel_dim`` as Paddle does."""
    inputs = {"Input": x, "Filter": weight}
    if not is_static(inputs):
        out = apply_op(op_type, inputs, attrs)
        if bias is None:
            return out
        shape = [1] * len(x.shape)
        shape[channel_dim] = -1
        return apply_op("elementwise_add", {"X": out, "Y": reshape(bias, shape)}, {"axis": -1})
    helper = LayerHelper(op_type, name=name)
    pre_bias = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type=op_type, inputs={"Input": [x], "Filter": [weight]},
                     outputs={"Output": [pre_bias]}, attrs=attrs)
    if bias is None:
        return pre_bias
    out = helper.create_variable_for_type_inference(x.dtype)
    if channel_dim != -1 and len(pre_bias.shape) != len(bias.shape):
        trailing = len(pre_bias.shape) - len(bias.shape) - channel_dim
        bias = reshape(bias, [1] * channel_dim + list(bias.shape) + [1] * trailing)
    helper.append_op(type="elementwise_add", inputs={"X": [pre_bias], "Y": [bias]},
                     outputs={"Out": [out]}, attrs={"axis": -1})
    return out


def _channels(x, channel_dim: int, groups: int, api: str) -> int:
    channels = x.shape[channel_dim]
    if channels < 0:
        raise ValueError(f"The channel dimension of the input({list(x.shape)}) should be "
                         f"defined. Received: {channels}.")
    if groups <= 0:
        raise ValueError(f"The groups of {api} should be greater than 0. Received groups: "
                         f"{groups}")
    return channels


# -- conv2d / conv3d -------------------------------------------------------------------------
def conv2d(x, weight, bias=None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1, data_format: str = "NCHW", name: str | None = None):
    """2-D convolution of ``x`` (NCHW/NHWC) with ``weight`` [C_out, C_in/groups, kH, kW];
    ``depthwise_conv2d`` when every input channel is its own group, as Paddle chooses."""
    _check_4d(x, "conv2d")
    channel_last = _check_data_format(data_format)
    channel_dim = -1 if channel_last else 1
    num_channels, num_filters = _channels(x, channel_dim, groups, "conv2d"), weight.shape[0]
    if num_channels % groups:
        raise ValueError(f"The channel of input must be divisible by groups, received: the "
                         f"channel of input is {num_channels}, the shape of input is "
                         f"{list(x.shape)}, the groups is {groups}")
    padding, algorithm = update_padding_nd(padding, channel_last)
    op_type = ("depthwise_conv2d" if num_channels == groups and num_channels != 1
               and num_filters % num_channels == 0 else "conv2d")
    attrs = {"strides": convert_to_list(stride, 2, "stride"), "paddings": padding,
             "dilations": convert_to_list(dilation, 2, "dilation"), "groups": groups,
             "padding_algorithm": algorithm, "data_format": data_format}
    return _conv_op(op_type, x, weight, bias, attrs, channel_dim, name)


def conv3d(x, weight, bias=None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1, data_format: str = "NCDHW", name: str | None = None):
    """3-D convolution of ``x`` (NCDHW/NDHWC) with ``weight`` [C_out, C_in/groups, kD, kH, kW]."""
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    channel_last = data_format == "NDHWC"
    channel_dim = -1 if channel_last else 1
    if len(x.shape) != 5:
        raise ValueError(f"Input x should be 5D tensor, but received x with the shape of "
                         f"{list(x.shape)}")
    num_channels, num_filters = _channels(x, channel_dim, groups, "conv3d"), weight.shape[0]
    if num_channels % groups:
        raise ValueError(f"The number of input channels must be divisible by Attr(groups). "
                         f"Received: number of channels({num_channels}), groups({groups}).")
    if num_filters % groups:
        raise ValueError(f"The number of filters must be divisible by Attr(groups). Received: "
                         f"number of filters({num_filters}), groups({groups}).")
    padding, algorithm = update_padding_nd(padding, channel_last, 3)
    attrs = {"strides": convert_to_list(stride, 3, "stride"), "paddings": padding,
             "dilations": convert_to_list(dilation, 3, "dilation"), "groups": groups,
             "padding_algorithm": algorithm, "data_format": data_format}
    return _conv_op("conv3d", x, weight, bias, attrs, channel_dim, name)


# -- conv2d_transpose ------------------------------------------------------------------------
def _output_size(output_size: Any, output_padding: Any) -> list[int]:
    if output_size is None:
        return []
    if output_padding != 0:
        raise ValueError("output_padding option is mutually exclusive with output_size")
    if isinstance(output_size, TENSOR_TYPES) or (
            isinstance(output_size, (list, tuple))
            and any(isinstance(v, TENSOR_TYPES) for v in output_size)):
        raise NotImplementedError("conv2d_transpose: output_size given as a Tensor is not "
                                  "supported; pass Python ints")
    if isinstance(output_size, (list, tuple, int)):
        return convert_to_list(output_size, 2, "output_size")
    raise ValueError("output_size should be int or Tensor or list, tuple of ints or Tensor")


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
    if len(x.shape) != 4:
        raise ValueError(f"Input x should be 4D tensor, but received x with the shape of "
                         f"{list(x.shape)}")
    if len(weight.shape) != 4:
        raise ValueError(f"Input weight should be 4D tensor, but received weight with the "
                         f"shape of {list(weight.shape)}")
    num_channels = _channels(x, channel_dim, groups, "conv2d_transpose")
    if num_channels % groups:
        raise ValueError(f"the channel of input must be divisible by groups,received: the "
                         f"channel of input is {num_channels}, the shape of input is "
                         f"{list(x.shape)}, the groups is {groups}")
    padding, algorithm = update_padding_nd(padding, channel_last)
    sizes = _output_size(output_size, output_padding)
    attrs = {"output_padding": [] if output_padding == 0 else
             convert_to_list(output_padding, 2, "output_padding"),
             "output_size": sizes, "strides": convert_to_list(stride, 2, "stride"),
             "paddings": padding, "padding_algorithm": algorithm,
             "dilations": convert_to_list(dilation, 2, "dilation"), "groups": groups,
             "data_format": data_format}
    op_type = ("depthwise_conv2d_transpose" if num_channels == groups and num_channels != 1
               and weight.shape[1] == 1 else "conv2d_transpose")
    return _conv_op(op_type, x, weight, bias, attrs, channel_dim, name)
