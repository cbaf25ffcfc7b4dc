"""``paddle.static.nn`` layers that create parameters for CNNs: conv2d, batch_norm and
layer_norm, with Paddle 2.6's parameter names, initializers, ops and temporaries."""
from __future__ import annotations

from functools import reduce
from typing import Any

from ..framework.layer_helper import LayerHelper, check_dtype, check_type
from ..framework.variable import Variable
from ..nn.functional.window_args import convert_to_list
from ..nn.initializer import Constant, Normal
from ..ops.types import VarType
from ..param_attr import ParamAttr

__all__ = ["batch_norm", "conv2d", "layer_norm"]
_FLOATS = ["uint16", "float16", "float32", "float64"]


def _conv_padding(padding: Any, data_format: str) -> tuple[list[int], str]:
    """static.nn.conv2d's padding rules -> (paddings attr, padding_algorithm)."""
    if isinstance(padding, str):
        padding = padding.upper()
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{padding}'. It can only be 'SAME' or 'VALID'.")
        return [0, 0], padding
    if isinstance(padding, (list, tuple)) and len(padding) == 4:
        if isinstance(padding[0], (list, tuple)):
            batch_channel = ([padding[0], padding[1]] if data_format == "NCHW"
                             else [padding[0], padding[3]])
            if any(list(p) != [0, 0] for p in batch_channel):
                raise ValueError(f"Non-zero padding({padding}) in the batch or channel "
                                 "dimensions is not supported.")
            spatial = padding[2:4] if data_format == "NCHW" else padding[1:3]
            padding = [v for pair in spatial for v in pair]
        padding = convert_to_list(padding, 4, "padding")
        if padding[0] == padding[1] and padding[2] == padding[3]:
            padding = [padding[0], padding[2]]
        return padding, "EXPLICIT"
    return convert_to_list(padding, 2, "padding"), "EXPLICIT"


def conv2d(input: Variable, num_filters: int, filter_size: Any, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int | None = None, param_attr: Any = None,
           bias_attr: Any = None, use_cudnn: bool = True, act: str | None = None,
           name: str | None = None, data_format: str = "NCHW") -> Variable:
    """Convolution layer: filter ``<name>.w_0`` [num_filters, C/groups, kH, kW] drawn from
    Normal(0, sqrt(2 / (kH*kW*C))), the op, a bias ``<name>.b_0`` added on the channel axis,
    and ``act``."""
    check_type(input, "input", Variable, "conv2d")
    check_dtype(input.dtype, "input", _FLOATS, "conv2d")
    if len(input.shape) != 4:
        raise ValueError(f"Input size should be 4, but received {len(input.shape)}")
    if not isinstance(use_cudnn, bool):
        raise ValueError(f"Attr(use_cudnn) should be True or False. Received Attr(use_cudnn): "
                         f"{use_cudnn}. ")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    channel_last = data_format == "NHWC"
    num_channels = input.shape[3] if channel_last else input.shape[1]
    if num_channels < 0:
        raise ValueError(f"The channel dimmention of the input({list(input.shape)}) should be "
                         f"defined. Received: {num_channels}.")
    if groups is None:
        filter_channels = num_channels
    elif groups <= 0:
        raise ValueError(f"the groups of input must be greater than 0, but received the groups "
                         f"of input is {groups}")
    elif num_channels % groups:
        raise ValueError(f"the channel of input must be divisible by groups,received: the "
                         f"channel of input is {num_channels}, the shape of input is "
                         f"{list(input.shape)}, the groups is {groups}")
    else:
        filter_channels = num_channels // groups
    op_type = ("depthwise_conv2d" if num_channels == groups and num_filters % num_channels == 0
               and not use_cudnn else "conv2d")
    helper = LayerHelper(op_type, name=name, act=act, param_attr=ParamAttr._to_attr(param_attr),
                         bias_attr=ParamAttr._to_attr(bias_attr))
    filter_size = convert_to_list(filter_size, 2, "filter_size")
    paddings, algorithm = _conv_padding(padding, data_format)
    fan_in = filter_size[0] * filter_size[1] * num_channels
    weight = helper.create_parameter(helper.param_attr,
                                     [num_filters, filter_channels] + filter_size, input.dtype,
                                     default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type=op_type, inputs={"Input": input, "Filter": weight},
                     outputs={"Output": pre_bias},
                     attrs={"strides": convert_to_list(stride, 2, "stride"),
                            "paddings": paddings,
                            "dilations": convert_to_list(dilation, 2, "dilation"),
                            "groups": groups, "padding_algorithm": algorithm,
                            "data_format": data_format})
    start = 3 if channel_last else 1
    return helper.append_activation(helper.append_bias_op(pre_bias, start, start + 1))


