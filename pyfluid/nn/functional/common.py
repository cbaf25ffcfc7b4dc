"""``paddle.nn.functional.common``: dropout, linear, pad / zeropad2d, and interpolate /
upsample (defined in ``vision.py``)."""
from __future__ import annotations

from typing import Any, Sequence

from ..._dispatch import TENSOR_TYPES, apply_op, is_static, layer_op
from ...engine.run import run_op
from ...framework.context import default_main_program
from ...framework.layer_helper import LayerHelper
from ...ops.types import VarType
from ...tensor.creation import zeros
from ...tensor.manipulation import concat, squeeze, unsqueeze
from .vision import interpolate, upsample  # noqa: F401  (Paddle's home for them)


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
        program_seed = default_main_program().random_seed
        seed = program_seed if program_seed else None
    attrs = {"dropout_prob": float(p), "is_test": not training, "fix_seed": seed is not None,
             "seed": seed if seed is not None else 0, "dropout_implementation": implementation}
    return layer_op("dropout", "dropout", {"X": [x]}, attrs,
                    (("Out", None, False), ("Mask", VarType.UINT8, True)), name)[0]


def _one_helper_chain(layer: str, name: str | None, inputs: dict, steps: list):
    """Run ``steps`` [(op_type, inputs-with-None-for-the-previous-result, attrs)], in static
    mode as Paddle's layer functions do: one ``LayerHelper(layer)``, so the temporaries are
    ``<layer>_<n>.tmp_0``, ``.tmp_1``...; eagerly otherwise. Returns the last result."""
    helper = None
    if is_static(inputs):
        helper = LayerHelper(layer, name=name)
    result = None
    for op_type, op_inputs, attrs in steps:
        op_inputs = {k: result if v is None else v for k, v in op_inputs.items()}
        if helper is None:
            result = apply_op(op_type, op_inputs, attrs)
            continue
        result = helper.create_variable_for_type_inference(op_inputs["X"].dtype)
        helper.append_op(type=op_type, inputs=op_inputs, outputs={"Out": result}, attrs=attrs)
    return result


def linear(x, weight, bias=None, name: str | None = None):
    """``x @ weight + bias`` (``matmul_v2``, then ``elementwise_add`` with axis -1; static
    temporaries ``linear_<n>.tmp_0/1`` as in Paddle). Eagerly, one ``fc`` op: the bias added
    into the product's buffer, one backward step (Paddle's dygraph runs a fused kernel)."""
    inputs = {"Input": x, "W": weight, "Bias": bias}
    if not is_static(inputs) and getattr(x, "ndim", 0) >= 2 and weight.ndim == 2:
        return run_op("fc", inputs, {"in_num_col_dims": x.ndim - 1})
    steps = [("matmul_v2", {"X": x, "Y": weight}, {"trans_x": False, "trans_y": False})]
    if bias is not None:
        steps.append(("elementwise_add", {"X": None, "Y": bias}, {"axis": -1}))
    return _one_helper_chain("linear", name, {"x": x, "weight": weight}, steps)


# -- padding ---------------------------------------------------------------------------------
_PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def pad(x, pad: Any, mode: str = "constant", value: float = 0.0, data_format: str = "NCHW",
        name: str | None = None):
    """Pad ``x``. Constant padding of every dim (``pad`` holds 2 * rank values, first dim
    first) is op ``pad``; otherwise ``pad`` gives the last 1-3 spatial dims, last dim first
    ([left, right, top, bottom, front, back]) and op ``pad3d`` runs on x viewed as 5-D."""
    if mode not in ("reflect", "replicate", "constant", "circular"):
        raise AssertionError(f"mode should be one of constant, reflect, replicate, circular, "
                             f"but got {mode}.")
    data_format = data_format.upper()
    if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise AssertionError(f"data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, "
                             f"NDHWC], but got {data_format}")
    rank = len(x.shape)
    if mode == "constant" and isinstance(pad, (list, tuple)) and len(pad) == rank * 2:
        if not isinstance(value, (float, int)) or isinstance(value, bool):
            raise TypeError(f"The type of 'pad_value' in pad must be (float, int), but received "
                            f"{type(value)}.")
        return layer_op("pad", "pad", {"X": x}, {"paddings": [int(p) for p in pad],
                                                 "pad_value": float(value)}, name=name)[0]
    if rank not in _PAD_FORMATS:
        raise AssertionError(f"input tesor dimension must be in [3, 4, 5] but got {rank}")
    if data_format not in _PAD_FORMATS[rank]:
        raise AssertionError(f"input tensor dimension is {rank}, it's data format should be in "
                             f"{list(_PAD_FORMATS[rank])} but got {data_format}")
    channel_first = data_format[1] == "C"
    unsqueezed = {3: [3, 4] if channel_first else [2, 3],
                  4: [2] if channel_first else [1], 5: []}[rank]
    if isinstance(pad, TENSOR_TYPES):
        if rank == 3:
            pad = concat([zeros([4], "int32"), pad])
        elif rank == 4:
            pad = concat([pad, zeros([2], "int32")])
    else:
        pad = list(pad)
        pad = [0, 0, 0, 0] + pad if rank == 3 else pad + [0, 0] if rank == 4 else pad
    if unsqueezed:
        x = unsqueeze(x, unsqueezed)
    attrs = {"mode": mode, "value": float(value),
             "data_format": "NCDHW" if channel_first else "NDHWC"}
    inputs = {"X": x}
    if isinstance(pad, TENSOR_TYPES) and is_static({"X": x}):
        inputs["Paddings"], attrs["paddings"] = pad, []
    else:
        attrs["paddings"] = [int(p) for p in (pad.numpy().ravel() if isinstance(
            pad, TENSOR_TYPES) else pad)]
    out = layer_op("pad3d", "pad3d", inputs, attrs, name=name)[0]
    return squeeze(out, unsqueezed) if unsqueezed else out


def zeropad2d(x, padding: Any, data_format: str = "NCHW", name: str | None = None):
    """Zero padding of the last two spatial dims: [left, right, top, bottom]."""
    return pad(x, pad=padding, mode="constant", value=0, data_format=data_format, name=name)
