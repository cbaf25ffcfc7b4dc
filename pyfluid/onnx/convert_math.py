"""Element-wise math: the elementwise_* family with Paddle's ``axis`` broadcasting, comparisons,
scale, sum, clip, pow and the unary math ops."""
from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from .registry import converter

_BINARY = {"elementwise_add": "Add", "elementwise_sub": "Sub", "elementwise_mul": "Mul",
           "elementwise_div": "Div", "elementwise_pow": "Pow", "elementwise_max": "Max",
           "elementwise_min": "Min"}
_COMPARE = {"equal": "Equal", "less_than": "Less", "less_equal": "LessOrEqual",
            "greater_than": "Greater", "greater_equal": "GreaterOrEqual"}
_UNARY = {"abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "floor": "Floor",
          "sign": "Sign", "reciprocal": "Reciprocal", "ceil": "Ceil", "sin": "Sin",
          "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan",
          "sinh": "Sinh", "cosh": "Cosh", "erf": "Erf"}


def aligned_pair(g, n, x_slot: str = "X", y_slot: str = "Y") -> tuple[str, str]:
    """X and Y as ONNX (NumPy) broadcasting needs them under Paddle's ``axis`` rule: the
    lower-rank operand's dims line up with the other's from ``axis`` on, so it gets trailing
    size-1 dims (axis -1, or equal ranks, is NumPy's own alignment)."""
    x, y = n.input(x_slot), n.input(y_slot)
    axis = n.attr("axis")
    x_rank, y_rank = n.rank(x_slot), n.rank(y_slot)
    if axis is None or axis == -1 or x_rank == y_rank:
        return x, y
    big, small = max(x_rank, y_rank), min(x_rank, y_rank)
    start = big - small + axis + 1 if axis < 0 else axis
    if not 0 <= start <= big - small:
        n.fail(f"axis {axis} cannot align a {small}-D operand with a {big}-D one")
    trailing = big - small - start
    if trailing:
        axes = list(range(small, small + trailing))
        if x_rank < y_rank:
            x = g.unsqueeze(x, axes)
        else:
            y = g.unsqueeze(y, axes)
    return x, y


@converter(*_BINARY)
def elementwise(g, n):
    x, y = aligned_pair(g, n)
    g.op(_BINARY[n.type], x, y, outputs=[n.output("Out")])


@converter("elementwise_mod")
def elementwise_mod(g, n):
    """Paddle's remainder takes the divisor's sign (Python's %): ONNX Mod(fmod=0) for
    integers; for floats C's fmod, moved by one divisor when the signs differ."""
    x, y = aligned_pair(g, n)
    out = n.output("Out")
    if n.np_dtype("X").kind in "iu":
        g.op("Mod", x, y, fmod=0, outputs=[out])
        return
    rem = g.op("Mod", x, y, fmod=1)
    zero = g.scalar(0, n.np_dtype("X"))
    signs_differ = g.op("Xor", g.op("Less", rem, zero), g.op("Less", y, zero))
    adjust = g.op("And", signs_differ, g.op("Not", g.op("Equal", rem, zero)))
    g.op("Where", adjust, g.op("Add", rem, y), rem, outputs=[out])


@converter("elementwise_floordiv")
def elementwise_floordiv(g, n):
    """Floor division (Paddle rounds toward minus infinity, ONNX's integer Div toward 0)."""
    x, y = aligned_pair(g, n)
    out = n.output("Out")
    if n.np_dtype("X").kind in "iu":
        exact = g.op("Sub", x, g.op("Mod", x, y, fmod=0))
        g.op("Div", exact, y, outputs=[out])
    else:
        g.op("Floor", g.op("Div", x, y), outputs=[out])


@converter(*_COMPARE, "not_equal")
def compare(g, n):
    x, y = aligned_pair(g, n)
    if n.type == "not_equal":
        g.op("Not", g.op("Equal", x, y), outputs=[n.output("Out")])
    else:
        g.op(_COMPARE[n.type], x, y, outputs=[n.output("Out")])


