"""``paddle.einsum``: Einstein summation (op ``einsum``). As in Paddle, the equation is
lowercased and made explicit here (an implicit output becomes ``...`` plus the labels used once,
sorted), so the op always receives ``lhs->rhs``."""
from __future__ import annotations

from collections import Counter

from .._dispatch import apply_op, is_static
from ..framework.layer_helper import LayerHelper


def _explicit(equation: str, count: int) -> str:
    eq = equation.replace(" ", "").lower()
    lhs, *rhs = eq.split("->")
    if len(rhs) > 1:
        raise ValueError("Invalid equation: multiple `->` were found.")
    if len(lhs.split(",")) != count:
        raise ValueError(f"Invalid equation: the number of operands is {count}, but found "
                         f"{len(lhs.split(','))} segments in the label equation.")
    if rhs:
        out = rhs[0]
    else:
        counts = Counter(lhs)
        out = ("..." if "..." in lhs else "") + "".join(
            c for c in sorted(counts) if counts[c] == 1 and c not in ".,")
    if "..." in lhs and "..." not in out:
        raise ValueError("Invalid equation: missing ellipsis in output labels.")
    return lhs + "->" + out


def einsum(equation: str, *operands):
    """``einsum("ij,jk->ik", a, b)``: sums of products over the labels, NumPy's rules
    (``...`` broadcasts). One op for any number of operands (Paddle chains pairs of them)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("Required at least one operand in Einsum API, but received 0 ")
    if not isinstance(equation, str):
        raise TypeError(f"The type of 'equation' in einsum must be str, but received "
                        f"{type(equation)}.")
    attrs = {"equation": _explicit(equation, len(operands))}
    if not is_static({"Operands": list(operands)}):
        return apply_op("einsum", {"Operands": list(operands)}, attrs)[0]
    helper = LayerHelper("einsum")
    dtype = operands[0].dtype
    out = helper.create_variable_for_type_inference(dtype)
    caches = [helper.create_variable_for_type_inference(dtype) for _ in operands]
    xshape = [helper.create_variable_for_type_inference(dtype) for _ in operands]
    helper.append_op(type="einsum", inputs={"Operands": list(operands)},
                     outputs={"Out": out, "InnerCache": caches, "XShape": xshape}, attrs=attrs)
    return out
