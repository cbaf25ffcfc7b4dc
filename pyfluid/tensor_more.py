"""More of Paddle 2.6's tensor API: ``paddle.assign``, ``increment``, ``floor_divide``,
``remainder``, ``prod``, ``sign``/``floor``/``round``/``reciprocal``/``rsqrt``,
``logsumexp``, ``var``/``std``, ``isfinite``, ``any``/``all``, ``linalg.norm`` and
``static.create_global_var``; Paddle's ops and attributes in static mode, eager otherwise."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._dispatch import apply_op
from .eager.tensor import Tensor
from .framework.context import in_dynamic_mode
from .framework.layer_helper import LayerHelper
from .framework.variable import Variable
from .nn.initializer import Constant, NumpyArrayInitializer
from .ops.types import VarType, convert_dtype
from .tensor_manip import layer_op


def assign(x: Any, output: Any = None):
    """Copy ``x`` (a Tensor/Variable, NumPy array, list or number) into ``output`` (a new
    ``assign_<n>.tmp_0`` when None), as op ``assign`` or, for constants, ``assign_value``."""
    if not isinstance(x, (Variable, Tensor)):
        value = np.array(x)
        if value.dtype == np.float64:
            value = value.astype(np.float32)       # Paddle keeps constants in float32
        if in_dynamic_mode():
            result = Tensor(value)
            if output is None:
                return result
            output._array = result._array
            return output
        helper = LayerHelper("assign")
        output = output if output is not None else \
            helper.create_variable_for_type_inference(convert_dtype(value.dtype))
        op_type, attrs = NumpyArrayInitializer(value)._op(output, None)
        helper.append_op(type=op_type, outputs={"Out": [output]}, attrs=attrs)
        return output
    if isinstance(x, Tensor) and not isinstance(output, Variable) and output is not None:
        output._array = apply_op("assign", {"X": x})._array
        return output
    if output is None:
        return layer_op("assign", "assign", {"X": [x]})[0]
    LayerHelper("assign").append_op(type="assign", inputs={"X": [x]}, outputs={"Out": [output]})
    return output


def increment(x, value: float = 1.0, name: str | None = None):
    """``x += value`` in place (op ``increment``, attr ``step``)."""
    if isinstance(x, Tensor):
        x._array = apply_op("increment", {"X": x}, {"step": float(value)})._array
        return x
    LayerHelper("increment", name=name).append_op(
        type="increment", inputs={"X": [x]}, outputs={"Out": [x]}, attrs={"step": float(value)})
    return x


def create_global_var(shape: Sequence[int], value: float, dtype: Any, persistable: bool = False,
                      force_cpu: bool = False, name: str | None = None) -> Variable:
    """A global-block variable filled with ``value`` by the startup program."""
    helper = LayerHelper("global_var")
    var = helper.create_global_variable(
        persistable=persistable, name=name or _unique("global_var"), shape=list(shape),
        dtype=convert_dtype(dtype), type=VarType.LOD_TENSOR, stop_gradient=True)
    helper.set_variable_initializer(var, Constant(float(value)))
    return var


def _unique(key: str) -> str:
    from .framework import unique_name
    return unique_name.generate(key)


def _elementwise(op_type: str):
    def fn(x, y, name: str | None = None):
        from .tensor_api import elementwise_api
        return elementwise_api(op_type, x, y, name)
    fn.__doc__ = f"Elementwise ``{op_type}`` with broadcasting."
    return fn


floor_divide = _elementwise("elementwise_floordiv")
remainder = mod = _elementwise("elementwise_mod")


def _unary(op_type: str):
    def fn(x, name: str | None = None):
        return layer_op(op_type, op_type, {"X": x}, name=name)[0]
    fn.__name__ = op_type
    fn.__doc__ = f"Elementwise ``{op_type}`` of ``x``."
    return fn


sign, floor, round, reciprocal, rsqrt = (_unary(t) for t in (  # noqa: A001
    "sign", "floor", "round", "reciprocal", "rsqrt"))


def _axes(axis: Any) -> list[int]:
    return [] if axis is None else list(axis) if isinstance(axis, (list, tuple)) else [axis]


def _reduce(op_type: str, x, axis, keepdim: bool, name: str | None, bool_out: bool = False):
    axes = _axes(axis)
    reduce_all = not axes or len(axes) == len(x.shape)
    outputs = (("Out", VarType.BOOL if bool_out else None, False),)
    return layer_op(op_type, op_type, {"X": x},
                    {"dim": axes or [0], "keep_dim": keepdim, "reduce_all": reduce_all},
                    outputs=outputs, name=name)[0]


def prod(x, axis=None, keepdim: bool = False, dtype=None, name: str | None = None):
    """Product of the elements along ``axis`` (all when None)."""
    return _reduce("reduce_prod", x, axis, keepdim, name)


def any(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    return _reduce("reduce_any", x, axis, keepdim, name, bool_out=True)


def all(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    return _reduce("reduce_all", x, axis, keepdim, name, bool_out=True)


def isfinite(x, name: str | None = None):
    return layer_op("isfinite_v2", "isfinite_v2", {"X": x},
                    outputs=(("Out", VarType.BOOL, True),), name=name)[0]


def logsumexp(x, axis=None, keepdim: bool = False, name: str | None = None):
    """``log(sum(exp(x)))`` along ``axis``, computed stably."""
    axes = _axes(axis)
    reduce_all = not axes or len(axes) == len(x.shape)
    return layer_op("logsumexp", "logsumexp", {"X": x},
                    {"axis": axes, "keepdim": keepdim, "reduce_all": reduce_all}, name=name)[0]


def var(x, axis=None, unbiased: bool = True, keepdim: bool = False, name: str | None = None):
    """Variance along ``axis``, as Paddle composes it: mean, subtract, square, sum, divide."""
    from .tensor_api import mean, square, sum as total
    axes = _axes(axis) or list(range(len(x.shape)))
    centered = x - mean(x, axes, keepdim=True)
    count = int(np.prod([x.shape[a] for a in axes]))
    return total(square(centered), axes, keepdim=keepdim) * (
        1.0 / (count - 1 if unbiased else count))


def std(x, axis=None, unbiased: bool = True, keepdim: bool = False, name: str | None = None):
    from .tensor_api import sqrt
    return sqrt(var(x, axis, unbiased, keepdim))


def norm(x, p: Any = "fro", axis: Any = None, keepdim: bool = False, name: str | None = None):
    """Vector p-norm along one axis (op ``p_norm``), or the Frobenius / 2-norm of all of x."""
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if axis is None or p == "fro":
        if p not in ("fro", 2, 2.0) or (axis is not None and len(_axes(axis)) != 2):
            raise NotImplementedError(f"paddle.linalg.norm: p={p!r} with axis={axis!r} is not "
                                      "supported by pyfluid; give one axis for a vector norm")
        from .tensor_api import sqrt, square, sum as total
        return sqrt(total(square(x), axis, keepdim=keepdim))
    attrs = {"porder": float(p), "axis": int(axis), "epsilon": 1e-12, "keepdim": keepdim,
             "asvector": False}
    return layer_op("p_norm", "p_norm", {"X": x}, attrs, name=name)[0]


__all__ = ["all", "any", "assign", "create_global_var", "floor", "floor_divide", "increment",
           "isfinite", "logsumexp", "mod", "norm", "prod", "reciprocal", "remainder", "round",
           "rsqrt", "sign", "std", "var"]
