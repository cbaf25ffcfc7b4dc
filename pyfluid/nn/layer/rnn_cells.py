"""Recurrent cells (``paddle.nn.SimpleRNNCell``, ``LSTMCell``, ``GRUCell``): one time step built
from elementary ops (matmul, add, split, sigmoid, tanh, multiply), as Paddle builds them.

Parameters as Paddle's: ``weight_ih`` [G * hidden, input], ``weight_hh`` [G * hidden, hidden],
``bias_ih`` and ``bias_hh`` [G * hidden], all Uniform(-1/sqrt(hidden), 1/sqrt(hidden)); an attr
of False makes a frozen constant (weights 1, biases 0) instead. Gate order: LSTM (i, f, c, o),
GRU (r, z, c) with the reset gate applied after the hidden matmul."""
from __future__ import annotations

import math
from typing import Any

from ...tensor.attribute import shape as tensor_shape
from ...tensor.creation import full
from ...tensor.linalg import matmul
from ...tensor.manipulation import split
from ...tensor.math import sigmoid, tanh
from .. import functional as F
from ..initializer import Constant, Uniform
from .layers import Layer


def _is_shape(value: Any) -> bool:
    """A shape is a list/tuple of ints; anything else nested is a structure of shapes."""
    return isinstance(value, (list, tuple)) and all(isinstance(d, int) for d in value)


def _map_shapes(fn, shapes):
    if _is_shape(shapes):
        return fn(shapes)
    return type(shapes)(_map_shapes(fn, s) for s in shapes)


def _flatten_shapes(shapes) -> list:
    return [shapes] if _is_shape(shapes) else [s for item in shapes for s in _flatten_shapes(item)]


class RNNCellBase(Layer):
    """Base of the cells: ``get_initial_states`` and the ``state_shape`` protocol."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value: float = 0.0,
                           batch_dim_idx: int = 0):
        """States filled with ``init_value``, shaped ``[batch] + shape`` (batch read from
        ``batch_ref``'s dim ``batch_dim_idx``; at run time when it is -1 in a static program)."""
        while isinstance(batch_ref, (list, tuple)):
            batch_ref = batch_ref[0]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = "float32"
        batch = batch_ref.shape[batch_dim_idx]
        if batch is None or batch < 0:
            batch = tensor_shape(batch_ref)[batch_dim_idx]
        dtypes = _flatten_shapes(dtype) if not isinstance(dtype, str) and isinstance(
            dtype, (list, tuple)) else None

        def make(state_shape):
            dims = list(state_shape) if state_shape[0] == -1 else [-1] + list(state_shape)
            dims[0] = batch
            kind = dtypes.pop(0) if dtypes else dtype
            return full(dims, init_value, kind)
        return _map_shapes(make, shapes)

    @property
    def state_shape(self):
        raise NotImplementedError("Please add implementaion for `state_shape` in the used cell.")

    @property
    def state_dtype(self):
        raise NotImplementedError("Please add implementaion for `state_dtype` in the used cell.")


def _check_hidden(cell: str, hidden_size: int) -> None:
    if hidden_size <= 0:
        raise ValueError(f"hidden_size of {cell} must be greater than 0, but now equals to "
                         f"{hidden_size}")


def _create_weights(cell: Layer, gates: int, input_size: int, hidden_size: int,
                    weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr) -> None:
    """weight_ih, weight_hh, bias_ih, bias_hh as Paddle's cells create them."""
    std = 1.0 / math.sqrt(hidden_size)
    rows = gates * hidden_size
    for name, shape, attr, is_bias in (
            ("weight_ih", (rows, input_size), weight_ih_attr, False),
            ("weight_hh", (rows, hidden_size), weight_hh_attr, False),
            ("bias_ih", (rows,), bias_ih_attr, True),
            ("bias_hh", (rows,), bias_hh_attr, True)):
        if attr is not False:
            param = cell.create_parameter(shape, attr, is_bias=is_bias,
                                          default_initializer=Uniform(-std, std))
        else:
            param = cell.create_parameter(shape, None, is_bias=is_bias,
                                          default_initializer=Constant(0.0 if is_bias else 1.0))
            param.stop_gradient = True
        setattr(cell, name, param)


def _affine(x, weight, bias):
    out = matmul(x, weight, transpose_y=True)
    return out + bias if bias is not None else out


class SimpleRNNCell(RNNCellBase):
    """h = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, input_size: int, hidden_size: int, activation: str = "tanh",
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name: str | None = None):
        super().__init__()
        _check_hidden(type(self).__name__, hidden_size)
        _create_weights(self, 1, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                        bias_ih_attr, bias_hh_attr)
        self.input_size, self.hidden_size = input_size, hidden_size
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get "
                             f"{activation}")
        self.activation = activation
        self._activation_fn = tanh if activation == "tanh" else F.relu

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        h = self._activation_fn(_affine(inputs, self.weight_ih, self.bias_ih)
                                + _affine(states, self.weight_hh, self.bias_hh))
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        extra = f", activation={self.activation}" if self.activation != "tanh" else ""
        return f"{self.input_size}, {self.hidden_size}{extra}"


class LSTMCell(RNNCellBase):
    """Gates (i, f, c, o) = x W_ih^T + b_ih + h W_hh^T + b_hh; c' = f c + i tanh(g);
    h' = o tanh(c'). States are (h, c)."""

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name: str | None = None):
        super().__init__()
        _check_hidden(type(self).__name__, hidden_size)
        _create_weights(self, 4, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                        bias_ih_attr, bias_hh_attr)
        self.hidden_size, self.input_size = hidden_size, input_size

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden, pre_cell = states
        gates = _affine(inputs, self.weight_ih, self.bias_ih)
        gates = gates + _affine(pre_hidden, self.weight_hh, self.bias_hh)
        i, f, g, o = split(gates, num_or_sections=4, axis=-1)
        i, f, o = sigmoid(i), sigmoid(f), sigmoid(o)
        c = f * pre_cell + i * tanh(g)
        h = o * tanh(c)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"


class GRUCell(RNNCellBase):
    """r, z = sigmoid(x_r + h_r), sigmoid(x_z + h_z); c = tanh(x_c + r * h_c) (reset after
    the hidden matmul); h' = z h + (1 - z) c."""

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name: str | None = None):
        super().__init__()
        _check_hidden(type(self).__name__, hidden_size)
        _create_weights(self, 3, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                        bias_ih_attr, bias_hh_attr)
        self.hidden_size, self.input_size = hidden_size, input_size

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden = states
        x_r, x_z, x_c = split(_affine(inputs, self.weight_ih, self.bias_ih), 3, axis=1)
        h_r, h_z, h_c = split(_affine(pre_hidden, self.weight_hh, self.bias_hh), 3, axis=1)
        r, z = sigmoid(x_r + h_r), sigmoid(x_z + h_z)
        c = tanh(x_c + r * h_c)
        h = (pre_hidden - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"

