"""Recurrent networks: ``RNN`` / ``BiRNN`` run a cell over the time steps, and ``SimpleRNN``,
``LSTM``, ``GRU`` (``RNNBase``) run whole stacks through Paddle 2.6's single ``rnn`` op.

As in Paddle, the stacks keep their parameters in cells (``lstm_cell_0.w_0``...), expose them
as ``weight_ih_l0``, ``bias_hh_l0_reverse``..., and hand them to the op weights first, then
biases. Their constructor also makes Paddle's cuDNN-packing leftovers, so static programs match
Paddle's: a zero-filled flat parameter (``lstm_0.w_0``) packed by a ``coalesce_tensor`` op in
the startup program, and the ``dropout_state`` variable.

``RNN(cell)`` follows Paddle's dynamic-graph loop (masking the state update past each
sequence's length; the outputs there are the cell's). In a static program Paddle 2.6 builds a
``StaticRNN`` (the ``recurrent`` op, which pyfluid does not have); pyfluid unrolls the steps
instead, which needs the time dimension known."""
from __future__ import annotations

import math

from ..._dispatch import apply_op, is_static
from ...engine.tensor import Tensor
from ...framework.context import in_dynamic_mode
from ...framework.layer_helper import LayerHelper
from ...framework.context import default_startup_program
from ...framework.variable import Variable
from ...ops.types import VarType, convert_dtype
from ...tensor.attribute import shape as tensor_shape
from ...tensor.creation import arange, full
from ...tensor.logic import less_than
from ...tensor.manipulation import cast, concat, stack, transpose, unsqueeze
from ..initializer import Constant
from .container import LayerList
from .layers import Layer
from .rnn_cells import GRUCell, LSTMCell, SimpleRNNCell

_BIDIRECTIONAL = ("bidirectional", "bidirect")


def _map(fn, *structures):
    """``fn`` over matching leaves of nested tuples/lists (Paddle's map_structure)."""
    first = structures[0]
    if isinstance(first, (list, tuple)):
        return type(first)(_map(fn, *items) for items in zip(*structures))
    return fn(*structures)


def _step_mask(sequence_length, steps: int, dtype):
    """[T, B, 1]: 1 where step t < the sequence's length (Paddle's sequence_mask, time-major)."""
    times = unsqueeze(arange(steps, dtype="int64"), [1])
    lengths = unsqueeze(cast(sequence_length, "int64"), [0])
    return unsqueeze(cast(less_than(times, lengths), dtype), [2])


def rnn(cell, inputs, initial_states=None, sequence_length=None, time_major: bool = False,
        is_reverse: bool = False, **kwargs):
    """Run ``cell`` over the time steps of ``inputs``; returns (outputs, final states)."""
    time_axis = 0 if time_major else 1
    steps = inputs.shape[time_axis]
    if steps is None or steps < 0:
        raise NotImplementedError(
            "paddle.nn.RNN in a static program: the time dimension of the inputs must be known "
            "(pyfluid unrolls the steps where Paddle runs a recurrent op); use paddle.nn.LSTM/"
            "GRU/SimpleRNN (one rnn op) for inputs of unknown length")
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs,
                                                 batch_dim_idx=1 if time_major else 0)
    if not time_major:
        inputs = transpose(inputs, [1, 0] + list(range(2, len(inputs.shape))))
    mask = None if sequence_length is None else _step_mask(sequence_length, steps, inputs.dtype)
    states, outputs = initial_states, [None] * steps
    for t in (range(steps - 1, -1, -1) if is_reverse else range(steps)):
        out, new_states = cell(inputs[t], states, **kwargs)
        if mask is not None:
            keep = mask[t]
            new_states = _map(lambda old, new: new * keep + old * (1.0 - keep), states,
                              new_states)
        states, outputs[t] = new_states, out
    return stack(outputs, axis=time_axis), states


