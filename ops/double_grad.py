"""Grad makers for grad ops (double gradients), written as ordinary differentiable ops.

Each maker returns specs whose outputs are contributions to a gradient; when two specs write
the same gradient, the backward pass sums them (so ``ddX*Y + ddY*X`` is two specs)."""
from __future__ import annotations

from .registry import EMPTY_VAR, get_op, grad_name


def _spec(op_type: str, inputs: dict, out: str, attrs: dict | None = None) -> dict:
    return {"type": op_type, "inputs": inputs, "outputs": {"Out": [out]}, "attrs": attrs or {}}


def _one(names: list[str]) -> str | None:
    return names[0] if names and names[0] != EMPTY_VAR else None


def _same_shapes(op, *names: str) -> None:
    shapes = {tuple(op.block._var_recursive(n).shape) for n in names}
    if len(shapes) > 1:
        raise NotImplementedError(f"the double gradient of '{op.type}' with broadcasting is not "
                                  f"supported (shapes {sorted(shapes)})")


def _elementwise_double(sign_y: float):
    """For dX = dOut and dY = sign_y * dOut (elementwise_add/sub): d(dOut) = ddX + sign_y*ddY."""
    def maker(op, no_grad: set) -> list[dict]:
        dout = op.input("Out@GRAD")[0]
        if grad_name(dout) in no_grad:
            return []
        specs = []
        for slot, s in (("X@GRAD", 1.0), ("Y@GRAD", sign_y)):
            d = _one(op.output(slot))
            if d is not None:
                specs.append(_spec("scale", {"X": [grad_name(d)]}, grad_name(dout), {"scale": s}))
        return specs
    return maker


def _mul_double(op, no_grad: set) -> list[dict]:
    """dX = dOut*Y, dY = dOut*X  ->  d(dOut) = ddX*Y + ddY*X, dX' = ddY*dOut, dY' = ddX*dOut."""
    x, y, dout = op.input("X")[0], op.input("Y")[0], op.input("Out@GRAD")[0]
    _same_shapes(op, x, y, dout)
    dx, dy = _one(op.output("X@GRAD")), _one(op.output("Y@GRAD"))
    specs = []
    for d, other_value, other_grad_target in ((dx, y, y), (dy, x, x)):
        if d is None:
            continue
        if grad_name(dout) not in no_grad:
            specs.append(_spec("elementwise_mul", {"X": [grad_name(d)], "Y": [other_value]},
                               grad_name(dout)))
        if grad_name(other_grad_target) not in no_grad:
            specs.append(_spec("elementwise_mul", {"X": [grad_name(d)], "Y": [dout]},
                               grad_name(other_grad_target)))
    return specs


def _scale_double(op, no_grad: set) -> list[dict]:
    """dX = scale * dOut  ->  d(dOut) = scale * ddX."""
    dout, dx = op.input("Out@GRAD")[0], _one(op.output("X@GRAD"))
    if dx is None or grad_name(dout) in no_grad:
        return []
    return [_spec("scale", {"X": [grad_name(dx)]}, grad_name(dout),
                  {"scale": op.attrs.get("scale", 1.0)})]


get_op("elementwise_add_grad").def_grad_maker(_elementwise_double(1.0))
get_op("elementwise_sub_grad").def_grad_maker(_elementwise_double(-1.0))
get_op("elementwise_mul_grad").def_grad_maker(_mul_double)
get_op("scale_grad").def_grad_maker(_scale_double)
