"""Math functions (``paddle.tensor.math``): elementwise unary and binary math, ``scale``,
``add_n``, sums and products, max/min, ``clip``, ``pow``, ``cumsum``, ``increment``,
``logsumexp``, ``isfinite``, ``any``/``all``; Paddle's ops, attributes and temporaries in
static mode, eager on Tensors."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._dispatch import TENSOR_TYPES, _has_static, apply_op, is_static, layer_op
from ..engine.tensor import Tensor
from ..framework import unique_name
from ..framework.context import in_dynamic_mode
from ..framework.layer_helper import LayerHelper
from ..framework.variable import Variable
from ..ops.types import VarType, convert_dtype, dtype_name
from .manipulation import cast


def _unary(op_type: str):
    def fn(x, name: str | None = None):
        return apply_op(op_type, {"X": x}, name=name)
    fn.__name__ = op_type
    fn.__doc__ = f"Elementwise ``{op_type}`` of ``x``."
    return fn


tanh = _unary("tanh")


sigmoid = _unary("sigmoid")


relu = _unary("relu")


square = _unary("square")


sqrt = _unary("sqrt")


exp = _unary("exp")


log = _unary("log")


abs = _unary("abs")  # noqa: A001  (Paddle's name)


def _layer_unary(op_type: str):
    def fn(x, name: str | None = None):
        return layer_op(op_type, op_type, {"X": x}, name=name)[0]
    fn.__name__ = op_type
    fn.__doc__ = f"Elementwise ``{op_type}`` of ``x``."
    return fn


sign, floor, round, reciprocal, rsqrt = (_layer_unary(t) for t in (  # noqa: A001
    "sign", "floor", "round", "reciprocal", "rsqrt"))

sin, cos, ceil = (_layer_unary(t) for t in ("sin", "cos", "ceil"))


def _binary(op_type: str, doc: str):
    def fn(x, y, name: str | None = None):
        return elementwise_api(op_type, x, y, name)
    fn.__name__ = op_type.replace("elementwise_", "")
    fn.__doc__ = doc
    return fn


def elementwise_api(op_type: str, x, y, name: str | None = None, out=None, axis: int = -1):
    """Paddle's ``_elementwise_op``: in static mode the output is named exactly ``name``, or
    ``<op_type>_<n>`` (its LayerHelper's own name, no ``.tmp``) unless ``out`` is given.
    ``axis`` is where ``y``'s dims start in ``x`` (Paddle's ``_add_with_axis``)."""
    inputs = {"X": x, "Y": y}
    if in_dynamic_mode() and not _has_static(inputs):
        return apply_op(op_type, inputs, {"axis": axis})
    if out is None:
        block = (x if isinstance(x, Variable) else y).block.program.current_block()
        out = block.create_var(name=name or unique_name.generate(op_type), dtype=x.dtype)
    apply_op(op_type, inputs, {"axis": axis}, outputs={"Out": out})
    return out


add = _binary("elementwise_add", "``x + y`` with broadcasting.")


subtract = _binary("elementwise_sub", "``x - y`` with broadcasting.")


multiply = _binary("elementwise_mul", "``x * y`` with broadcasting.")


divide = _binary("elementwise_div", "``x / y`` with broadcasting.")


maximum = _binary("elementwise_max", "Elementwise maximum with broadcasting.")


minimum = _binary("elementwise_min", "Elementwise minimum with broadcasting.")


def _elementwise(op_type: str):
    def fn(x, y, name: str | None = None):
        return elementwise_api(op_type, x, y, name)
    fn.__doc__ = f"Elementwise ``{op_type}`` with broadcasting."
    return fn


floor_divide = _elementwise("elementwise_floordiv")


remainder = mod = _elementwise("elementwise_mod")


def pow(x, y, name: str | None = None):  # noqa: A001  (Paddle's name)
    """``x ** y``: op ``pow`` (attr ``factor``) for a number, ``elementwise_pow`` for a Tensor."""
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        return layer_op("pow", "pow", {"X": x}, {"factor": float(y)}, name=name)[0]
    if not isinstance(y, TENSOR_TYPES):
        raise TypeError(f"y must be scalar or tensor type, but received: {type(y)} ")
    out = None
    if is_static({"X": x, "Y": y}):
        # Paddle makes a first LayerHelper's temporary and passes it as the op's ``out``, so
        # the result is elementwise_pow_<n>.tmp_0 (and the counter moves on by two).
        out = LayerHelper("elementwise_pow", name=name).create_variable_for_type_inference(
            x.dtype)
        LayerHelper("elementwise_pow")
    return elementwise_api("elementwise_pow", x, y, out=out)


def scale(x, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
          act: str | None = None, name: str | None = None):
    out = apply_op("scale", {"X": x}, {"scale": float(scale), "bias": float(bias),
                                       "bias_after_scale": bias_after_scale}, name=name)
    return apply_op(act, {"X": out}) if act else out


def add_n(inputs, name: str | None = None):
    return apply_op("sum", {"X": list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]},
                    name=name)


def _sum_or_mean(op_type: str, x, axis, keepdim: bool, name: str | None, layer: str,
            flag_all: bool):
    """Paddle 2.6's reduce attrs: ``dim`` lists the axes ([] for all of them); mean also sets
    ``reduce_all`` when every axis is reduced, sum never does."""
    axes = [] if axis is None else list(axis) if isinstance(axis, (list, tuple)) else [axis]
    ndim = len(x.shape)
    reduce_all = flag_all and (not axes or len(axes) == ndim)
    return apply_op(op_type, {"X": x}, {"dim": axes, "keep_dim": keepdim,
                                        "reduce_all": reduce_all}, name=name, layer=layer)


def sum(x, axis=None, dtype=None, keepdim: bool = False, name: str | None = None):
    return _sum_or_mean("reduce_sum", x, axis, keepdim, name, "sum", flag_all=False)


def _axes(axis: Any) -> list[int]:
    return [] if axis is None else list(axis) if isinstance(axis, (list, tuple)) else [axis]


def _layer_reduce(op_type: str, x, axis, keepdim: bool, name: str | None, bool_out: bool = False):
    axes = _axes(axis)
    reduce_all = not axes or len(axes) == len(x.shape)
    outputs = (("Out", VarType.BOOL if bool_out else None, False),)
    return layer_op(op_type, op_type, {"X": x},
                    {"dim": axes or [0], "keep_dim": keepdim, "reduce_all": reduce_all},
                    outputs=outputs, name=name)[0]


def prod(x, axis=None, keepdim: bool = False, dtype=None, name: str | None = None):
    """Product of the elements along ``axis`` (all when None)."""
    return _layer_reduce("reduce_prod", x, axis, keepdim, name)


def any(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    return _layer_reduce("reduce_any", x, axis, keepdim, name, bool_out=True)


def all(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    return _layer_reduce("reduce_all", x, axis, keepdim, name, bool_out=True)


# -- reductions and search ---------------------------------------------------------------------
def _reduce_axis(axis: Any, x) -> tuple[bool, list[int]]:
    """Paddle's ``_get_reduce_axis``: (reduce_all, dim list)."""
    if axis is None:
        axis = []
    elif isinstance(axis, (tuple, range)):
        axis = list(axis)
    elif isinstance(axis, int):
        axis = [axis]
    elif not isinstance(axis, list):
        raise TypeError(f"The type of axis must be int, list or tuple, but received "
                        f"{type(axis)}")
    return (axis == [] or len(axis) == len(x.shape)), axis


