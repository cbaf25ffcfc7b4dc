"""Paddle's ``rnn`` op (nn.LSTM / nn.GRU / nn.SimpleRNN, time-major inside the program) as
one ONNX LSTM / GRU / RNN node per layer.

WeightList holds, per layer and direction, the input and hidden weights, then the biases in
the same order. Paddle's gate order is LSTM [i, f, c, o] and GRU [r, z, c]; ONNX wants
[i, o, f, c] and [z, r, h]. GRU's candidate applies the reset gate after the hidden product
(ONNX linear_before_reset=1). The weights are reordered at export time."""
from __future__ import annotations

import numpy as np

from .registry import converter

_OP = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}
_GATE_ORDER = {"LSTM": (0, 3, 1, 2), "GRU": (1, 0, 2), "RNN_TANH": (0,), "RNN_RELU": (0,)}


def _reorder(array: np.ndarray, mode: str) -> np.ndarray:
    gates = np.split(array, len(_GATE_ORDER[mode]), axis=0)
    return np.concatenate([gates[i] for i in _GATE_ORDER[mode]], axis=0)


def _weights(n, mode: str, layers: int, directions: int) -> list[tuple]:
    """(W, R, B) per layer, stacked over directions, in ONNX's gate order."""
    names = n.op.input("WeightList")
    values = [n.writer.constant_value(name) for name in names]
    if any(v is None for v in values):
        n.fail("the rnn weights must be parameters with values at export time")
    half = len(values) // 2
    weights, biases = values[:half], values[half:]
    result = []
    for layer in range(layers):
        w, r, b = [], [], []
        for d in range(directions):
            k = 2 * (layer * directions + d)
            w.append(_reorder(weights[k], mode))
            r.append(_reorder(weights[k + 1], mode))
            b.append(np.concatenate([_reorder(biases[k], mode), _reorder(biases[k + 1], mode)]))
        result.append(tuple(np.stack(parts) for parts in (w, r, b)))
    return result


@converter("rnn")
def rnn(g, n):
    mode = n.attr("mode")
    if mode not in _OP:
        n.fail(f"mode {mode!r} is not one of {sorted(_OP)}")
    layers, hidden = int(n.attr("num_layers")), int(n.attr("hidden_size"))
    directions = 2 if n.attr("is_bidirec") else 1
    attrs = {"hidden_size": hidden,
             "direction": "bidirectional" if directions == 2 else "forward"}
    if mode == "GRU":
        attrs["linear_before_reset"] = 1
    if mode.startswith("RNN_"):
        attrs["activations"] = ["Tanh" if mode == "RNN_TANH" else "Relu"] * directions
    states = n.inputs("PreState")
    lengths = g.cast(n.input("SequenceLength"), np.int32) if n.has("SequenceLength") else ""
    x, finals = n.input("Input"), [[] for _ in states]
    for layer, (w, r, b) in enumerate(_weights(n, mode, layers, directions)):
        rows = [g.op("Slice", s, g.ints([layer * directions]),
                     g.ints([(layer + 1) * directions]), g.ints([0])) for s in states]
        outs = g.op(_OP[mode], x, g.const(w), g.const(r), g.const(b), lengths, *rows,
                    outputs=1 + len(states), **attrs)
        y, *last = outs
        for store, value in zip(finals, last):
            store.append(value)
        x = g.reshape(g.op("Transpose", y, perm=[0, 2, 1, 3]), [0, 0, -1])  # T, N, D*H
    g.op("Identity", x, outputs=[n.output("Out")])
    for i, parts in enumerate(finals):
        g.op("Concat", *parts, axis=0, outputs=[n.output("State", i)])
