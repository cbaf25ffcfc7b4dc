"""Pooling (``paddle.nn.functional.pooling``)."""
from __future__ import annotations

from typing import Any

from ..._dispatch import apply_op, layer_op
from ...ops.types import VarType
from .window_args import (_check_4d, _check_data_format, _is_static, _layer_name,
                          convert_to_list, update_padding_nd)


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
    attrs = _pool_attrs(x, kernel_size, stride, padding, ceil_mode, data_format, "max_pool2d")
    if not return_mask:
        return _pool2d(x, {"pooling_type": "max", "exclusive": True, **attrs}, name)
    if data_format == "NHWC":
        raise ValueError("When setting return_mask to true, data_format must be set to NCHW in "
                         "API:max_pool2d")
    return _max_pool_with_index(x, {"ksize": attrs["ksize"], "strides": attrs["strides"],
                                     "paddings": attrs["paddings"], "global_pooling": False,
                                     "adaptive": False}, name)


def _max_pool_with_index(x, attrs: dict, name: str | None) -> tuple:
    """(Out, Mask): ``max_pool2d_with_index`` with Paddle's temporaries (Out, then the int32
    Mask) in static mode."""
    return layer_op("max_pool2d_with_index", "max_pool2d_with_index", {"X": x}, attrs,
                    (("Out", None, False), ("Mask", VarType.INT32, False)), name)


def adaptive_max_pool2d(x, output_size: Any, return_mask: bool = False,
                        name: str | None = None):
    """Max pooling onto a fixed ``output_size`` grid (None keeps that input dim); with
    ``return_mask`` also the flat index of each maximum in its input plane."""
    _check_4d(x, "adaptive_max_pool2d")
    if isinstance(output_size, int):
        size = convert_to_list(output_size, 2, "output_size")
    else:
        size = [x.shape[2 + i] if s is None else s for i, s in enumerate(output_size)]
    out, mask = _max_pool_with_index(x, {"ksize": size, "strides": [1, 1], "paddings": [0, 0],
                                         "global_pooling": False, "adaptive": True}, name)
    return (out, mask) if return_mask else out


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
