"""Tensor creation (``paddle.tensor.creation``): ``to_tensor``, ``full``/``zeros``/``ones``
and their ``*_like`` forms, ``arange``, ``tril``/``triu``, ``assign`` and
``create_global_var``. Except ``to_tensor`` they run (eager) or append (static) Paddle's creation ops with
Paddle's attributes and temporary names."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._dispatch import apply_op, layer_op
from ..engine.tensor import Tensor
from ..framework import unique_name
from ..framework.context import in_dynamic_mode
from ..framework.layer_helper import LayerHelper
from ..framework.variable import Variable
from ..ops.types import Meta, VarType, convert_dtype, dtype_name, to_numpy_dtype


_DEFAULT_FLOAT = "float32"


def _shape(shape: Any) -> list[int]:
    if isinstance(shape, Tensor):
        return [int(d) for d in shape._array.ravel()]
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [int(d) for d in shape]


def _dtype(dtype: Any, default: str = _DEFAULT_FLOAT) -> int:
    return int(convert_dtype(dtype if dtype is not None else default))


def to_tensor(data: Any, dtype: Any = None, place: Any = None,
              stop_gradient: bool = True) -> Tensor:
    """A new leaf Tensor holding a copy of ``data``. Python floats become float32 (Paddle's
    default dtype), Python ints int64; NumPy arrays keep their dtype."""
    if isinstance(data, Tensor):
        array = data._array.copy()
    else:
        array = np.array(data)
        if not isinstance(data, np.ndarray) and not isinstance(data, np.generic):
            if array.dtype.kind == "f":
                array = array.astype(_DEFAULT_FLOAT)
            elif array.dtype.kind in "iu":
                array = array.astype("int64")
    if dtype is not None:
        array = array.astype(to_numpy_dtype(dtype), copy=False)
    return Tensor._wrap(array, bool(stop_gradient))


def full_constant(shape: Any, dtype: Any, value: Any, force_cpu: bool = False,
                  out: Variable | None = None):
    """``paddle.full``: a ``fill_constant`` op with Paddle's value/str_value attrs. In static
    mode ``shape`` may be a Variable (ShapeTensor) or hold Variables (ShapeTensorList), and
    ``out`` names an existing variable to write instead of a new temporary."""
    vtype = convert_dtype(dtype)
    is_int = dtype_name(vtype) in ("int8", "uint8", "int16", "int32", "int64")
    attrs = {"shape": [], "dtype": int(vtype), "force_cpu": force_cpu,
             "value": float(int(value) if is_int else value),
             "str_value": str(int(value)) if is_int else str(float(value))}
    if in_dynamic_mode() and not _holds_variable(shape):
        return apply_op("fill_constant", {}, {**attrs, "shape": _shape(shape)})
    # Paddle's fill_constant builds two LayerHelpers and names its output after the second,
    # before the ops that make the shape tensors
    LayerHelper("fill_constant")
    helper = LayerHelper("fill_constant")
    inputs = {}
    if isinstance(shape, Variable):
        shape.stop_gradient = True
        inputs["ShapeTensor"] = _int32(shape)
    else:
        dims = list(shape) if isinstance(shape, (list, tuple)) else _shape(shape)
        attrs["shape"] = [-1 if isinstance(d, Variable) else int(d) for d in dims]
        if any(isinstance(d, Variable) for d in dims):
            inputs["ShapeTensorList"] = [_shape_item(d) for d in dims]
    if out is None:
        out = helper.create_variable_for_type_inference(vtype, stop_gradient=True)
    helper.append_op(type="fill_constant", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def fill_constant(shape: Any, dtype: Any, value: Any, force_cpu: bool = False,
                  out: Variable | None = None, name: str | None = None):
    """``paddle.tensor.fill_constant`` (Paddle 2.6): ``full`` with the argument order of the
    ``fill_constant`` op, optionally writing into ``out`` (static mode)."""
    if out is not None and in_dynamic_mode():
        result = full_constant(shape, dtype, value, force_cpu)
        out.set_value(result)
        return out
    return full_constant(shape, dtype, value, force_cpu, out=out)


def _holds_variable(shape: Any) -> bool:
    return isinstance(shape, Variable) or (
        isinstance(shape, (list, tuple)) and any(isinstance(d, Variable) for d in shape))


def _int32(dim: Variable) -> Variable:
    if convert_dtype(dim.dtype) not in (VarType.INT32, VarType.INT64):
        raise TypeError(f"a shape tensor must be int32 or int64, received "
                        f"{dtype_name(dim.dtype)} ('{dim.name}')")
    if convert_dtype(dim.dtype) == VarType.INT64:
        from .manipulation import cast   # manipulation builds on this module
        return cast(dim, "int32")
    return dim


def _shape_item(dim: Any) -> Variable:
    """One ShapeTensorList entry: a Variable dim as int32, an int as a CPU int32 scalar."""
    if isinstance(dim, Variable):
        dim.stop_gradient = True
        return _int32(dim)
    return full_constant([], "int32", int(dim), force_cpu=True)


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None, name: str | None = None):
    """A ``fill_constant`` op (Paddle's attrs and, in static mode, temporary names)."""
    return full_constant(shape, _dtype(dtype), fill_value)


def zeros(shape: Sequence[int], dtype: Any = None, name: str | None = None):
    return full(shape, 0.0, dtype)


def ones(shape: Sequence[int], dtype: Any = None, name: str | None = None):
    return full(shape, 1.0, dtype)


def full_like(x, fill_value: Any, dtype: Any = None, name: str | None = None):
    return apply_op("fill_any_like", {"X": x}, {"value": float(fill_value),
                                                "dtype": -1 if dtype is None else _dtype(dtype)},
                    layer="full_like")


def zeros_like(x, dtype: Any = None, name: str | None = None):
    return full_like(x, 0.0, dtype)


def ones_like(x, dtype: Any = None, name: str | None = None):
    return full_like(x, 1.0, dtype)


def arange(start: Any = 0, end: Any = None, step: Any = 1, dtype: Any = None,
           name: str | None = None):
    """Values in [start, end) by step (op ``range``): int64 when every bound is an integer
    (or an integer tensor), else float32. Bounds may be tensors; in static mode Python numbers
    become CPU ``fill_constant`` ops, as in Paddle."""
    if end is None:
        start, end = 0, start
    bounds = (start, end, step)
    if dtype is None:
        dtype = "int64"
        for v in bounds:
            integral = (convert_dtype(v.dtype) in (VarType.INT32, VarType.INT64)
                        if isinstance(v, (Tensor, Variable)) else isinstance(v, (int, np.integer)))
            if not integral:
                dtype = _DEFAULT_FLOAT
                break
    vtype = convert_dtype(dtype)
    if not any(isinstance(v, Variable) for v in bounds) and in_dynamic_mode():
        values = [v._array.reshape(()) if isinstance(v, Tensor) else v for v in bounds]
        tensors = [Tensor._wrap(np.array([v], dtype=to_numpy_dtype(vtype))) for v in values]
        return apply_op("range", dict(zip(("Start", "End", "Step"), tensors)))
    from .manipulation import cast   # manipulation builds on this module
    known = None if any(isinstance(v, Variable) for v in bounds) else [
        int(np.ceil((end - start) / step))]
    inputs = {}
    for slot, v in zip(("Start", "End", "Step"), bounds):
        if isinstance(v, Variable):
            inputs[slot] = v if convert_dtype(v.dtype) == vtype else cast(v, vtype)
        else:
            inputs[slot] = full_constant([1], vtype, v, force_cpu=True)
            inputs[slot].op._set_attr("op_device", "cpu")   # Paddle's device_guard("cpu")
    helper = LayerHelper("range", name=name)
    out = helper.create_variable_for_type_inference(vtype, stop_gradient=True)
    helper.append_op(type="range", inputs=inputs, outputs={"Out": out})
    if known is not None:
        out._set_meta(Meta(tuple(known), vtype))   # Paddle sets the shape it can compute
    return out


def assign(x: Any, output: Any = None):
    """Copy ``x`` (a Tensor/Variable, NumPy array, list or number) into ``output`` (a new
    ``assign_<n>.tmp_0`` when None), as op ``assign`` or, for constants, ``assign_value``."""
    if not isinstance(x, (Variable, Tensor)):
        from ..nn.initializer import NumpyArrayInitializer   # nn builds on this module
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
    if output is x:
        return output                   # Paddle appends nothing for assign(x, output=x)
    if isinstance(x, Tensor) and isinstance(output, Tensor):
        result = apply_op("assign", {"X": x})
        # in place, as Paddle's assign_out_: ``output`` becomes the result (gradients included)
        output._array, output._node = result._array, result._node
        output._out_index, output.stop_gradient = result._out_index, result.stop_gradient
        output._version += 1
        return output
    if output is None:
        return layer_op("assign", "assign", {"X": [x]})[0]
    LayerHelper("assign").append_op(type="assign", inputs={"X": [x]}, outputs={"Out": [output]})
    return output


def create_global_var(shape: Sequence[int], value: float, dtype: Any, persistable: bool = False,
                      force_cpu: bool = False, name: str | None = None) -> Variable:
    """A global-block variable filled with ``value`` by the startup program."""
    from ..nn.initializer import Constant   # nn builds on this module
    helper = LayerHelper("global_var")
    var = helper.create_global_variable(
        persistable=persistable, name=name or _unique("global_var"), shape=list(shape),
        dtype=convert_dtype(dtype), type=VarType.LOD_TENSOR, stop_gradient=True)
    helper.set_variable_initializer(var, Constant(float(value)))
    return var


def _unique(key: str) -> str:
    return unique_name.generate(key)


def _tril_triu(api: str, x, diagonal: int, name: str | None):
    if len(x.shape) < 2:
        raise ValueError(f"x shape in {api} must be at least 2-D")
    if not isinstance(diagonal, int) or isinstance(diagonal, bool):
        raise TypeError(f"diagonal in {api} must be a python Int")
    attrs = {"diagonal": diagonal, "lower": api == "tril"}
    if in_dynamic_mode() and not isinstance(x, Variable):
        return apply_op("tril_triu", {"X": x}, attrs)
    helper = LayerHelper(api, name=name)     # Paddle names the output tril_<n> / triu_<n>
    out = helper.create_variable(name=helper.name, dtype=x.dtype, persistable=False)
    helper.append_op(type="tril_triu", inputs={"X": x}, outputs={"Out": out}, attrs=attrs)
    return out


def tril(x, diagonal: int = 0, name: str | None = None):
    """The lower triangle of the last two dims of ``x`` (op ``tril_triu``, lower=True)."""
    return _tril_triu("tril", x, diagonal, name)


def triu(x, diagonal: int = 0, name: str | None = None):
    """The upper triangle of the last two dims of ``x`` (op ``tril_triu``, lower=False)."""
    return _tril_triu("triu", x, diagonal, name)
