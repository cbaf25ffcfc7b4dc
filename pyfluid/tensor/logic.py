"""Comparisons and logical ops (``paddle.tensor.logic``): bool results that never need a
gradient."""
from __future__ import annotations

from .._dispatch import TENSOR_TYPES, layer_op
from ..engine.tensor import Tensor
from ..framework.layer_helper import LayerHelper
from ..ops.types import VarType
from .creation import full_constant


# -- comparisons: a bool result that never needs a gradient -----------------------------------
def _comparison(op_type: str, doc: str, scalar_y: bool = False):
    def compare(x, y, name: str | None = None):
        if scalar_y and not isinstance(y, TENSOR_TYPES):
            if not isinstance(y, (int, bool, float)):
                raise TypeError(f"Type of input args must be float, bool, int or Tensor, but "
                                f"received type {type(y)}")
            y = full_constant([], x.dtype, y)
        return layer_op(op_type, op_type, {"X": [x], "Y": [y]},
                        outputs=(("Out", VarType.BOOL, True),), name=name)[0]
    compare.__name__ = op_type
    compare.__doc__ = doc
    return compare


equal = _comparison("equal", "``x == y`` elementwise (y may be a Python number).", True)


not_equal = _comparison("not_equal", "``x != y`` elementwise.")


greater_than = _comparison("greater_than", "``x > y`` elementwise.")


greater_equal = _comparison("greater_equal", "``x >= y`` elementwise.")


less_than = _comparison("less_than", "``x < y`` elementwise.")


less_equal = _comparison("less_equal", "``x <= y`` elementwise.")


# -- logical ops: bool results (non-zero counts as true) ------------------------------------------
def _logical(op_type: str, doc: str, binary: bool = True):
    def logical(x, y=None, out=None, name: str | None = None):
        inputs = {"X": [x], "Y": [y]} if binary else {"X": [x]}
        if out is None or isinstance(out, Tensor):
            result = layer_op(op_type, op_type, inputs, outputs=(("Out", VarType.BOOL, False),),
                              name=name)[0]
            if isinstance(out, Tensor):
                out._array = result._array
                return out
            return result
        LayerHelper(op_type, name=name).append_op(type=op_type, inputs=inputs,
                                                  outputs={"Out": [out]})
        return out
    if not binary:
        def logical_unary(x, out=None, name: str | None = None):
            return logical(x, None, out, name)
        logical_unary.__name__, logical_unary.__doc__ = op_type, doc
        return logical_unary
    logical.__name__, logical.__doc__ = op_type, doc
    return logical


logical_and = _logical("logical_and", "``x and y`` elementwise (a bool Tensor).")
logical_or = _logical("logical_or", "``x or y`` elementwise (a bool Tensor).")
logical_xor = _logical("logical_xor", "``x xor y`` elementwise (a bool Tensor).")
logical_not = _logical("logical_not", "``not x`` elementwise (a bool Tensor).", binary=False)
