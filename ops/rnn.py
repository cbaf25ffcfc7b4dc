"""rnn: Paddle 2.6's one-op recurrent network (what paddle.nn.LSTM / GRU / SimpleRNN emit).

Layout, as Paddle's: Input is time-major [T, B, I]; PreState and State hold [L * D, B, H] per
state (LSTM: h and c; the others: h), row ``l * D + d`` for layer l and direction d (D = 2 when
``is_bidirec``). WeightList holds every weight, then every bias: entry ``2 * (l * D + d)`` is
w_ih [G * H, in] and the next one w_hh [G * H, H]; the biases b_ih, b_hh [G * H] follow at
offset ``2 * L * D`` in the same order. Gates, G of them, in Paddle's order: LSTM (i, f, c, o),
GRU (r, z, c) with the reset gate applied after the hidden matmul
(c = tanh(x_c + r * (h W_hc + b_hc)), h = z * h_prev + (1 - z) * c), RNN_TANH / RNN_RELU one.

SequenceLength [B] masks time steps t >= length: their outputs are zero and the state passes
through unchanged, so the final state is the one of the last valid step (the reverse direction
starts from the initial state at step length - 1). In training (``is_test`` false) the input of
every layer but the first is dropped out with ``dropout_prob`` (upscale_in_train); the masks
are kept in Reserve (uint8 [L - 1, T, B, D * H]) for the grad op, which recomputes the forward
steps and runs backpropagation through time."""
from __future__ import annotations

import numpy as np

from .random import default_generator
from .registry import register_op
from .types import Meta, VarType

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}

rnn = register_op(
    "rnn", inputs=["Input", "PreState*", "WeightList*", "SequenceLength?"],
    outputs=["Out", "DropoutState?", "State*", "Reserve"], no_grad=["SequenceLength"],
    attrs={"dropout_prob": 0.0, "is_bidirec": False, "input_size": 10, "hidden_size": 100,
           "num_layers": 1, "mode": "RNN_TANH", "seed": 0, "is_test": False})


def _check_attrs(mode: str, num_weights: int, num_layers: int, directions: int) -> None:
    if mode not in GATES:
        raise ValueError(f"rnn: mode must be one of {sorted(GATES)}, received '{mode}'")
    if num_weights != 4 * num_layers * directions:
        raise ValueError(f"rnn: WeightList must hold 4 * num_layers * directions = "
                         f"{4 * num_layers * directions} tensors (w_ih, w_hh per layer and "
                         f"direction, then the biases), received {num_weights}")


@rnn.def_infer_shape
def rnn_shape(x: Meta, pre_state: list, weights: list, seq_len=None, *, mode, is_bidirec,
              hidden_size, num_layers, dropout_prob, is_test, **_):
    directions = 2 if is_bidirec else 1
    _check_attrs(mode, len(weights), num_layers, directions)
    if len(x.shape) != 3:
        raise ValueError(f"rnn: Input must be 3-D [time, batch, input_size], received shape "
                         f"{list(x.shape)}")
    if len(pre_state) != (2 if mode == "LSTM" else 1):
        raise ValueError(f"rnn: mode {mode} takes {2 if mode == 'LSTM' else 1} PreState "
                         f"tensor(s), received {len(pre_state)}")
    out = Meta((x.shape[0], x.shape[1], directions * hidden_size), x.dtype)
    dropping = not is_test and dropout_prob > 0 and num_layers > 1
    reserve = Meta((num_layers - 1,) + out.shape if dropping else (0,), VarType.UINT8)
    return (out, Meta((0,), VarType.UINT8), [Meta(s.shape, s.dtype) for s in pre_state],
            reserve)


class _Weights:
    """The four tensors of one layer and direction."""

    def __init__(self, weights: list, layer: int, direction: int, directions: int,
                 num_layers: int):
        k = 2 * (layer * directions + direction)
        bias = 2 * num_layers * directions
        self.w_ih, self.w_hh = weights[k], weights[k + 1]
        self.b_ih, self.b_hh = weights[bias + k], weights[bias + k + 1]
        self.index = k


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _cell(mode: str, xw, h, c, w: _Weights):
    """One step: the new (h, c) and what backpropagation needs."""
    hw = h @ w.w_hh.T + w.b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(xw + hw, 4, axis=-1)
        i, f, g, o = _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
        c_new = f * c + i * g
        tanh_c = np.tanh(c_new)
        return o * tanh_c, c_new, (i, f, g, o, tanh_c)
    if mode == "GRU":
        x_r, x_z, x_c = np.split(xw, 3, axis=-1)
        h_r, h_z, h_c = np.split(hw, 3, axis=-1)
        r, z = _sigmoid(x_r + h_r), _sigmoid(x_z + h_z)
        cand = np.tanh(x_c + r * h_c)
        return z * h + (1 - z) * cand, None, (r, z, cand, h_c)
    pre = xw + hw
    h_new = np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)
    return h_new, None, (h_new,)