def birnn(cell_fw, cell_bw, inputs, initial_states=None, sequence_length=None,
          time_major: bool = False, **kwargs):
    """A forward and a backward pass of two cells, outputs concatenated on the last axis."""
    states_fw, states_bw = (initial_states if initial_states is not None else (None, None))
    out_fw, states_fw = rnn(cell_fw, inputs, states_fw, sequence_length, time_major, **kwargs)
    out_bw, states_bw = rnn(cell_bw, inputs, states_bw, sequence_length, time_major,
                            is_reverse=True, **kwargs)
    return concat([out_fw, out_bw], axis=-1), (states_fw, states_bw)


class RNN(Layer):
    """Wraps a cell into a network over time: ``RNN(LSTMCell(16, 32))(x)``."""

    def __init__(self, cell, is_reverse: bool = False, time_major: bool = False):
        super().__init__()
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return rnn(self.cell, inputs, initial_states=initial_states,
                   sequence_length=sequence_length, time_major=self.time_major,
                   is_reverse=self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A forward and a backward cell over the same inputs; outputs concatenated."""

    def __init__(self, cell_fw, cell_bw, time_major: bool = False):
        super().__init__()
        self.cell_fw, self.cell_bw = cell_fw, cell_bw
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not equals"
                             f"that of backward cell({cell_bw.input_size})")
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if isinstance(initial_states, (list, tuple)) and len(initial_states) != 2:
            raise ValueError("length of initial_states should be 2 when it is a list/tuple")
        return birnn(self.cell_fw, self.cell_bw, inputs, initial_states, sequence_length,
                     self.time_major, **kwargs)


class RNNBase(LayerList):
    """The stacks: ``num_layers`` layers of cells, one or two directions, run by op ``rnn``."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, activation: str = "tanh"):
        super().__init__()
        if bias_ih_attr is False or bias_hh_attr is False:
            # Paddle 2.6 fails here too (its flatten_parameters indexes past its weight list)
            raise ValueError(f"{type(self).__name__} needs both biases: bias_ih_attr=False / "
                             "bias_hh_attr=False are not supported (as in Paddle 2.6); use "
                             "paddle.nn.RNN / BiRNN over cells for a network without biases")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.dropout, self.time_major, self.num_layers = dropout, time_major, num_layers
        self.num_directions = 2 if direction in _BIDIRECTIONAL else 1
        self.state_components = 2 if mode == "LSTM" else 1
        attrs = {"weight_ih_attr": weight_ih_attr, "weight_hh_attr": weight_hh_attr,
                 "bias_ih_attr": bias_ih_attr, "bias_hh_attr": bias_hh_attr}
        cell_cls = {"LSTM": LSTMCell, "GRU": GRUCell}.get(mode, SimpleRNNCell)
        if cell_cls is SimpleRNNCell:
            attrs["activation"] = activation
        if direction == "forward":
            for layer in range(num_layers):
                width = input_size if layer == 0 else hidden_size
                self.append(RNN(cell_cls(width, hidden_size, **attrs), False, time_major))
        elif direction in _BIDIRECTIONAL:
            for layer in range(num_layers):
                width = input_size if layer == 0 else 2 * hidden_size
                self.append(BiRNN(cell_cls(width, hidden_size, **attrs),
                                  cell_cls(width, hidden_size, **attrs), time_major))
        else:
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), "
                             f"received direction = {direction}")
        params = self.parameters()
        names = [f"{kind}_l{layer}{'_reverse' if d else ''}"
                 for layer in range(num_layers) for d in range(self.num_directions)
                 for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        for name, param in zip(names, params):
            setattr(self, name, param)
        self.flatten_parameters()

    def flatten_parameters(self) -> None:
        """Paddle's weight order for the op (all weights, then all biases) and its cuDNN
        leftovers: the flat parameter, its startup coalesce_tensor, the dropout state."""
        params = self.parameters(include_sublayers=False)
        order = [None] * len(params)
        for i, param in enumerate(params):
            offset = 0 if i % 4 < 2 else 2 * self.num_layers * self.num_directions
            order[offset + (i // 4) * 2 + i % 2] = param
        object.__setattr__(self, "_all_weights", order)
        size = sum(math.prod(int(d) for d in p.shape) for p in params)
        flat = self.create_parameter([size], dtype=params[0].dtype,
                                     default_initializer=Constant(0.0))
        object.__setattr__(self, "_flat_weight", [flat])
        state_name = f"{self._full_name}.dropout_state__non_persistable"
        if in_dynamic_mode():
            object.__setattr__(self, "_dropout_state", None)
            return
        block = LayerHelper(self._full_name).main_program.current_block()
        object.__setattr__(self, "_dropout_state", block.create_var(
            name=state_name, dtype=VarType.UINT8, type=VarType.LOD_TENSOR, persistable=False))
        startup = default_startup_program().global_block()
        startup.append_op(type="coalesce_tensor",
                          inputs={"Input": [startup.var(p.name) for p in order]},
                          outputs={"Output": [startup.var(p.name) for p in order],
                                   "FusedOutput": [startup.var(flat.name)]},
                          attrs={"copy_data": True, "use_align": False,
                                 "dtype": int(convert_dtype(params[0].dtype))})

    def _op_impl(self, inputs, initial_states, sequence_length):
        if not self.time_major:
            inputs = transpose(inputs, [1, 0, 2])
        attrs = {"dropout_prob": float(self.dropout), "is_bidirec": self.num_directions == 2,
                 "input_size": self.input_size, "hidden_size": self.hidden_size,
                 "num_layers": self.num_layers, "mode": self.mode, "is_test": not self.training}
        op_inputs = {"Input": inputs, "WeightList": list(self._all_weights),
                     "PreState": list(initial_states)}
        if sequence_length is not None:
            op_inputs["SequenceLength"] = sequence_length
        if not is_static(op_inputs):
            out, _, state, _ = apply_op("rnn", op_inputs, attrs)
        else:
            helper = LayerHelper(self._full_name, name=self._full_name)
            out = helper.create_variable_for_type_inference(inputs.dtype)
            state = [helper.create_variable_for_type_inference(inputs.dtype)
                     for _ in range(self.state_components)]
            reserve = helper.create_variable_for_type_inference(VarType.UINT8,
                                                                stop_gradient=True)
            helper.append_op(type="rnn", inputs=op_inputs, attrs=attrs,
                             outputs={"Out": out, "State": state, "Reserve": reserve,
                                      "DropoutState": self._dropout_state})
        if not self.time_major:
            out = transpose(out, [1, 0, 2])
        return out, tuple(state) if len(state) > 1 else state[0]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        batch_index = 1 if self.time_major else 0
        if initial_states is None:
            batch = inputs.shape[batch_index]
            if batch is None or batch < 0:
                batch = tensor_shape(inputs)[batch_index]
            dims = [self.num_layers * self.num_directions, batch, self.hidden_size]
            initial_states = tuple(full(dims, 0, inputs.dtype)
                                   for _ in range(self.state_components))
        elif isinstance(initial_states, (Variable, Tensor)):
            initial_states = [initial_states]
        return self._op_impl(inputs, initial_states, sequence_length)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.time_major:
            text += f", time_major={self.time_major}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        return text


class SimpleRNN(RNNBase):
    """Elman RNN stack (op ``rnn``, mode RNN_TANH or RNN_RELU)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 activation: str = "tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name: str | None = None):
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if activation not in modes:
            raise ValueError(f"Unknown activation '{activation}'")
        super().__init__(modes[activation], input_size, hidden_size, num_layers, direction,
                         time_major, dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                         bias_hh_attr, activation=activation)
        self.activation = activation


class LSTM(RNNBase):
    """LSTM stack (op ``rnn``, mode LSTM); states (h, c), each [layers * directions, B, H]."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name: str | None = None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class GRU(RNNBase):
    """GRU stack (op ``rnn``, mode GRU); state [layers * directions, B, H]."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name: str | None = None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)

