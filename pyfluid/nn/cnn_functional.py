"""``paddle.nn.functional`` for CNNs: conv2d, pooling, flatten and the extra activations, with
Paddle 2.6's argument handling, op types, attributes and temporary names."""
from __future__ import annotations

from typing import Any

from .._dispatch import apply_op
from ..framework import unique_name
from ..framework.context import in_dynamic_mode
from ..framework.layer_helper import LayerHelper
from ..framework.variable import Variable

__all__ = ["adaptive_avg_pool2d", "avg_pool2d", "conv2d", "flatten", "gelu", "hardswish",
           "leaky_relu", "max_pool2d"]


def _is_static(x: Any) -> bool:
    return isinstance(x, Variable) or not in_dynamic_mode()


def _layer_name(layer_type: str, name: str | None) -> str:
    """The temporaries' prefix: ``name`` or a fresh ``<layer_type>_<n>`` (Paddle's LayerHelper)."""
    return name if name is not None else unique_name.generate(layer_type)


def convert_to_list(value: Any, n: int, what: str) -> list[int]:
    """Paddle's ``convert_to_list``: an int repeated ``n`` times, or a list of ``n`` ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value] * n
    try:
        values = list(value)
    except TypeError:
        raise ValueError(f"The {what}'s type must be list or tuple. Received: {value}") from None
    if len(values) != n:
        raise ValueError(f"The {what}'s length must be {n}. Received: {value}")
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool):
            raise ValueError(f"The {what}'s type must be a list or tuple of {n} integers. "
                             f"Received: {value} including element {v} of type {type(v)}")
    return values


def _check_data_format(data_format: str) -> bool:
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    return data_format == "NHWC"


def update_padding_nd(padding: Any, channel_last: bool, num_dims: int = 2,
                      ceil_mode: bool = False) -> tuple[list[int], str]:
    """Paddle's ``_update_padding_nd``: padding argument -> (paddings attr, padding_algorithm).
    Accepts 'SAME'/'VALID', an int, [p_h, p_w], [top, bottom, left, right] or per-dim pairs
    including the (zero) batch and channel dims."""
    if isinstance(padding, str):
        padding = padding.upper()
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{padding}'. It can only be 'SAME' or 'VALID'.")
        if padding == "VALID" and ceil_mode:
            raise ValueError('When Attr(padding) is "VALID", Attr(ceil_mode) must be False. '
                             "Received ceil_mode: True.")
        return [0] * num_dims, padding
    if isinstance(padding, (list, tuple)):
        if len(padding) == 2 + num_dims and isinstance(padding[0], (list, tuple)):
            spatial = padding[1:-1] if channel_last else padding[2:]
            other = [padding[0], padding[-1]] if channel_last else padding[:2]
            if any(list(p) != [0, 0] for p in other):
                raise ValueError(f"Non-zero padding({padding}) in the batch or channel "
                                 "dimensions is not supported.")
            padding = [int(v) for pair in spatial for v in pair]
        elif len(padding) == 2 * num_dims and isinstance(padding[0], int):
            padding = convert_to_list(padding, 2 * num_dims, "padding")
        elif len(padding) == num_dims and isinstance(padding[0], int):
            padding = convert_to_list(padding, num_dims, "padding")
        else:
            raise ValueError(f"In valid padding: {padding}")
        if len(padding) == 2 * num_dims and all(padding[2 * i] == padding[2 * i + 1]
                                                for i in range(num_dims)):
            padding = padding[0::2]
    else:
        padding = convert_to_list(padding, num_dims, "padding")
    if not all(p >= 0 for p in padding):
        raise ValueError(f"Invalid padding, all value should be larger than or equal to 0, but "
                         f"received: {padding}")
    return padding, "EXPLICIT"


def _check_4d(x: Any, api: str) -> None:
    if len(x.shape) != 4:
        raise ValueError(f"Excepted Input X is 4-D tensor, but received {len(x.shape)}-D "
                         f"{type(x).__name__} ({api}, shape {list(x.shape)})")


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


# -- pooling ---------------------------------------------------------------------------------
def _pool2d(x, attrs: dict, name: str | None):
    layer = _layer_name("pool2d", name) if _is_static(x) else None
    return apply_op("pool2d", {"X": x}, attrs, name=layer)


def _pool_attrs(x, kernel_size, stride, padding, ceil_mode, data_format, api) -> dict:
    _check_4d(x, api)
    channel_last = _check_data_format(data_format)
    ksize = convert_to_list(kernel_size, 2, "pool_size")
    strides = ksize if stride is None else convert_to_list(stride, 2, "pool_stride")
    padding, algorithm = update_padding_nd(padding, channel_last, 2, ceil_mode)
    return {"ksize": ksize, "global_pooling": False, "strides": strides, "paddings": padding,
            "padding_algorithm": algorithm, "use_cudnn": True, "ceil_mode": ceil_mode,
            "data_format": data_format}


def max_pool2d(x, kernel_size: Any, stride: Any = None, padding: Any = 0,
               return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCHW",
               name: str | None = None):
    """Max pooling (``pool2d`` with pooling_type='max'); stride defaults to kernel_size."""
    if return_mask:
        raise NotImplementedError("max_pool2d(return_mask=True) needs the max_pool2d_with_index "
                                  "op, which pyfluid does not provide; use return_mask=False")
    attrs = _pool_attrs(x, kernel_size, stride, padding, ceil_mode, data_format, "max_pool2d")
    return _pool2d(x, {"pooling_type": "max", "exclusive": True, **attrs}, name)


def avg_pool2d(x, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, exclusive: bool = True,
               divisor_override: float | None = None, data_format: str = "NCHW",
               name: str | None = None):
    """Average pooling; ``exclusive`` leaves padding out of the divisor."""
    attrs = _pool_attrs(x, kernel_size, stride, padding, ceil_mode, data_format, "avg_pool2d")
    out = _pool2d(x, {"pooling_type": "avg", "exclusive": exclusive, **attrs}, name)
    if divisor_override is None:
        return out
    if not isinstance(divisor_override, (int, float)) or divisor_override <= 0:
        raise ValueError(f"divisor_override must be a positive number, received "
                         f"{divisor_override!r}")
    area = attrs["ksize"][0] * attrs["ksize"][1]
    return apply_op("scale", {"X": out}, {"scale": area / divisor_override, "bias": 0.0,
                                         "bias_after_scale": True})


def adaptive_avg_pool2d(x, output_size: Any, data_format: str = "NCHW",
                        name: str | None = None):
    """Average pooling onto a fixed ``output_size`` grid (None keeps that input dim)."""
    _check_4d(x, "adaptive_avg_pool2d")
    channel_last = _check_data_format(data_format)
    in_hw = list(x.shape[1:3] if channel_last else x.shape[2:4])
    if isinstance(output_size, int):
        size = convert_to_list(output_size, 2, "output_size")
    else:
        size = [in_hw[i] if s is None else s for i, s in enumerate(output_size)]
    return _pool2d(x, {"pooling_type": "avg", "ksize": size, "adaptive": True,
                       "data_format": data_format}, name)


# -- flatten and activations -----------------------------------------------------------------
def flatten(x, start_axis: int = 0, stop_axis: int = -1, name: str | None = None):
    """Merge dims ``start_axis..stop_axis`` into one (``flatten_contiguous_range``)."""
    rank = len(x.shape)
    for what, axis in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not isinstance(axis, int) or not -max(rank, 1) <= axis < max(rank, 1):
            raise ValueError(f"The {what} should be a int, and in range [-rank(x), rank(x))")
    start = start_axis + rank if start_axis < 0 else start_axis
    stop = stop_axis + rank if stop_axis < 0 else stop_axis
    if start > stop:
        raise ValueError("The stop_axis should be larger than stat_axis")
    attrs = {"start_axis": start, "stop_axis": stop}
    if not _is_static(x):
        return apply_op("flatten_contiguous_range", {"X": x}, attrs)[0]
    helper = LayerHelper("flatten", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    x_shape = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="flatten_contiguous_range", inputs={"X": x},
                     outputs={"Out": out, "XShape": x_shape}, attrs=attrs)
    return out


def _activation(op_type: str, layer_type: str, x, attrs: dict | None, name: str | None):
    layer = _layer_name(layer_type, name) if _is_static(x) else None
    return apply_op(op_type, {"X": x}, attrs, name=layer)


def gelu(x, approximate: bool = False, name: str | None = None):
    """GELU: ``x * Phi(x)`` (erf form), or its tanh approximation."""
    return _activation("gelu", "gelu", x, {"approximate": approximate}, name)


def hardswish(x, name: str | None = None):
    """``x * relu6(x + 3) / 6`` (op ``hard_swish``)."""
    return _activation("hard_swish", "hardswish", x,
                       {"threshold": 6.0, "scale": 6.0, "offset": 3.0}, name)


def leaky_relu(x, negative_slope: float = 0.01, name: str | None = None):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    return _activation("leaky_relu", "leaky_relu", x, {"alpha": negative_slope}, name)

