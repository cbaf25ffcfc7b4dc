"""``paddle.nn.functional.common``: dropout and linear."""
from __future__ import annotations

from typing import Sequence

from ..._dispatch import TENSOR_TYPES, apply_op, is_static, layer_op
from ...engine.run import run_op
from ...framework.context import default_main_program
from ...framework.layer_helper import LayerHelper
from ...ops.types import VarType


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
