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


def _reduce_double(reduce_type: str):
    """dX = dOut spread over X's shape (/ count for a mean)  ->  d(dOut) = <reduce>(ddX)."""
    def maker(op, no_grad: set) -> list[dict]:
        dout, dx = op.input("Out@GRAD")[0], _one(op.output("X@GRAD"))
        if dx is None or grad_name(dout) in no_grad:
            return []
        declared = get_op(reduce_type).attrs
        attrs = {k: v for k, v in op.attrs.items() if k in declared}
        return [_spec(reduce_type, {"X": [grad_name(dx)]}, grad_name(dout), attrs)]
    return maker


def _sum_double(op, no_grad: set) -> list[dict]:
    """dX_i = dOut  ->  d(dOut) = sum_i ddX_i."""
    dout = op.input("Out@GRAD")[0]
    parts = [grad_name(d) for d in op.output("X@GRAD") if d != EMPTY_VAR]
    if not parts or grad_name(dout) in no_grad:
        return []
    return [_spec("sum", {"X": parts}, grad_name(dout))]


def _relu_double(op, no_grad: set) -> list[dict]:
    """dX = dOut * (Out > 0)  ->  d(dOut) = relu_grad(Out, ddX); Out gets none (a step)."""
    out, dout, dx = op.input("Out")[0], op.input("Out@GRAD")[0], _one(op.output("X@GRAD"))
    if dx is None or grad_name(dout) in no_grad:
        return []
    return [{"type": "relu_grad", "inputs": {"Out": [out], "Out@GRAD": [grad_name(dx)]},
             "outputs": {"X@GRAD": [grad_name(dout)]}, "attrs": {}}]


def _square_double(op, no_grad: set) -> list[dict]:
    """dX = dOut * 2X  ->  d(dOut) = ddX*X + ddX*X, dX' = ddX*dOut + ddX*dOut (each term one
    spec: the backward pass sums them)."""
    x, dout, dx = op.input("X")[0], op.input("Out@GRAD")[0], _one(op.output("X@GRAD"))
    if dx is None:
        return []
    specs = []
    for target, other in ((dout, x), (x, dout)):
        if grad_name(target) not in no_grad:
            specs += [_spec("elementwise_mul", {"X": [grad_name(dx)], "Y": [other]},
                            grad_name(target)) for _ in range(2)]
    return specs


def _matmul_double(op, no_grad: set) -> list[dict]:
    """2-D, untransposed: dX = dOut Y^T, dY = X^T dOut  ->  d(dOut) = ddX Y + X ddY,
    dY' = ddX^T dOut, dX' = dOut ddY^T."""
    x, y, dout = op.input("X")[0], op.input("Y")[0], op.input("Out@GRAD")[0]
    ranks = {len(op.block._var_recursive(n).shape) for n in (x, y)}
    if ranks != {2} or op.attrs.get("trans_x") or op.attrs.get("trans_y"):
        raise NotImplementedError("the double gradient of 'matmul_v2' is supported for 2-D, "
                                  f"untransposed operands only (ranks {sorted(ranks)}, "
                                  f"trans_x={op.attrs.get('trans_x')}, "
                                  f"trans_y={op.attrs.get('trans_y')})")
    dx, dy = _one(op.output("X@GRAD")), _one(op.output("Y@GRAD"))
    specs = []

    def matmul(a: str, b: str, target: str, **trans) -> None:
        if grad_name(target) not in no_grad:
            attrs = {"trans_x": False, "trans_y": False, **trans}
            specs.append({"type": "matmul_v2", "inputs": {"X": [a], "Y": [b]},
                          "outputs": {"Out": [grad_name(target)]}, "attrs": attrs})
    if dx is not None:
        matmul(grad_name(dx), y, dout)
        matmul(grad_name(dx), dout, y, trans_x=True)
    if dy is not None:
        matmul(x, grad_name(dy), dout)
        matmul(dout, grad_name(dy), x, trans_y=True)
    return specs


get_op("elementwise_add_grad").def_grad_maker(_elementwise_double(1.0))
get_op("elementwise_sub_grad").def_grad_maker(_elementwise_double(-1.0))
get_op("elementwise_mul_grad").def_grad_maker(_mul_double)
get_op("scale_grad").def_grad_maker(_scale_double)
get_op("reduce_sum_grad").def_grad_maker(_reduce_double("reduce_sum"))
get_op("reduce_mean_grad").def_grad_maker(_reduce_double("reduce_mean"))
get_op("mean_grad").def_grad_maker(_reduce_double("mean"))
get_op("sum_grad").def_grad_maker(_sum_double)
get_op("relu_grad").def_grad_maker(_relu_double)
get_op("square_grad").def_grad_maker(_square_double)
get_op("matmul_v2_grad").def_grad_maker(_matmul_double)