@converter("where")
def where(g, n):
    g.op("Where", n.input("Condition"), n.input("X"), n.input("Y"), outputs=[n.output("Out")])


@converter("scale")
def scale(g, n):
    """``x * scale + bias`` (or ``(x + bias) * scale``) in x's dtype, as Paddle computes it."""
    x, out, dtype = n.input("X"), n.output("Out"), n.np_dtype("X")
    if n.has("ScaleTensor"):
        factor = g.cast(g.reshape(n.input("ScaleTensor"), []), dtype)
    else:
        factor = None if n.attr("scale") == 1.0 else g.scalar(n.attr("scale"), dtype)
    bias = n.attr("bias")
    bias = g.scalar(bias, dtype) if bias else None
    steps = [("Mul", factor), ("Add", bias)] if n.attr("bias_after_scale") else \
        [("Add", bias), ("Mul", factor)]
    steps = [(op, operand) for op, operand in steps if operand is not None]
    if not steps:
        g.op("Identity", x, outputs=[out])
    for i, (op, operand) in enumerate(steps):
        x = g.op(op, x, operand, **({"outputs": [out]} if i == len(steps) - 1 else {}))


@converter("sum")
def sum_op(g, n):
    xs, out = n.inputs("X"), n.output("Out")
    if len(xs) == 1:
        g.op("Identity", xs[0], outputs=[out])
    elif n.np_dtype("X").kind == "f":
        g.op("Sum", *xs, outputs=[out])
    else:                               # ONNX Sum takes floating-point tensors only
        total = xs[0]
        for i, x in enumerate(xs[1:], 2):
            total = g.op("Add", total, x, **({"outputs": [out]} if i == len(xs) else {}))


@converter("clip")
def clip(g, n):
    dtype = n.np_dtype("X")

    def bound(slot, attr):
        if n.has(slot):
            return g.cast(g.reshape(n.input(slot), []), dtype)
        return g.scalar(n.attr(attr), dtype)
    g.op("Clip", n.input("X"), bound("Min", "min"), bound("Max", "max"),
         outputs=[n.output("Out")])


@converter("pow")
def pow_op(g, n):
    dtype = n.np_dtype("X")
    if n.has("FactorTensor"):
        factor = g.cast(g.reshape(n.input("FactorTensor"), []), dtype)
    else:
        factor = g.scalar(n.attr("factor"), dtype)
    g.op("Pow", n.input("X"), factor, outputs=[n.output("Out")])


@converter(*_UNARY)
def unary(g, n):
    g.op(_UNARY[n.type], n.input("X"), outputs=[n.output("Out")])


@converter("square")
def square(g, n):
    x = n.input("X")
    g.op("Mul", x, x, outputs=[n.output("Out")])


@converter("rsqrt")
def rsqrt(g, n):
    g.op("Reciprocal", g.op("Sqrt", n.input("X")), outputs=[n.output("Out")])


@converter("round")
def round_op(g, n):
    """Paddle rounds halves away from zero (ONNX Round: to even)."""
    x = n.input("X")
    half = g.scalar(0.5, n.np_dtype("X"))
    away = g.op("Floor", g.op("Add", g.op("Abs", x), half))
    g.op("Mul", g.op("Sign", x), away, outputs=[n.output("Out")])


@converter("increment")
def increment(g, n):
    g.op("Add", n.input("X"), g.scalar(n.attr("step"), n.np_dtype("X")),
         outputs=[n.output("Out")])


@converter("isfinite_v2")
def isfinite(g, n):
    x, out = n.input("X"), n.output("Out")
    if n.np_dtype("X").kind != "f":     # integers are always finite
        g.op("ConstantOfShape", g.shape(x), value=numpy_helper.from_array(np.array([True])),
             outputs=[out])
        return
    bad = g.op("Or", g.op("IsInf", x), g.op("IsNaN", x))
    g.op("Not", bad, outputs=[out])
