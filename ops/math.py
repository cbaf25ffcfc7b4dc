"""Math ops: scale, the unary math ops (square, sqrt, exp, log, abs, sign, floor, ceil, round,
reciprocal, rsqrt, sin, cos), pow, clip, cumsum, sum (add_n) and increment."""
from __future__ import annotations

import numpy as np

from .common import normalize_axis
from .registry import register_op, same_as
from .tensor_array import sum_arrays
from .types import Meta

# -- scale --------------------------------------------------------------------------------------
scale = register_op("scale", inputs=["X", "ScaleTensor?"], outputs=["Out"],
                    attrs={"scale": 1.0, "bias": 0.0, "bias_after_scale": True},
                    no_grad=["ScaleTensor"], never_raises=True,
                    infer_shape=lambda x, scale_tensor=None, **_: x)


_NEP50 = int(np.__version__.split(".")[0]) >= 2


def _operand(value, dtype):
    """``value`` in ``dtype`` as an operand of an array of that dtype: a Python scalar, which
    NumPy 2 casts to the array's dtype (NEP 50) and handles faster than a NumPy scalar, unless
    the value does not fit that kind (a fraction for an int array). NumPy 1 promotes a 0-D
    float32 array times a Python float to float64, so there the operand is a NumPy scalar."""
    if not _NEP50:
        return dtype.type(value)
    if dtype.kind == "f":
        return float(value)
    if dtype.kind in "iu" and float(value).is_integer():
        return int(value)
    return dtype.type(value)


@scale.def_kernel
def scale_kernel(x, scale_tensor=None, *, scale, bias, bias_after_scale):
    s = _operand(scale_tensor.reshape(()) if scale_tensor is not None else scale, x.dtype)
    b = _operand(bias, x.dtype)
    if bias_after_scale:
        if s == 1 and bias:
            return x + b                   # x * 1 is x, bit for bit
        return x * s + b if bias else x * s
    return (x + b) * s


@scale.def_specialize
def scale_fast(*, scale, bias, bias_after_scale):
    """``x * scale + bias`` with its operands converted once per dtype."""
    if not bias_after_scale:
        return None
    operands: dict = {}

    def kernel(x, scale_tensor=None):
        if scale_tensor is not None:
            return scale_kernel(x, scale_tensor, scale=scale, bias=bias, bias_after_scale=True)
        pair = operands.get(x.dtype)
        if pair is None:
            pair = operands[x.dtype] = (_operand(scale, x.dtype), _operand(bias, x.dtype))
        s, b = pair
        if s == 1 and b:
            return x + b                       # x * 1 is x, bit for bit
        return x * s + b if b else x * s
    return kernel


@scale.def_grad(never_raises=True)
def scale_grad(scaletensor, dout, *, scale):
    s = scaletensor.reshape(()) if scaletensor is not None else scale
    return dout * dout.dtype.type(s), None


# -- unary math ops ---------------------------------------------------------------------------
def _unary(op_type: str, kernel, **kwargs):
    op = register_op(op_type, inputs=["X"], outputs=["Out"], infer_shape=same_as(), **kwargs)
    op.def_kernel(kernel)
    return op


square = _unary("square", np.square)


@square.def_grad(never_raises=True)
def square_grad(x, dout):
    return dout * (x + x)


sqrt = _unary("sqrt", np.sqrt)


@sqrt.def_grad(never_raises=True)
def sqrt_grad(out, dout):
    return dout * out.dtype.type(0.5) / out


exp = _unary("exp", np.exp)


@exp.def_grad(never_raises=True)
def exp_grad(out, dout):
    return dout * out


log = _unary("log", np.log)


@log.def_grad(never_raises=True)
def log_grad(x, dout):
    return dout / x


abs_op = _unary("abs", np.abs)


@abs_op.def_grad(never_raises=True)
def abs_grad(x, dout):
    return dout * np.sign(x)


def _zero_grad(x, dout):
    """Piecewise-constant ops: Paddle's gradient is zero."""
    return np.zeros_like(dout)


def _round_half_away(x):
    """Paddle's round: halves go away from zero (NumPy's goes to even)."""
    return np.copysign(np.floor(np.abs(x) + x.dtype.type(0.5)), x)


for _op_type, _kernel in (("sign", np.sign), ("floor", np.floor), ("round", _round_half_away),
                          ("ceil", np.ceil)):
    _unary(_op_type, _kernel).def_grad(_zero_grad)

reciprocal = _unary("reciprocal", lambda x: np.reciprocal(x))


@reciprocal.def_grad
def reciprocal_grad(out, dout):
    return -dout * out * out


rsqrt = _unary("rsqrt", lambda x: 1 / np.sqrt(x))


@rsqrt.def_grad
def rsqrt_grad(out, dout):
    return dout * out.dtype.type(-0.5) * out * out * out


sin = _unary("sin", np.sin)


@sin.def_grad
def sin_grad(x, dout):
    return dout * np.cos(x)


cos = _unary("cos", np.cos)


