"""Tensor creation (``paddle.tensor.creation``): ``to_tensor``, ``full``/``zeros``/``ones``
and their ``*_like`` forms, ``arange``, ``assign`` and ``create_global_var``. Except
``to_tensor``/``arange`` they run (eager) or append (static) Paddle's creation ops with
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
from ..ops.types import VarType, convert_dtype, dtype_name, to_numpy_dtype


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


def full_constant(shape: Sequence[int], dtype: Any, value: Any):
    """``paddle.full``: a ``fill_constant`` op with Paddle's value/str_value attrs."""
    vtype = convert_dtype(dtype)
    is_int = dtype_name(vtype) in ("int8", "uint8", "int16", "int32", "int64")
    attrs = {"shape": [int(d) for d in shape], "dtype": int(vtype), "force_cpu": False,
             "value": float(int(value) if is_int else value),
             "str_value": str(int(value)) if is_int else str(float(value))}
    if not in_dynamic_mode():
        # Paddle's fill_constant builds two LayerHelpers and names its output after the second
        LayerHelper("fill_constant")
    return apply_op("fill_constant", {}, attrs, layer="fill_constant")


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None, name: str | None = None):
    """A ``fill_constant`` op (Paddle's attrs and, in static mode, temporary names)."""
    return full_constant(_shape(shape), _dtype(dtype), fill_value)


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
           name: str | None = None) -> Tensor:
    """Evenly spaced values in [start, end); int64 for integer arguments, else float32."""
    if end is None:
        start, end = 0, start
    values = [float(v) if isinstance(v, Tensor) else v for v in (start, end, step)]
    is_int = all(isinstance(v, (int, np.integer)) for v in values)
    default = "int64" if is_int else _DEFAULT_FLOAT
    return Tensor._wrap(np.arange(*values).astype(to_numpy_dtype(dtype or default)))


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
