"""Comparisons (``paddle.tensor.logic``): bool results that never need a gradient."""
from __future__ import annotations

from .._dispatch import TENSOR_TYPES, layer_op
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