@cos.def_grad
def cos_grad(x, dout):
    return -dout * np.sin(x)


# -- pow: x ** factor (paddle.pow with a Python number) ----------------------------------------
pow_op = register_op("pow", inputs=["X", "FactorTensor?"], outputs=["Out"],
                     attrs={"factor": 1.0}, no_grad=["FactorTensor"],
                     infer_shape=lambda x, factor_tensor=None, **_: x)


def _factor(x, factor_tensor, factor):
    return x.dtype.type(factor_tensor.reshape(()) if factor_tensor is not None else factor)


@pow_op.def_kernel
def pow_kernel(x, factor_tensor=None, *, factor):
    return np.power(x, _factor(x, factor_tensor, factor))


@pow_op.def_grad
def pow_grad(x, factortensor, dout, *, factor):
    f = _factor(x, factortensor, factor)
    return dout * f * np.power(x, f - 1), None


# -- clip: Paddle's bounds come from the attrs unless the Min / Max tensors are given ----------
clip = register_op("clip", inputs=["X", "Min?", "Max?"], outputs=["Out"],
                   attrs={"min": 0.0, "max": 0.0}, no_grad=["Min", "Max"],
                   infer_shape=lambda x, *_, **__: x)


def _bounds(x, min_tensor, max_tensor, min, max):
    lo = min_tensor.reshape(()) if min_tensor is not None else min
    hi = max_tensor.reshape(()) if max_tensor is not None else max
    return x.dtype.type(lo), x.dtype.type(hi)


@clip.def_kernel
def clip_kernel(x, min_tensor=None, max_tensor=None, *, min, max):
    lo, hi = _bounds(x, min_tensor, max_tensor, min, max)
    if lo > hi:
        raise ValueError(f"clip: min ({lo}) must be less than or equal to max ({hi})")
    return np.clip(x, lo, hi)


@clip.def_grad
def clip_grad(x, out, dout):
    # The bounds may be tensors, so the mask comes from where clipping left x unchanged.
    return dout * (out == x), None, None


# -- cumsum ----------------------------------------------------------------------------------------
cumsum = register_op("cumsum", inputs=["X"], outputs=["Out"],
                     attrs={"axis": -1, "flatten": False, "exclusive": False, "reverse": False})


@cumsum.def_infer_shape
def cumsum_shape(x: Meta, *, flatten, **_):
    if flatten:
        return Meta((-1 if -1 in x.shape else int(np.prod(x.shape, dtype=np.int64)),), x.dtype)
    return x


def _cumsum(x, axis, exclusive, reverse):
    if x.ndim == 0:
        return np.zeros_like(x) if exclusive else x.copy()
    ax = normalize_axis(axis, x.ndim)
    data = np.flip(x, ax) if reverse else x
    out = np.cumsum(data, axis=ax, dtype=x.dtype)
    if exclusive:
        out = out - data
    return np.flip(out, ax).copy() if reverse else out


@cumsum.def_kernel
def cumsum_kernel(x, *, axis, flatten, exclusive, reverse):
    return _cumsum(x.reshape(-1) if flatten else x, axis, exclusive, reverse)


@cumsum.def_grad
def cumsum_grad(x, dout, *, axis, flatten, exclusive, reverse):
    return _cumsum(dout, -1 if flatten else axis, exclusive, not reverse).reshape(x.shape)


# -- sum (paddle.add_n) ----------------------------------------------------------------------
sum_op = register_op("sum", inputs=["X*"], outputs=["Out"],
                     extra_attrs={"use_mkldnn": False, "mkldnn_data_type": "float32"},
                     infer_shape=lambda xs, **_: xs[0], never_raises=True)


@sum_op.def_kernel
def sum_kernel(xs):
    if type(xs[0]) is list:          # tensor arrays (the grad of an array read twice)
        return sum_arrays(xs)
    if len(xs) == 1:
        return xs[0].copy()
    out = np.asarray(np.add(xs[0], xs[1]))  # 0-D inputs give a NumPy scalar
    for x in xs[2:]:
        np.add(out, x, out=out)
    return out


@sum_op.def_grad
def sum_grad(x, dout):
    return [dout] * len(x)


# -- increment ---------------------------------------------------------------------------------
increment = register_op("increment", inputs=["X"], outputs=["Out"], attrs={"step": 1.0},
                        infer_shape=same_as(), differentiable=False, undone_in_backward=True)
increment.def_kernel(lambda x, *, step: x + x.dtype.type(step))


@increment.def_grad_maker
def increment_undo(op, no_grad_names: set) -> list[dict]:
    """Paddle's grad of an in-place ``i = increment(i)``: ``increment(-step)`` back, so the
    array grad ops before it in the backward read the index the forward ops read."""
    x, out = op.input("X")[0], op.output("Out")[0]
    if x != out:
        return []           # X keeps its value: nothing to undo
    return [{"type": "increment", "inputs": {"X": [out]}, "outputs": {"Out": [x]},
             "attrs": {"step": -float(op.attrs.get("step", 1.0))}}]
