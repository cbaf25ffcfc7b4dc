"""Tensor attributes (``paddle.tensor.attribute``): ``shape``, a tensor's dims as an int32
tensor (op ``shape``), which is how programs read a dim that is -1 when they are built; and
``Variable.size()``."""
from __future__ import annotations

from .._dispatch import apply_op, is_static
from ..framework import unique_name
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


def variable_size(self):
    """``Variable.size()``: the element count, a 0-D int64 Variable named ``<x>_size_<n>``."""
    block = self.block.program.current_block()
    out = block.create_var(name=unique_name.generate_with_ignorable_key(f"{self.name}_size"),
                           dtype="int64", stop_gradient=True)
    apply_op("size", {"Input": self}, outputs={"Out": out})
    return out