def max(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Maximum over ``axis`` (all dims when None) (``reduce_max``)."""
    reduce_all, dims = _reduce_axis(axis, x)
    return apply_op("reduce_max", {"X": x}, {"dim": dims, "keep_dim": keepdim,
                                             "reduce_all": reduce_all}, name=name, layer="max")


def min(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Minimum over ``axis`` (all dims when None) (``reduce_min``)."""
    reduce_all, dims = _reduce_axis(axis, x)
    return apply_op("reduce_min", {"X": x}, {"dim": dims, "keep_dim": keepdim,
                                             "reduce_all": reduce_all}, name=name, layer="min")


def clip(x, min: float | None = None, max: float | None = None,  # noqa: A002
         name: str | None = None):
    """Clamp ``x`` to [min, max]; a missing bound is the dtype's extreme, as in Paddle."""
    kind = dtype_name(x.dtype)
    if kind == "int32":
        low, high = np.iinfo(np.int32).min, np.iinfo(np.int32).max - 2 ** 7
    elif kind == "int64":
        low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max - 2 ** 39
    elif kind == "float16":
        low, high = float(np.finfo(np.float16).min), float(np.finfo(np.float16).max)
    else:
        low, high = float(np.finfo(np.float32).min), float(np.finfo(np.float32).max)
    inputs, attrs = {"X": x}, {"min": low, "max": high}
    for slot, bound in (("Min", min), ("Max", max)):
        if isinstance(bound, TENSOR_TYPES):
            bound.stop_gradient = True
            inputs[slot] = bound
        elif bound is not None:
            if not isinstance(bound, (int, float)):
                raise TypeError(f"The type of '{slot.lower()}' in clip must be (float, int, "
                                f"Variable), but received {type(bound)}.")
            attrs[slot.lower()] = bound
    return layer_op("clip", "clip", inputs, attrs, name=name)[0]


def cumsum(x, axis: int | None = None, dtype: Any = None, name: str | None = None):
    """Running sum along ``axis`` (of the flattened ``x`` when None)."""
    if dtype is not None and x.dtype != convert_dtype(dtype):
        x = cast(x, dtype)
    attrs = {"flatten": axis is None}
    if axis is not None:
        attrs["axis"] = axis
    return layer_op("cumsum", "cumsum", {"X": x}, attrs, name=name)[0]


def increment(x, value: float = 1.0, name: str | None = None):
    """``x += value`` in place (op ``increment``, attr ``step``)."""
    if isinstance(x, Tensor):
        x._array = apply_op("increment", {"X": x}, {"step": float(value)})._array
        return x
    LayerHelper("increment", name=name).append_op(
        type="increment", inputs={"X": [x]}, outputs={"Out": [x]}, attrs={"step": float(value)})
    return x


def isfinite(x, name: str | None = None):
    return layer_op("isfinite_v2", "isfinite_v2", {"X": x},
                    outputs=(("Out", VarType.BOOL, True),), name=name)[0]


def logsumexp(x, axis=None, keepdim: bool = False, name: str | None = None):
    """``log(sum(exp(x)))`` along ``axis``, computed stably."""
    axes = _axes(axis)
    reduce_all = not axes or len(axes) == len(x.shape)
    return layer_op("logsumexp", "logsumexp", {"X": x},
                    {"axis": axes, "keepdim": keepdim, "reduce_all": reduce_all}, name=name)[0]
