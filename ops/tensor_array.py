"""Tensor arrays (Paddle's LOD_TENSOR_ARRAY variables): write_to_array, read_from_array,
lod_array_length, tensor_array_to_tensor and its grad.

An array's value is a Python list of ndarrays; a slot written past the end leaves gaps
(None). Kernels stay pure: ``write_to_array`` returns a new list (it takes the array's current
value through ``reads_outputs``), and elements are copied in and out, so no array shares a
buffer with a tensor outside it. The grads of the read and write ops are each other (Paddle's
grad makers): the grad of an array is an array, and several of them are added by ``sum``.
"""
from __future__ import annotations

import numpy as np

from .common import normalize_axis
from .registry import grad_name, register_op
from .types import Meta, VarType


def array_offset(i: np.ndarray, op_type: str) -> int:
    """The index held by the one-element int64 tensor ``i``."""
    i = np.asarray(i)
    if i.size != 1:
        raise ValueError(f"(InvalidArgument) {op_type}: the subscript index I must hold one "
                         f"element, but it has shape {list(i.shape)}")
    return int(i.reshape(-1)[0])


def _same_as_x(x, i, *_):
    return x


# -- write_to_array: Out[I] = X ------------------------------------------------------------------
write_to_array = register_op("write_to_array", inputs=["X", "I"], outputs=["Out"],
                             reads_outputs=["Out"], infer_shape=_same_as_x)


@write_to_array.def_kernel
def write_to_array_kernel(x, i, array):
    offset = array_offset(i, "write_to_array")
    result = list(array) if array is not None else []
    if x is None:
        return result
    if offset >= len(result):
        result.extend([None] * (offset + 1 - len(result)))
    result[offset] = np.array(x, copy=True)
    return result


@write_to_array.def_grad_maker
def write_to_array_grad(op, no_grad_names: set) -> list[dict]:
    x, array = op.input("X")[0], op.output("Out")[0]
    if grad_name(x) in no_grad_names:
        return []
    return [{"type": "read_from_array",
             "inputs": {"X": [grad_name(array)], "I": op.input("I"), "X_W": [x]},
             "outputs": {"Out": [grad_name(x)]}, "attrs": {}}]


# -- read_from_array: Out = X[I] ------------------------------------------------------------------
def _read_shape(x, i, x_w=None):
    """An element of the array, or (as the grad of a write) a tensor like the one written."""
    return x_w if x_w is not None else x


read_from_array = register_op("read_from_array", inputs=["X", "I", "X_W?"], outputs=["Out"],
                              reads_outputs=["Out"], infer_shape=_read_shape)


@read_from_array.def_kernel
def read_from_array_kernel(array, i, x_w, current):
    """``array[i]``; past the end, Out keeps its value, or (used as the grad of a write,
    ``X_W`` given) becomes zeros like the written tensor."""
    offset = array_offset(i, "read_from_array")
    if array is not None and offset < len(array):
        element = array[offset]
        if element is not None:
            return element.copy()
        if x_w is None:
            raise ValueError("(PreconditionNotMet) Tensor holds no memory. Call "
                             "Tensor::mutable_data firstly.")
    return np.zeros_like(x_w) if x_w is not None else current


@read_from_array.def_grad_maker
def read_from_array_grad(op, no_grad_names: set) -> list[dict]:
    array, out = op.input("X")[0], op.output("Out")[0]
    if grad_name(array) in no_grad_names:
        return []
    return [{"type": "write_to_array", "inputs": {"X": [grad_name(out)], "I": op.input("I")},
             "outputs": {"Out": [grad_name(array)]}, "attrs": {}}]


# -- lod_array_length -------------------------------------------------------------------------
register_op("lod_array_length", inputs=["X"], outputs=["Out"], differentiable=False,
            infer_shape=lambda x: Meta((1,), VarType.INT64)).def_kernel(
    lambda array: np.array([len(array) if array is not None else 0], dtype=np.int64))


# -- tensor_array_to_tensor: concat or stack the elements along axis ----------------------------
def _to_tensor_shape(x, *, axis, use_stack):
    shape = list(x.shape)
    if use_stack:
        shape.insert(normalize_axis(axis, len(shape) + 1), -1)
    elif shape:
        shape[normalize_axis(axis, len(shape))] = -1
    return Meta(tuple(shape), x.dtype), Meta((), VarType.INT32)


to_tensor = register_op("tensor_array_to_tensor", inputs=["X"], outputs=["Out", "OutIndex"],
                        attrs={"axis": 0, "use_stack": False}, infer_shape=_to_tensor_shape,
                        runtime_shaped=["OutIndex"])    # declared 0-D, as Paddle leaves it


def _elements(array) -> list:
    elements = [a for a in (array or ()) if a is not None]
    if not elements:
        raise ValueError("(InvalidArgument) Input tensorarray size should > 0,but the received "
                         "is 0")
    return elements


@to_tensor.def_kernel
def tensor_array_to_tensor_kernel(array, *, axis, use_stack):
    elements = _elements(array)
    if use_stack:
        first = elements[0]
        for k, e in enumerate(elements[1:], 1):
            if e.shape != first.shape:
                dim = next(d for d, (a, b) in enumerate(zip(first.shape, e.shape)) if a != b) \
                    if e.ndim == first.ndim else 0
                raise ValueError(f"(InvalidArgument) The {dim}-th dimension of input[0] and "
                                 f"input[{k}] is expected to be equal.But received input[0]'s "
                                 f"shape = {list(first.shape)}, input[{k}]'s shape = "
                                 f"{list(e.shape)}.")
        out = np.stack(elements, axis=axis)
        sizes = [1] * len(elements)
    else:
        out = np.concatenate(elements, axis=axis)
        sizes = [e.shape[normalize_axis(axis, e.ndim)] for e in elements]
    return out, np.array(sizes, dtype=np.int32)


@to_tensor.def_grad(exact=True)
def tensor_array_to_tensor_grad(x, dout, *, axis, use_stack):
    """The pieces of ``dout`` that each element produced (gaps stay gaps)."""
    grads, start = [], 0
    for element in (x or ()):
        if element is None:
            grads.append(None)
            continue
        if use_stack:
            piece = np.take(dout, start, axis=axis)
            start += 1
        else:
            ax = normalize_axis(axis, element.ndim)
            size = element.shape[ax]
            piece = np.take(dout, range(start, start + size), axis=ax)
            start += size
        grads.append(np.ascontiguousarray(piece))
    return grads


def sum_arrays(arrays: list) -> list:
    """Element-wise sum of several arrays (the ``sum`` op on LOD_TENSOR_ARRAY values); gaps
    and missing elements count as absent."""
    length = max((len(a) for a in arrays if a is not None), default=0)
    result = []
    for k in range(length):
        parts = [a[k] for a in arrays if a is not None and k < len(a) and a[k] is not None]
        total = parts[0].copy() if parts else None
        for part in parts[1:]:
            total += part
        result.append(total)
    return result
