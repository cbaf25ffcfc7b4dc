"""Ops that create tensors: constants (fill_constant, assign_value, fill_any_like), copies,
one_hot_v2, random draws, and the ops that have no ONNX equivalent (py_func,
truncated_gaussian_random)."""
from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from ..ops.creation import assign_value_kernel, fill_constant_kernel
from ..ops.types import to_numpy_dtype
from .convert_shape import int64_list, int64_vector
from .graph import onnx_dtype
from .registry import converter, unsupported


# dy2static fills variables that have no value yet with this number (an "undefined" var)
UNDEFINED_MAGIC = np.float32(1.77113e27)


def _constant(g, n, value: np.ndarray, out: str) -> None:
    n.writer.constants[n.op.output("Out")[0]] = value
    n.writer.dtypes[out] = value.dtype
    if value.size == 1 and value.dtype.kind == "f" and np.float32(value.ravel()[0]) == \
            UNDEFINED_MAGIC:
        n.writer.placeholders.add(out)
    g.op("Identity", g.const(value), outputs=[out])


@converter("fill_constant")
def fill_constant(g, n):
    out, dtype = n.output("Out"), to_numpy_dtype(n.attr("dtype"))
    attrs = {k: n.attr(k) for k in ("shape", "value", "str_value", "dtype")}
    if not (n.has("ShapeTensor") or n.has("ShapeTensorList") or n.has("ValueTensor")):
        _constant(g, n, fill_constant_kernel(**attrs), out)
        return
    if n.has("ShapeTensor"):
        shape = int64_vector(g, n.input("ShapeTensor"))
    elif n.has("ShapeTensorList"):
        shape = int64_list(g, n.inputs("ShapeTensorList"))
    else:
        shape = g.ints(n.attr("shape"))
    if n.has("ValueTensor"):
        value = g.cast(g.reshape(n.input("ValueTensor"), []), dtype)
        g.op("Expand", value, shape, outputs=[out])
        return
    fill = fill_constant_kernel(**{**attrs, "shape": [1]})
    g.op("ConstantOfShape", shape, value=numpy_helper.from_array(fill), outputs=[out])


@converter("assign_value")
def assign_value(g, n):
    names = ("shape", "dtype", "bool_values", "fp32_values", "int32_values", "int64_values",
             "fp64_values")
    _constant(g, n, assign_value_kernel(**{k: n.attr(k) for k in names}), n.output("Out"))


@converter("assign")
def assign(g, n):
    """A copy: the value keeps its run-time dtype (and stays a placeholder if it is one)."""
    source, writer = n.op.input("X"), n.writer
    if source and source[0] in writer.constants:
        writer.constants[n.op.output("Out")[0]] = writer.constants[source[0]]
    value, out = n.input("X"), n.output("Out")
    if value in writer.dtypes:
        writer.dtypes[out] = writer.dtypes[value]
    if value in writer.placeholders:
        writer.placeholders.add(out)
    g.op("Identity", value, outputs=[out])


@converter("fill_any_like")
def fill_any_like(g, n):
    dtype = n.attr("dtype")
    np_dtype = n.np_dtype("X") if dtype in (None, -1) else to_numpy_dtype(dtype)
    fill = np.array([n.attr("value")], dtype=np_dtype)
    g.op("ConstantOfShape", g.shape(n.input("X")), value=numpy_helper.from_array(fill),
         outputs=[n.output("Out")])


@converter("one_hot_v2")
def one_hot_v2(g, n):
    """ONNX OneHot also leaves out-of-range indices all zero (allow_out_of_range)."""
    np_dtype = to_numpy_dtype(n.attr("dtype"))
    if n.has("depth_tensor"):
        depth = g.cast(g.reshape(n.input("depth_tensor"), [1]), np.int64)
    else:
        depth = g.ints([n.attr("depth")])
    values = g.const(np.array([0, 1], dtype=np_dtype))
    g.op("OneHot", n.input("X"), depth, values, axis=-1, outputs=[n.output("Out")])


def _random(g, n, op_type: str, **attrs) -> None:
    """RandomNormal / RandomUniform: the same distribution, not the same numbers."""
    dtype = to_numpy_dtype(n.attr("dtype"))
    if n.attr("seed"):
        attrs["seed"] = float(n.attr("seed"))
    if n.has("ShapeTensor") or n.has("ShapeTensorList"):
        shape = int64_vector(g, n.input("ShapeTensor")) if n.has("ShapeTensor") else \
            int64_list(g, n.inputs("ShapeTensorList"))
        zero = numpy_helper.from_array(np.zeros(1, dtype=dtype))
        like = g.op("ConstantOfShape", shape, value=zero)
        g.op(op_type + "Like", like, outputs=[n.output("Out")], **attrs)
        return
    g.op(op_type, shape=[int(d) for d in n.attr("shape")], dtype=onnx_dtype(dtype),
         outputs=[n.output("Out")], **attrs)


@converter("gaussian_random")
def gaussian_random(g, n):
    _random(g, n, "RandomNormal", mean=float(n.attr("mean")), scale=float(n.attr("std")))


@converter("uniform_random")
def uniform_random(g, n):
    if n.attr("diag_num"):
        n.fail("uniform_random with diag_num (a diagonal overwrite) has no ONNX equivalent")
    _random(g, n, "RandomUniform", low=float(n.attr("min")), high=float(n.attr("max")))


unsupported("py_func", "it runs a Python function, which ONNX cannot hold; write that "
                       "computation with pyfluid ops (or export the parts around it)")
unsupported("truncated_gaussian_random",
            "ONNX has no truncated normal draw; it initializes parameters in startup "
            "programs, which are not exported")
