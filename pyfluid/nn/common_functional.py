"""More of ``paddle.nn.functional``: dropout, one_hot, embedding, relu6, silu, mse_loss,
l1_loss, normalize, layer_norm and batch_norm, with Paddle 2.6's ops, attributes and
temporaries in static mode, and the same ops run eagerly on Tensors."""
from __future__ import annotations

import numbers
from typing import Sequence

from ..eager.tensor import Tensor
from ..ops.types import VarType, dtype_name
from ..tensor_manip import TENSOR_TYPES, is_static, layer_op

__all__ = ["batch_norm", "dropout", "embedding", "l1_loss", "layer_norm", "mse_loss",
           "normalize", "one_hot", "relu6", "silu"]


def dropout(x, p: float = 0.5, axis: int | Sequence[int] | None = None, training: bool = True,
            mode: str = "upscale_in_train", name: str | None = None):
    """Zero each element with probability ``p`` while training. 'upscale_in_train' scales the
    kept elements by 1/(1-p) (inference is the identity); 'downscale_in_infer' keeps them as
    they are and scales by (1-p) at inference. A program's ``random_seed`` fixes the mask."""
    if isinstance(p, TENSOR_TYPES):
        raise NotImplementedError("dropout: pass p as a Python number (a Tensor p is not "
                                  "supported)")
    if not isinstance(p, (float, int)):
        raise TypeError("p argument should be a number or Variable")
    if p == 0:
        return x
    if p < 0 or p > 1:
        raise ValueError("p argument should between 0 and 1")
    if mode not in ("downscale_in_infer", "upscale_in_train"):
        raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")
    if axis is not None:
        raise NotImplementedError("dropout with 'axis' (dropout_nd) is not supported; use "
                                  "axis=None")
    implementation = "downgrade_in_infer" if mode == "downscale_in_infer" else mode
    seed = None
    if is_static({"X": x}):
        from ..framework.context import default_main_program
        program_seed = default_main_program().random_seed
        seed = program_seed if program_seed else None
    attrs = {"dropout_prob": float(p), "is_test": not training, "fix_seed": seed is not None,
             "seed": seed if seed is not None else 0, "dropout_implementation": implementation}
    return layer_op("dropout", "dropout", {"X": [x]}, attrs,
                    (("Out", None, False), ("Mask", VarType.UINT8, True)), name)[0]


def one_hot(x, num_classes: int, name: str | None = None):
    """float32 one-hot vectors of length ``num_classes`` for the int ids ``x`` (shape + [C])."""
    if isinstance(num_classes, TENSOR_TYPES):
        num_classes.stop_gradient = True
        inputs, attrs = {"X": x, "depth_tensor": num_classes}, {"allow_out_of_range": False}
    else:
        inputs, attrs = {"X": x}, {"depth": num_classes, "allow_out_of_range": False}
    return layer_op("one_hot_v2", "one_hot_v2", inputs, attrs,
                    (("Out", VarType.FP32, True),), name)[0]


def embedding(x, weight, padding_idx: int | None = None, sparse: bool = False,
              name: str | None = None):
    """Rows of ``weight`` for the int ids ``x`` (``lookup_table_v2``); rows of
    ``padding_idx`` (negative counts from the end) come out as zeros."""
    rows = weight.shape[0]
    padding_idx = -1 if padding_idx is None else padding_idx if padding_idx >= 0 \
        else rows + padding_idx
    if padding_idx >= rows or padding_idx < -rows:
        raise ValueError(f"padding_idx must be within [-{rows}, {rows})")
    attrs = {"is_sparse": sparse, "is_distributed": False, "remote_prefetch": sparse,
             "padding_idx": padding_idx}
    return layer_op("embedding", "lookup_table_v2", {"Ids": x, "W": weight}, attrs,
                    (("Out", weight.dtype, False),), name)[0]


def relu6(x, name: str | None = None):
    """``min(max(x, 0), 6)``."""
    return layer_op("relu6", "relu6", {"X": x}, {"threshold": 6.0}, name=name)[0]


def silu(x, name: str | None = None):
    """``x * sigmoid(x)``."""
    return layer_op("silu", "silu", {"X": x}, name=name)[0]


# -- losses ------------------------------------------------------------------------------------
def mse_loss(input, label, reduction: str = "mean", name: str | None = None):
    """Squared error ``(input - label) ** 2``, then mean / sum / none."""
    from ..tensor_api import mean, square, subtract, sum as sum_
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"'reduction' in 'mse_loss' should be 'sum', 'mean' or 'none', but "
                         f"received {reduction}.")
    if reduction == "none":
        return square(subtract(input, label), name=name)
    return (mean if reduction == "mean" else sum_)(square(subtract(input, label)), name=name)


def l1_loss(input, label, reduction: str = "mean", name: str | None = None):
    """Absolute error ``|input - label|``, then mean / sum / none."""
    from ..tensor_api import abs as abs_, mean, subtract, sum as sum_
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"The value of 'reduction' in L1Loss should be 'sum', 'mean' or "
                         f"'none', but received {reduction}, which is not allowed.")
    if reduction == "none":
        return abs_(subtract(input, label, name=name))     # Paddle names only the difference
    unreduced = abs_(subtract(input, label))
    return (mean if reduction == "mean" else sum_)(unreduced, name=name)


def normalize(x, p: float = 2, axis: int = 1, epsilon: float = 1e-12,
              name: str | None = None):
    """``x / max(||x||_p along axis, epsilon)`` (``p_norm`` with keepdim, then
    ``elementwise_max`` with a filled epsilon and ``elementwise_div``)."""
    from ..framework import unique_name
    from ..tensor_api import divide, maximum
    from ..tensor_manip import full_constant
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
    from ..framework.layer_helper import LayerHelper
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