def batch_norm(input: Variable, act: str | None = None, is_test: bool = False,
               momentum: float | Variable = 0.9, epsilon: float = 1e-05, param_attr: Any = None,
               bias_attr: Any = None, data_layout: str = "NCHW", in_place: bool = False,
               name: str | None = None, moving_mean_name: str | None = None,
               moving_variance_name: str | None = None,
               do_model_average_for_mean_and_var: bool = True,
               use_global_stats: bool = False) -> Variable:
    """Batch normalization: scale ``w_0`` (ones), bias ``b_0`` (zeros), and the running mean
    ``w_1`` / variance ``w_2`` (non-trainable) that training updates in place."""
    if bias_attr is False:
        raise AssertionError("bias_attr should not be False in batch_norm.")
    check_type(input, "input", Variable, "batch_norm")
    check_dtype(input.dtype, "input", _FLOATS, "batch_norm")
    helper = LayerHelper("batch_norm", name=name, act=act,
                         param_attr=ParamAttr._to_attr(param_attr),
                         bias_attr=ParamAttr._to_attr(bias_attr))
    dtype = input.dtype
    stats_dtype = VarType.FP32 if dtype in (VarType.FP16, VarType.BF16) else dtype
    if not 2 <= len(input.shape) <= 5:
        raise ValueError(f"expected 2D or 3D or 4D or 5D input (got {len(input.shape)}D input, "
                         f"input shape is: {list(input.shape)})")
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError("unsupported data layout:" + data_layout)
    shape = [input.shape[1] if data_layout == "NCHW" else input.shape[-1]]
    scale = helper.create_parameter(helper.param_attr, shape, stats_dtype,
                                    default_initializer=Constant(1.0))
    bias = helper.create_parameter(helper.bias_attr, shape, stats_dtype, is_bias=True)

    def running(stat_name: str | None, value: float):
        attr = ParamAttr(name=stat_name, initializer=Constant(value), trainable=False,
                         do_model_average=do_model_average_for_mean_and_var)
        return helper.create_parameter(attr, shape, stats_dtype, stop_gradient=True)

    mean, variance = running(moving_mean_name, 0.0), running(moving_variance_name, 1.0)
    saved_mean = helper.create_variable_for_type_inference(stats_dtype, stop_gradient=True)
    saved_variance = helper.create_variable_for_type_inference(stats_dtype, stop_gradient=True)
    outputs = {"MeanOut": mean, "VarianceOut": variance, "SavedMean": saved_mean,
               "SavedVariance": saved_variance}
    if not is_test:
        outputs["ReserveSpace"] = helper.create_variable_for_type_inference(dtype,
                                                                            stop_gradient=True)
    outputs["Y"] = input if in_place else helper.create_variable_for_type_inference(dtype)
    inputs = {"X": input, "Scale": scale, "Bias": bias, "Mean": mean, "Variance": variance}
    attrs = {"epsilon": epsilon, "is_test": is_test, "data_layout": data_layout,
             "use_global_stats": use_global_stats}
    if isinstance(momentum, Variable):
        inputs["MomentumTensor"] = momentum
    else:
        attrs["momentum"] = momentum
    helper.append_op(type="batch_norm", inputs=inputs, outputs=outputs, attrs=attrs)
    return helper.append_activation(outputs["Y"])


def layer_norm(input: Variable, scale: bool = True, shift: bool = True,
               begin_norm_axis: int = 1, epsilon: float = 1e-05, param_attr: Any = None,
               bias_attr: Any = None, act: str | None = None,
               name: str | None = None) -> Variable:
    """Layer normalization over the dims from ``begin_norm_axis`` on, with a learned scale
    ``w_0`` (ones) and shift ``b_0`` (zeros) of their flattened size."""
    check_type(input, "input", Variable, "layer_norm")
    check_dtype(input.dtype, "input", ["float32", "float64"], "layer_norm")
    helper = LayerHelper("layer_norm", name=name, act=act,
                         param_attr=ParamAttr._to_attr(param_attr),
                         bias_attr=ParamAttr._to_attr(bias_attr))
    dtype = input.dtype
    shape = [reduce(lambda a, b: a * b, input.shape[begin_norm_axis:], 1)]
    inputs = {"X": input}
    if scale:
        if param_attr is False:
            raise AssertionError("param_attr should not be False when using scale.")
        inputs["Scale"] = helper.create_parameter(helper.param_attr, shape, dtype,
                                                  default_initializer=Constant(1.0))
    if shift:
        if bias_attr is False:
            raise AssertionError("bias_attr should not be False when using shift.")
        inputs["Bias"] = helper.create_parameter(helper.bias_attr, shape, dtype, is_bias=True)
    mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    variance = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(type="layer_norm", inputs=inputs,
                     outputs={"Y": out, "Variance": variance, "Mean": mean},
                     attrs={"epsilon": epsilon, "begin_norm_axis": begin_norm_axis})
    return helper.append_activation(out)