def _cell_backward(mode: str, dh_new, dc_new, h, c, cache):
    """Gradients of one step: (d of the x-side gate sums, d of the h-side sums, dh, dc)."""
    if mode == "LSTM":
        i, f, g, o, tanh_c = cache
        dc_total = dc_new + dh_new * o * (1 - tanh_c * tanh_c)
        d_gates = np.concatenate([dc_total * g * i * (1 - i), dc_total * c * f * (1 - f),
                                  dc_total * i * (1 - g * g), dh_new * tanh_c * o * (1 - o)], -1)
        return d_gates, d_gates, np.zeros_like(h), dc_total * f
    if mode == "GRU":
        r, z, cand, h_c = cache
        d_cand = dh_new * (1 - z) * (1 - cand * cand)
        d_r = d_cand * h_c * r * (1 - r)
        d_z = dh_new * (h - cand) * z * (1 - z)
        d_x = np.concatenate([d_r, d_z, d_cand], -1)
        d_h = np.concatenate([d_r, d_z, d_cand * r], -1)
        return d_x, d_h, dh_new * z, None
    (h_new,) = cache
    d_pre = dh_new * (1 - h_new * h_new) if mode == "RNN_TANH" else dh_new * (h_new > 0)
    return d_pre, d_pre, np.zeros_like(h), None


def _direction(mode, x, h, c, w: _Weights, mask, reverse: bool, keep: bool):
    """Run one layer in one direction over all steps: outputs [T, B, H], final (h, c), and the
    per-step records backpropagation needs (when ``keep``)."""
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    xw = x @ w.w_ih.T + w.b_ih                     # every step's input side at once
    out = np.zeros(x.shape[:2] + (h.shape[-1],), dtype=x.dtype)
    records = {}
    for t in steps:
        h_new, c_new, cache = _cell(mode, xw[t], h, c, w)
        if keep:
            records[t] = (h, c, cache)
        if mask is None:
            out[t], h, c = h_new, h_new, c_new
        else:
            m = mask[t]
            out[t] = np.where(m, h_new, 0)
            h = np.where(m, h_new, h)
            c = np.where(m, c_new, c) if c is not None else None
    return out, h, c, records


def _mask(seq_len, steps: int):
    if seq_len is None:
        return None
    return (np.arange(steps)[:, None] < np.ravel(seq_len)[None, :])[:, :, None]   # [T, B, 1]


def _forward(x, pre_state, weights, seq_len, reserve, *, mode, is_bidirec, num_layers,
             dropout_prob, train: bool, seed: int, keep: bool):
    directions = 2 if is_bidirec else 1
    _check_attrs(mode, len(weights), num_layers, directions)
    mask = _mask(seq_len, x.shape[0])
    h0 = pre_state[0]
    c0 = pre_state[1] if mode == "LSTM" else None
    h_n, c_n = np.empty_like(h0), None if c0 is None else np.empty_like(c0)
    layer_input, layers, masks = x, [], []
    rng = default_generator.for_seed(seed) if train and dropout_prob > 0 else None
    for layer in range(num_layers):
        if layer > 0 and rng is not None:
            if reserve is None or not reserve.size:
                reserve_mask = (rng.random(layer_input.shape) >= dropout_prob).astype(np.uint8)
            else:
                reserve_mask = reserve[layer - 1]
            masks.append(reserve_mask)
            scale = layer_input.dtype.type(0 if dropout_prob >= 1 else 1 / (1 - dropout_prob))
            layer_input = layer_input * reserve_mask * scale
        outs, runs = [], []
        for d in range(directions):
            w = _Weights(weights, layer, d, directions, num_layers)
            row = layer * directions + d
            out, h, c, records = _direction(mode, layer_input, h0[row],
                                            None if c0 is None else c0[row], w, mask, d == 1,
                                            keep)
            h_n[row] = h
            if c_n is not None:
                c_n[row] = c
            outs.append(out)
            runs.append((w, records))
        layers.append((layer_input, runs))
        layer_input = outs[0] if directions == 1 else np.concatenate(outs, axis=-1)
    states = [h_n] if c_n is None else [h_n, c_n]
    return layer_input, states, masks, layers


