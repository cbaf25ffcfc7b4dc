"""Python operators for values that build ops: static Variables and eager Tensors share them.

A class mixing in :class:`OperatorMethods` implements ``_binary(op_type, other, reverse)``
(and ``__neg__``); every operator maps to the Paddle op it appends or runs. As in Paddle,
``==`` and the other comparisons produce a value (an ``equal`` op), not a bool.
"""
from __future__ import annotations

from typing import Callable

# Scalar operands go through one `scale` op, as Paddle's patched operators do:
# op -> (rule for ``x <op> c``, rule for ``c <op> x``), each rule c -> (scale, bias).
SCALAR_VIA_SCALE: dict[str, tuple[Callable | None, Callable | None]] = {
    "elementwise_add": (lambda c: (1.0, c), lambda c: (1.0, c)),
    "elementwise_sub": (lambda c: (1.0, -c), lambda c: (-1.0, c)),
    "elementwise_mul": (lambda c: (c, 0.0), lambda c: (c, 0.0)),
    "elementwise_div": (lambda c: (1.0 / c, 0.0), None),
}


def scale_rule(op_type: str, reverse: bool) -> Callable | None:
    """The (scale, bias) rule for a scalar operand of ``op_type``, or None."""
    rules = SCALAR_VIA_SCALE.get(op_type)
    return rules[1 if reverse else 0] if rules else None


class OperatorMethods:
    """Arithmetic and comparison operators, each appending (or running) one Paddle op."""

    __slots__ = ()

    def _binary(self, op_type: str, other, reverse: bool = False):
        raise NotImplementedError

    def __add__(self, o): return self._binary("elementwise_add", o)
    def __radd__(self, o): return self._binary("elementwise_add", o, True)
    def __sub__(self, o): return self._binary("elementwise_sub", o)
    def __rsub__(self, o): return self._binary("elementwise_sub", o, True)
    def __mul__(self, o): return self._binary("elementwise_mul", o)
    def __rmul__(self, o): return self._binary("elementwise_mul", o, True)
    def __truediv__(self, o): return self._binary("elementwise_div", o)
    def __rtruediv__(self, o): return self._binary("elementwise_div", o, True)
    def __mod__(self, o): return self._binary("elementwise_mod", o)
    def __rmod__(self, o): return self._binary("elementwise_mod", o, True)
    def __floordiv__(self, o): return self._binary("elementwise_floordiv", o)
    def __rfloordiv__(self, o): return self._binary("elementwise_floordiv", o, True)
    def __pow__(self, o): return self._binary("elementwise_pow", o)
    def __rpow__(self, o): return self._binary("elementwise_pow", o, True)
    def __matmul__(self, o): return self._binary("matmul_v2", o)
    def __rmatmul__(self, o): return self._binary("matmul_v2", o, True)
    def __eq__(self, o): return self._binary("equal", o)  # type: ignore[override]
    def __ne__(self, o): return self._binary("not_equal", o)  # type: ignore[override]
    def __lt__(self, o): return self._binary("less_than", o)
    def __le__(self, o): return self._binary("less_equal", o)
    def __gt__(self, o): return self._binary("greater_than", o)
    def __ge__(self, o): return self._binary("greater_equal", o)

    def __hash__(self) -> int:
        return id(self)
