"""Resizing (``paddle.nn.functional.interpolate`` / ``upsample``; Paddle keeps them in
``functional.common``, which re-exports them): the *_interp_v2 ops with Paddle 2.6's argument
handling. In static mode a size Tensor becomes the OutSize input (cast to int32), a size list
holding Tensors becomes SizeTensor (its constant entries filled into int32 temporaries), a
scale Tensor becomes the Scale input; eagerly every Tensor is read as numbers first."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..._dispatch import TENSOR_TYPES, apply_op, is_static
from ...framework import unique_name
from ...framework.layer_helper import LayerHelper
from ...framework.variable import Variable
from ...ops.types import VarType
from ...tensor.manipulation import cast

_MODES = ("LINEAR", "BILINEAR", "TRILINEAR", "NEAREST", "BICUBIC", "AREA")
_RANK_OF_MODE = {"LINEAR": (3,), "NEAREST": (4, 5), "BILINEAR": (4,), "BICUBIC": (4,),
                 "TRILINEAR": (5,)}
_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _check_mode(resample: str, rank: int) -> None:
    if resample not in _MODES:
        raise ValueError("The 'resample' of image_resize can only be 'area', 'linear', "
                         "'bilinear', 'trilinear',  'bicubic' or 'nearest' currently.")
    if resample == "AREA" or rank in _RANK_OF_MODE[resample]:
        return
    raise ValueError({"LINEAR": "'linear' only support 3-D tensor.",
                      "NEAREST": "'NEAREST' only support 4-D  or 5-D tensor.",
                      "BILINEAR": "'bilinear' and 'bicubic' only support 4-D tensor.",
                      "BICUBIC": "'bilinear' and 'bicubic' only support 4-D tensor.",
                      "TRILINEAR": "'trilinear'only support 5-D tensor."}[resample])


def _area(x, size):
    """Paddle's 'area' mode: adaptive average pooling onto ``size``."""
    from .pooling import adaptive_avg_pool2d
    if size is None or (isinstance(size, (list, tuple)) and len(size) == 0):
        raise ValueError("output size can not be None in AREA mode")
    if len(x.shape) != 4:
        raise NotImplementedError("interpolate(mode='area') supports 4-D inputs only in pyfluid "
                                  "(adaptive_avg_pool1d/3d are not provided)")
    return adaptive_avg_pool2d(x, size)


def _eager_numbers(value):
    """Eager Tensors inside ``size`` / ``scale_factor`` read as Python numbers."""
    if isinstance(value, TENSOR_TYPES):
        array = value.numpy()
        return array.item() if array.ndim == 0 else [v.item() for v in array]
    if isinstance(value, (list, tuple)):
        return [v.item() if isinstance(v, TENSOR_TYPES) else v for v in value]
    return value


def _size_inputs(helper, size, rank: int, inputs: dict, attrs: dict) -> None:
    names = ("out_d", "out_h", "out_w")[3 - (rank - 2):]
    if isinstance(size, Variable):
        size.stop_gradient = True
        inputs["OutSize"] = size
        return
    if not isinstance(size, (list, tuple)):
        raise TypeError("size should be a list or tuple or Variable.")
    for dim in size:
        if not isinstance(dim, Variable) and not dim > 0:
            raise AssertionError("Each dimension size given in out_shape must be greater than 0.")
    if len(size) != rank - 2:
        raise ValueError("size length should be 2 for input 3-D tensor" if rank == 3 else
                         f"size length should be {rank - 2} for input {rank}-D tensor.")
    if any(isinstance(dim, Variable) for dim in size):
        tensors = []
        for attr, dim in zip(names, size):
            if isinstance(dim, Variable):
                dim.stop_gradient = True
                tensors.append(dim)
                attrs[attr] = -1
            else:
                tensors.append(_int32_constant(helper, int(dim)))
                attrs[attr] = int(dim)
        inputs["SizeTensor"] = tensors
        return
    attrs.update(zip(names, (int(d) for d in size)))


