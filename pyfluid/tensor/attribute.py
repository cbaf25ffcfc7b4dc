"""Tensor attributes (``paddle.tensor.attribute``): ``shape``, a tensor's dims as an int32
tensor (op ``shape``), which is how programs read a dim that is -1 when they are built."""
from __future__ import annotations

from .._dispatch import apply_op, is_static
from ..framework.layer_helper import LayerHelper


def shape(input):  # noqa: A002  (Paddle's name)
    """The dims of ``input`` as an int32 tensor of shape [rank]; never needs a gradient."""
    if not is_static({"Input": input}):
        out = apply_op("shape", {"Input": input})
        out.stop_gradient = True
        return out
    helper = LayerHelper("shape")
    out = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(type="shape", inputs={"Input": input}, outputs={"Out": out})
    return out