@rnn.def_kernel
def rnn_kernel(x, pre_state, weights, seq_len=None, *, dropout_prob, is_bidirec, num_layers,
               mode, seed, is_test):
    out, states, masks, _ = _forward(
        x, pre_state, weights, seq_len, None, mode=mode, is_bidirec=is_bidirec,
        num_layers=num_layers, dropout_prob=dropout_prob, train=not is_test, seed=seed,
        keep=False)
    reserve = np.stack(masks) if masks else np.zeros((0,), dtype=np.uint8)
    return out, np.zeros((0,), dtype=np.uint8), states, reserve


def _direction_backward(mode, layer_input, w: _Weights, records, d_out, dh, dc, mask, reverse):
    """BPTT through one layer and direction: returns d layer_input, the four weight
    gradients and the gradients of the initial h and c."""
    steps = range(layer_input.shape[0] - 1, -1, -1) if reverse else range(layer_input.shape[0])
    d_xw = np.zeros(layer_input.shape[:2] + (w.w_hh.shape[0],), dtype=layer_input.dtype)
    dw_hh, db_hh = np.zeros_like(w.w_hh), np.zeros_like(w.b_hh)
    for t in reversed(steps):        # undo the steps in the opposite order
        h, c, cache = records[t]
        dh_new = dh + d_out[t]
        dc_new = dc
        if mask is not None:
            m = mask[t]
            dh_new, dh_keep = np.where(m, dh_new, 0), np.where(m, 0, dh)
            if dc is not None:
                dc_new, dc_keep = np.where(m, dc, 0), np.where(m, 0, dc)
        d_x, d_h, dh_direct, dc_prev = _cell_backward(mode, dh_new, dc_new, h, c, cache)
        d_xw[t] = d_x
        dw_hh += d_h.T @ h
        db_hh += d_h.sum(axis=0)
        dh = d_h @ w.w_hh + dh_direct
        dc = dc_prev
        if mask is not None:
            dh = dh + dh_keep
            if dc is not None:
                dc = dc + dc_keep
    flat_dxw = d_xw.reshape(-1, d_xw.shape[-1])
    dw_ih = flat_dxw.T @ layer_input.reshape(-1, layer_input.shape[-1])
    d_input = d_xw @ w.w_ih
    return d_input, (dw_ih, dw_hh, flat_dxw.sum(axis=0), db_hh), dh, dc


@rnn.def_grad
def rnn_grad(input, prestate, weightlist, sequencelength, out, dropoutstate, reserve,  # noqa: A002
             dout, dstate, *, dropout_prob, is_bidirec, num_layers, mode, seed, is_test):
    # Out and DropoutState are read by Paddle's grad op (its slots); BPTT here needs neither
    _, _, masks, layers = _forward(
        input, prestate, weightlist, sequencelength, reserve, mode=mode, is_bidirec=is_bidirec,
        num_layers=num_layers, dropout_prob=dropout_prob, train=not is_test, seed=seed,
        keep=True)
    directions = 2 if is_bidirec else 1
    mask = _mask(sequencelength, input.shape[0])
    hidden = prestate[0].shape[-1]
    d_pre = [np.zeros_like(s) for s in prestate]
    d_weights = [None] * len(weightlist)
    bias = 2 * num_layers * directions
    d_layer_out = dout
    for layer in range(num_layers - 1, -1, -1):
        layer_input, runs = layers[layer]
        d_input = np.zeros_like(layer_input)
        for d, (w, records) in enumerate(runs):
            row = layer * directions + d
            dc = dstate[1][row] if mode == "LSTM" else None
            d_in, grads, dh0, dc0 = _direction_backward(
                mode, layer_input, w, records, d_layer_out[..., d * hidden:(d + 1) * hidden],
                dstate[0][row], dc, mask, d == 1)
            d_input += d_in
            d_pre[0][row] = dh0
            if dc0 is not None:
                d_pre[1][row] = dc0
            d_weights[w.index], d_weights[w.index + 1] = grads[0], grads[1]
            d_weights[bias + w.index], d_weights[bias + w.index + 1] = grads[2], grads[3]
        if layer > 0 and masks:
            scale = d_input.dtype.type(0 if dropout_prob >= 1 else 1 / (1 - dropout_prob))
            d_input = d_input * masks[layer - 1] * scale
        d_layer_out = d_input
    return d_layer_out, d_pre, d_weights, None