def _int32_constant(helper, value: int):
    """An int32 [1] temporary of ``helper`` filled with ``value`` (Paddle's fill_constant with
    ``out=``: two LayerHelpers, force_cpu)."""
    out = helper.create_variable_for_type_inference(VarType.INT32)
    for _ in range(2):
        unique_name.generate("fill_constant")
    helper.append_op(type="fill_constant", inputs={}, outputs={"Out": [out]},
                     attrs={"force_cpu": True, "str_value": str(value), "value": float(value),
                            "shape": [1], "dtype": int(VarType.INT32)})
    out.stop_gradient = True
    return out


def _scale_inputs(scale, rank: int, inputs: dict, attrs: dict) -> None:
    if isinstance(scale, Variable):
        scale.stop_gradient = True
        inputs["Scale"] = scale
    elif isinstance(scale, (float, int, np.ndarray)) and not isinstance(scale, bool):
        if scale <= 0:
            raise ValueError("Attr(scale) should be greater than zero.")
        attrs["scale"] = [float(scale)] * (rank - 2)
    elif isinstance(scale, (list, tuple)):
        if len(scale) != rank - 2:
            raise ValueError(f"scale_shape length should be {rank - 2} for input {rank}-D "
                             f"tensor.")
        if any(v <= 0 for v in scale):
            raise ValueError("Attr(scale) should be greater than zero.")
        attrs["scale"] = [float(v) for v in scale]
    else:
        raise TypeError("Attr(scale)'s type should be float, int, list, tuple, or Tensor.")


def interpolate(x, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool = False, align_mode: int = 0, data_format: str = "NCHW",
                name: str | None = None):
    """Resize the spatial dims of a 3-D (NCW/NWC), 4-D (NCHW/NHWC) or 5-D (NCDHW/NDHWC)
    ``x`` to ``size`` or by ``scale_factor`` (exactly one of them), with 'nearest', 'linear',
    'bilinear', 'bicubic', 'trilinear' or 'area'."""
    data_format, resample = data_format.upper(), mode.upper()
    rank = len(x.shape)
    _check_mode(resample, rank)
    if size is None and scale_factor is None:
        raise ValueError("One of size and scale_factor must not be None.")
    if isinstance(size, (tuple, list)) and len(size) != rank - 2:
        raise ValueError("The x and size should satisfy rank(x) - 2 == len(size).")
    static = is_static({"X": x})
    if isinstance(size, Variable):
        if len(size.shape) != 1:
            raise ValueError(f"If size is a tensor, it's rank must be 1, but received "
                             f"{len(size.shape)}.")
        if size.shape[0] != rank - 2:
            raise ValueError("The x and size should satisfy rank(x) - 2 == size.shape[0].")
        size = cast(size, "int32")
    if not isinstance(align_corners, bool):
        raise TypeError("Attr align_corners should be a bool value")
    if align_mode not in (0, 1):
        raise ValueError("align_mode can only be 0 or 1")
    if align_corners and resample == "NEAREST":
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if resample == "AREA":
        return _area(x, size)
    op_type = f"{mode.lower()}_interp_v2"
    helper = LayerHelper(op_type, name=name) if static else None
    if data_format not in _FORMATS[rank]:
        raise ValueError(f"Got wrong value for param `data_format`: {data_format} received but "
                         f"only `{_FORMATS[rank][0]}` or `{_FORMATS[rank][1]}` supported for "
                         f"{rank}-D input.")
    attrs = {"out_d": -1, "out_h": -1, "out_w": -1, "interp_method": mode.lower(),
             "align_corners": align_corners and resample != "NEAREST", "align_mode": align_mode,
             "data_layout": "NCHW" if data_format[1] == "C" else "NHWC"}
    inputs = {"X": x}
    if size is not None and scale_factor is not None:
        raise ValueError("Only one of size or scale_factor should be defined.")
    if size is not None:
        _size_inputs(helper, size if static else _eager_numbers(size), rank, inputs, attrs)
    else:
        _scale_inputs(scale_factor if static else _eager_numbers(scale_factor), rank, inputs,
                      attrs)
    if not static:
        return apply_op(op_type, inputs, attrs)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type=op_type, inputs=inputs, outputs={"Out": out}, attrs=attrs)
    return out


def upsample(x, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool = False, align_mode: int = 0, data_format: str = "NCHW",
             name: str | None = None):
    """:func:`interpolate` under its other name."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)
