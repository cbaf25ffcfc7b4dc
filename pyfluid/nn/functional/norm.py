"""Normalization (``paddle.nn.functional.norm``): layer_norm, batch_norm, normalize."""
from __future__ import annotations

import numbers
from typing import Sequence

from ..._dispatch import is_static, layer_op
from ...engine.tensor import Tensor
from ...framework import unique_name
from ...framework.layer_helper import LayerHelper
from ...ops.types import VarType, dtype_name
from ...tensor.creation import full_constant
from ...tensor.math import divide, maximum


def normalize(x, p: float = 2, axis: int = 1, epsilon: float = 1e-12,
              name: str | None = None):
    """``x / max(||x||_p along axis, epsilon)`` (``p_norm`` with keepdim, then
    ``elementwise_max`` with a filled epsilon and ``elementwise_div``)."""
    if not isinstance(p, (float, int)):
        raise TypeError(f"The type of 'p' in normalize must be (float, int), but received "
                        f"{type(p)}.")
    if not isinstance(axis, int):
        raise TypeError(f"The type of 'axis' in normalize must be int, but received "
                        f"{type(axis)}.")
    if len(x.shape) == 1 and axis not in (0, -1):
        raise ValueError(f"Axis must be 0 or -1 when x is a 1-D tensor, but received axis = "
                         f"{axis}")
    attrs = {"axis": axis, "porder": float(p), "keepdim": True, "epsilon": epsilon}
    (norm,) = layer_op("p_norm", "p_norm", {"X": x}, attrs)
    if is_static({"X": x}):     # Paddle first creates an unnamed variable it never uses
        norm.block.create_var(name=unique_name.generate("_generated_var"), dtype=norm.dtype)
    eps = full_constant([1], x.dtype, epsilon)
    return divide(x, maximum(norm, eps), name=name)


# -- normalization -----------------------------------------------------------------------------
def layer_norm(x, normalized_shape: int | Sequence[int], weight=None, bias=None,
               epsilon: float = 1e-05, name: str | None = None):
    """Normalize over the trailing ``normalized_shape`` dims, then scale and shift."""
    input_shape = list(x.shape)
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = [normalized_shape]
    elif isinstance(normalized_shape, tuple):
        normalized_shape = list(normalized_shape)
    elif not isinstance(normalized_shape, list):
        raise ValueError("`normalized_shape` should be int, list of ints or tuple of ints.")
    begin_norm_axis = len(input_shape) - len(normalized_shape)
    if begin_norm_axis < 0 or input_shape[begin_norm_axis:] != list(normalized_shape):
        text = str(list(normalized_shape))
        raise ValueError(f"Given normalized_shape is {text}, expected input with shape [*, "
                         f"{text[1:]}, but got input shape {input_shape}")
    inputs = {"X": [x]}
    if weight is not None:
        inputs["Scale"] = [weight]
    if bias is not None:
        inputs["Bias"] = [bias]
    stats = VarType.FP32 if dtype_name(x.dtype) == "float16" else x.dtype
    mean, variance, out = layer_op(
        "layer_norm", "layer_norm", inputs,
        {"epsilon": epsilon, "begin_norm_axis": begin_norm_axis},
        (("Mean", stats, True), ("Variance", stats, True), ("Y", x.dtype, False)), name)
    return out


_BN_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def batch_norm(x, running_mean, running_var, weight, bias, training: bool = False,
               momentum: float = 0.9, epsilon: float = 1e-05, data_format: str = "NCHW",
               use_global_stats: bool | None = None, name: str | None = None):
    """Batch normalization with batch statistics (training) or the running ones; training
    updates ``running_mean`` / ``running_var`` in place (MeanOut / VarianceOut)."""
    if len(x.shape) < 2:
        raise ValueError(f"input dim must be larger than 1, received shape {list(x.shape)}")
    if data_format not in _BN_FORMATS:
        raise ValueError(f"data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', "
                         f"'NHWC', 'NDHWC' but receive {data_format}")
    layout = "NCHW" if data_format[1] == "C" else "NHWC"
    if use_global_stats is None:
        use_global_stats, trainable_statistics = not training, False
    else:
        trainable_statistics = not use_global_stats
    attrs = {"momentum": momentum, "epsilon": epsilon, "is_test": not training,
             "data_layout": layout, "use_global_stats": use_global_stats,
             "trainable_statistics": trainable_statistics}
    inputs = {"X": [x], "Scale": [weight], "Bias": [bias], "Mean": [running_mean],
              "Variance": [running_var]}
    if not is_static(inputs):
        return _eager_batch_norm(inputs, attrs, running_mean, running_var)
    helper = LayerHelper("batch_norm", name=name)
    stats = VarType.FP32 if dtype_name(x.dtype) == "float16" else x.dtype
    saved_mean = helper.create_variable_for_type_inference(stats, stop_gradient=True)
    saved_variance = helper.create_variable_for_type_inference(stats, stop_gradient=True)
    out = helper.create_variable_for_type_inference(x.dtype)
    outputs = {"Y": [out], "MeanOut": [running_mean], "VarianceOut": [running_var],
               "SavedMean": [saved_mean], "SavedVariance": [saved_variance]}
    if training or trainable_statistics:
        outputs["ReserveSpace"] = [helper.create_variable_for_type_inference(
            x.dtype, stop_gradient=True)]
    helper.append_op(type="batch_norm", inputs=inputs, outputs=outputs, attrs=attrs)
    return out


def _eager_batch_norm(inputs: dict, attrs: dict, running_mean: Tensor, running_var: Tensor):
    y, mean_out, variance_out = layer_op(
        "batch_norm", "batch_norm", inputs, attrs,
        (("Y", None, False), ("MeanOut", None, True), ("VarianceOut", None, True)))
    running_mean._array = mean_out._array       # Paddle updates the statistics in place
    running_var._array = variance_out._array
    return y


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.9, eps: float = 1e-05,
                  data_format: str = "NCHW", name: str | None = None):
    """Normalize each channel of each sample over its spatial dims, then scale and shift
    (op ``instance_norm``; running statistics are not used, as in Paddle)."""
    inputs = {"X": [x]}
    if weight is not None and bias is not None:
        inputs.update(Scale=[weight], Bias=[bias])
    saved_mean, saved_variance, out = layer_op(
        "instance_norm", "instance_norm", inputs, {"epsilon": eps},
        (("SavedMean", None, True), ("SavedVariance", None, True), ("Y", None, False)), name)
    return out


def group_norm_layer(layer_name: str, x, weight, bias, epsilon: float, groups: int,
                     data_format: str):
    """GroupNorm's forward: op ``group_norm`` with the layer's own temporaries
    (``<layer>.tmp_0/1/2``: Mean, Variance, Y) in static mode, as Paddle's layer builds it."""
    inputs = {"X": [x]}
    if bias is not None:
        inputs["Bias"] = [bias]
    if weight is not None:
        inputs["Scale"] = [weight]
    attrs = {"epsilon": epsilon, "groups": groups, "data_layout": data_format}
    mean, variance, out = layer_op(
        layer_name, "group_norm", inputs, attrs,
        (("Mean", None, True), ("Variance", None, True), ("Y", None, False)), name=layer_name)
    return out
