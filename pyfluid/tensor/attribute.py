"""A tensor's attributes as tensors (``paddle.tensor.attribute``): ``shape`` (op ``shape``)
and ``numel`` (op ``size``); ``Variable.size()`` is numel under Paddle's variable naming."""
from __future__ import annotations

from .._dispatch import apply_op, layer_op
from ..framework import unique_name
from ..framework.variable import Variable
from ..ops.types import VarType

__all__ = ["numel", "shape"]


def shape(input):  # noqa: A002  (Paddle's name)
    """The dims of ``input`` as an int32 tensor."""
    return layer_op("shape", "shape", {"Input": input},
                    outputs=(("Out", VarType.INT32, True),))[0]


def numel(x, name: str | None = None):
    """The number of elements of ``x`` as an int64 0-D tensor."""
    return layer_op("numel", "size", {"Input": x}, outputs=(("Out", VarType.INT64, True),),
                    name=name)[0]


def variable_size(self: Variable) -> Variable:
    """``Variable.size()``: the element count, a 0-D int64 Variable named ``<x>_size_<n>``."""
    block = self.block.program.current_block()
    out = block.create_var(name=unique_name.generate_with_ignorable_key(f"{self.name}_size"),
                           dtype="int64", stop_gradient=True)
    apply_op("size", {"Input": self}, outputs={"Out": out})
    return out
