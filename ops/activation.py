"""Activations and softmax-like ops."""
from __future__ import annotations

import numpy as np

from .common import axis_reduce, normalize_axis
from .registry import register_op, same_as

relu = register_op("relu", inputs=["X"], outputs=["Out"], infer_shape=same_as(),
                   fresh_outputs=True)


@relu.def_kernel
def relu_kernel(x):
    return np.maximum(x, x.dtype.type(0))


@relu.def_inplace_kernel(Out="X")
def relu_into_x(x):
    if type(x) is np.ndarray and x.ndim:
        return np.maximum(x, x.dtype.type(0), out=x)
    return relu_kernel(x)


@relu.def_grad(exact=True)
def relu_grad(out, dout):
    return dout * (out > 0)


tanh = register_op("tanh", inputs=["X"], outputs=["Out"], infer_shape=same_as(), fresh_outputs=True)
tanh.def_kernel(np.tanh)


@tanh.def_grad
def tanh_grad(out, dout):
    return dout * (1 - out * out)


sigmoid = register_op("sigmoid", inputs=["X"], outputs=["Out"], infer_shape=same_as(),
                      fresh_outputs=True)


@sigmoid.def_kernel
def sigmoid_kernel(x):
    one = x.dtype.type(1)
    return one / (one + np.exp(-x))


@sigmoid.def_grad
def sigmoid_grad(out, dout):
    return dout * out * (1 - out)


def _softmax(x, axis):
    shifted = x - axis_reduce(x, np.maximum, axis)
    e = np.exp(shifted)
    return np.divide(e, axis_reduce(e, np.add, axis), out=e)


softmax = register_op("softmax", inputs=["X"], outputs=["Out"], infer_shape=same_as(),
                      attrs={"axis": -1},
                      extra_attrs={"use_cudnn": False, "data_format": "AnyLayout"})


@softmax.def_kernel
def softmax_kernel(x, *, axis):
    return _softmax(x, normalize_axis(axis, x.ndim))


@softmax.def_grad
def softmax_grad(out, dout, *, axis):
    axis = normalize_axis(axis, out.ndim)
    return out * (dout - axis_reduce(dout * out, np.add, axis))


log_softmax = register_op("log_softmax", inputs=["X"], outputs=["Out"], infer_shape=same_as(),
                          attrs={"axis": -1})


@log_softmax.def_kernel
def log_softmax_kernel(x, *, axis):
    axis = normalize_axis(axis, x.ndim)
    shifted = x - axis_reduce(x, np.maximum, axis)
    return shifted - np.log(axis_reduce(np.exp(shifted), np.add, axis))


@log_softmax.def_grad
def log_softmax_grad(out, dout, *, axis):
    axis = normalize_axis(axis, out.ndim)
    return dout - np.exp(out) * axis_reduce(dout, np.add, axis)
