"""Convolution (``paddle.nn.functional.conv``): conv1d, conv2d and conv3d, with Paddle 2.6's
op choice (depthwise variants), attributes, and static-mode temporaries: one
``LayerHelper(op_type)`` holds the op's output and, with a bias, the sum; the bias is reshaped
to broadcast along the channel axis (``reshape2``) unless the layout is channel-last. conv1d
is Paddle's 2-D convolution of an unsqueezed input (``unsqueeze2``, ``conv2d``, bias added
with ``elementwise_add``'s axis, ``squeeze2``). The transposes are in conv_transpose.py."""
from __future__ import annotations

from typing import Any

from ..._dispatch import TENSOR_TYPES, apply_op, is_static
from ...framework.layer_helper import LayerHelper
from ...tensor.creation import assign
from ...tensor.manipulation import reshape, squeeze, unsqueeze
from ...tensor.math import elementwise_api
from .window_args import _check_4d, _check_data_format, convert_to_list, update_padding_nd


def conv_op(op_type: str, x, weight, bias, attrs: dict, channel_dim: int,
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


def channels_of(x, channel_dim: int, groups: int, api: str) -> int:
    channels = x.shape[channel_dim]
    if channels < 0:
        raise ValueError(f"The channel dimension of the input({list(x.shape)}) should be "
                         f"defined. Received: {channels}.")
    if groups <= 0:
        raise ValueError(f"The groups of {api} should be greater than 0. Received groups: "
                         f"{groups}")
    return channels


def add_bias_along(out, bias, channel_dim: int):
    """Paddle's ``_add_with_axis``: ``elementwise_add`` of the 1-D bias with axis
    ``channel_dim``, its static output ``elementwise_add_<n>``; ``out`` when there is no bias."""
    return out if bias is None else elementwise_api("elementwise_add", out, bias,
                                                    axis=channel_dim)


def padding_1d(padding: Any, channel_last: bool, before: bool) -> tuple:
    """(paddings of the 2-D op, padding_algorithm): conv1d pads the length as the W dim
    (``before``: [0, 0] put ahead), conv1d_transpose as the H dim ([0, 0] after)."""
    padding, algorithm = update_padding_nd(padding, channel_last, 1)    # 1 or 2 values
    zeros = [0] * len(padding)
    return (zeros + padding if before else padding + zeros), algorithm


# -- conv1d / conv2d / conv3d ----------------------------------------------------------------
def conv2d(x, weight, bias=None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1, data_format: str = "NCHW", name: str | None = None):
    """2-D convolution of ``x`` (NCHW/NHWC) with ``weight`` [C_out, C_in/groups, kH, kW];
    ``depthwise_conv2d`` when every input channel is its own group, as Paddle chooses."""
    _check_4d(x, "conv2d")
    channel_last = _check_data_format(data_format)
    channel_dim = -1 if channel_last else 1
    num_channels, num_filters = channels_of(x, channel_dim, groups, "conv2d"), weight.shape[0]
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
    return conv_op(op_type, x, weight, bias, attrs, channel_dim, name)


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
    num_channels, num_filters = channels_of(x, channel_dim, groups, "conv3d"), weight.shape[0]
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
    return conv_op("conv3d", x, weight, bias, attrs, channel_dim, name)


def conv1d(x, weight, bias=None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1, data_format: str = "NCL", name: str | None = None):
    """1-D convolution of ``x`` (NCL/NLC) with ``weight`` [C_out, C_in/groups, K]: Paddle's
    ``conv2d`` of the input with a unit H dim (on CPU never the depthwise op)."""
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"Attr(data_format) should be 'NCL' or 'NLC'. Received "
                         f"Attr(data_format): {data_format}.")
    channel_last = data_format == "NLC"
    channel_dim = -1 if channel_last else 1
    if len(x.shape) != 3:
        raise ValueError(f"Input x should be 3D tensor, but received x with the shape of "
                         f"{list(x.shape)}")
    num_channels, num_filters = channels_of(x, channel_dim, groups, "conv1d"), weight.shape[0]
    if num_channels % groups:
        raise ValueError(f"the channel of input must be divisible by groups,received: the "
                         f"channel of input is {num_channels}, the shape of input is "
                         f"{list(x.shape)}, the groups is {groups}")
    if num_filters % groups:
        raise ValueError(f"the number of filters must be divisible by groups,received: the "
                         f"number of filters is {num_filters}, the shape of weight is "
                         f"{list(weight.shape)}, the groups is {groups}")
    padding, algorithm = padding_1d(padding, channel_last, before=True)
    attrs = {"strides": [1] + convert_to_list(stride, 1, "stride"), "paddings": padding,
             "dilations": [1] + convert_to_list(dilation, 1, "dilation"), "groups": groups,
             "padding_algorithm": algorithm,
             "data_format": "NHWC" if channel_last else "NCHW"}
    weight = unsqueeze(assign(weight), axis=[-2])
    squeeze_axis = -3 if channel_last else -2
    out = conv_op("conv2d", unsqueeze(x, axis=[squeeze_axis]), weight, None, attrs,
                   channel_dim, name)
    return squeeze(add_bias_along(out, bias, channel_dim), axis=[squeeze_axis])
