"""Convolution (``paddle.nn.functional.conv``)."""
from __future__ import annotations

from typing import Any

from ..._dispatch import apply_op
from .window_args import (_check_4d, _check_data_format, _is_static, _layer_name,
                          convert_to_list, update_padding_nd)


# -- conv2d ----------------------------------------------------------------------------------
def conv2d(x, weight, bias=None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1, data_format: str = "NCHW", name: str | None = None):
    """2-D convolution of ``x`` (NCHW/NHWC) with ``weight`` [C_out, C_in/groups, kH, kW];
    ``depthwise_conv2d`` when every input channel is its own group, as Paddle chooses."""
    _check_4d(x, "conv2d")
    channel_last = _check_data_format(data_format)
    channel_dim = 3 if channel_last else 1
    num_channels, num_filters = x.shape[channel_dim], weight.shape[0]
    if num_channels < 0:
        raise ValueError(f"The channel dimension of the input({list(x.shape)}) should be "
                         f"defined. Received: {num_channels}.")
    if groups <= 0:
        raise ValueError(f"The groups of conv2d should be greater than 0. Received groups: "
                         f"{groups}")
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
    layer = _layer_name(op_type, name) if _is_static(x) else None
    out = apply_op(op_type, {"Input": x, "Filter": weight}, attrs, name=layer)
    if bias is None:
        return out
    return apply_op("elementwise_add", {"X": out, "Y": bias}, {"axis": channel_dim}, name=layer)
