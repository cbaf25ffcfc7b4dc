"""The sequence-model and general ops (shape, size, range, tril_triu, index_select,
take_along_axis, gather with Axis, bmm, einsum, sin/cos/ceil, rnn) against
NumPy through the Executor (run_op also checks inferred shapes against computed ones), and
their shape rules with unknown (-1) dims. The zoo models in tests/paddle_models check the same
ops against Paddle's own outputs."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.framework.errors import ExecutionError, ShapeError
from test_cnn_ops import run_op, u


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


# -- attribute ops ------------------------------------------------------------------------------
def test_shape_and_size():
    x = u(2, 3, 4).astype("float32")
    out = run_op("shape", {"Input": x}, {})["Out"]
    assert out.dtype == np.int32 and out.tolist() == [2, 3, 4]
    size = run_op("size", {"Input": x}, {})["Out"]
    assert size.dtype == np.int64 and size.shape == () and int(size) == 24


def _static_meta(op_type, inputs: dict, attrs=None, n_outputs=1):
    """Output metas of one op appended on data vars of the given (possibly -1) shapes."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        ins = {}
        for slot, spec in inputs.items():
            specs = spec if isinstance(spec, list) else [spec]
            ins[slot] = [paddle.static.data(f"{slot}_{i}", list(s), d)
                         for i, (s, d) in enumerate(specs)]
        opdef = paddle.ops.get_op(op_type)
        outs = {s.name: [block.create_var(name=f"o_{s.name}_{i}")
                         for i in range(n_outputs if s.duplicable else 1)]
                for s in opdef.outputs}
        block.append_op(type=op_type, inputs=ins, outputs=outs, attrs=attrs or {})
    return {slot: [(tuple(v.shape), v.dtype.name_str) for v in vs] for slot, vs in outs.items()}


def test_shape_rules_with_unknown_dims():
    assert _static_meta("shape", {"Input": ((-1, 5, -1), "float32")})["Out"] == [((3,), "int32")]
    assert _static_meta("size", {"Input": ((-1, 5), "float32")})["Out"] == [((), "int64")]
    assert _static_meta("range", {s: ((1,), "int64") for s in ("Start", "End", "Step")}
                        )["Out"] == [((-1,), "int64")]
    assert _static_meta("index_select", {"X": ((-1, 4, 6), "float32"), "Index": ((-1,), "int64")},
                        {"dim": 2})["Out"] == [((-1, 4, -1), "float32")]
    assert _static_meta("take_along_axis", {"Input": ((-1, 6), "float32"),
                                            "Index": ((-1, 2), "int64")}, {"Axis": 1}
                        )["Result"] == [((-1, 2), "float32")]
    assert _static_meta("bmm", {"X": ((-1, 3, 4), "float32"), "Y": ((-1, 4, 5), "float32")}
                        )["Out"] == [((-1, 3, 5), "float32")]
    assert _static_meta("einsum", {"Operands": [((-1, 3, 4), "float32"), ((4, 5), "float32")]},
                        {"equation": "bij,jk->bki"}, n_outputs=2)["Out"] == [
        ((-1, 5, 3), "float32")]
    assert _static_meta("tril_triu", {"X": ((-1, 3, 3), "float32")})["Out"] == [
        ((-1, 3, 3), "float32")]
    # with a run-time Axis, gather keeps the dims every axis would give alike
    assert _static_meta("gather", {"X": ((3, 3), "float32"), "Index": ((3,), "int64"),
                                   "Axis": ((1,), "int64")})["Out"] == [((3, 3), "float32")]
    assert _static_meta("gather", {"X": ((3, 4), "float32"), "Index": ((2,), "int64"),
                                   "Axis": ((1,), "int64")})["Out"] == [((-1, -1), "float32")]
    rnn = _static_meta("rnn", {"Input": ((7, -1, 3), "float32"),
                               "PreState": [((2, -1, 4), "float32")] * 2,
                               "WeightList": [((16, 3), "float32")] * 8},
                       {"mode": "LSTM", "hidden_size": 4, "input_size": 3, "is_bidirec": True},
                       n_outputs=2)
    assert rnn["Out"] == [((7, -1, 8), "float32")]
    assert rnn["State"] == [((2, -1, 4), "float32")] * 2


@pytest.mark.parametrize("op_type,inputs,message", [
    ("bmm", {"X": ((2, 3), "float32"), "Y": ((2, 3, 4), "float32")}, "must be 3-dimensional"),
    ("bmm", {"X": ((2, 3, 5), "float32"), "Y": ((2, 4, 4), "float32")}, "width 5"),
    ("tril_triu", {"X": ((3,), "float32")}, "at least 2 dims"),
    ("index_select", {"X": ((3, 4), "float32"), "Index": ((1, 2), "int64")}, "1-D"),
    ("take_along_axis", {"Input": ((3, 4), "float32"), "Index": ((3,), "int64")},
     "as many dims"),
    ("einsum", {"Operands": [((3, 4), "float32"), ((5, 6), "float32")]}, "label 'j'"),
])
def test_shape_rules_reject_bad_inputs(op_type, inputs, message):
    attrs = {"equation": "ij,jk->ik"} if op_type == "einsum" else {}
    with pytest.raises(ShapeError, match=message):
        _static_meta(op_type, inputs, attrs, n_outputs=2)


# -- creation ops -------------------------------------------------------------------------------
@pytest.mark.parametrize("start,end,step,dtype", [
    (0, 5, 1, "int64"), (5, 0, -2, "int32"), (0.0, 1.0, 0.3, "float32"), (1.5, -1.0, -0.5,
                                                                           "float64")])
def test_range_matches_numpy(start, end, step, dtype):
    bounds = {s: np.array([v], dtype=dtype) for s, v in zip(("Start", "End", "Step"),
                                                             (start, end, step))}
    out = run_op("range", bounds, {})["Out"]
    expected = np.arange(np.array(start, dtype), np.array(end, dtype), np.array(step, dtype),
                         dtype=dtype)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


@pytest.mark.parametrize("step,message", [(0, "should not be 0"), (1, "less than 0")])
def test_range_rejects_steps_that_never_arrive(step, message):
    bounds = {"Start": np.array([5]), "End": np.array([0]), "Step": np.array([step])}
    with pytest.raises(ExecutionError, match=message):
        run_op("range", bounds, {})


@pytest.mark.parametrize("diagonal,lower", [(0, True), (1, True), (-1, False), (2, False)])
def test_tril_triu_matches_numpy(diagonal, lower):
    x = u(2, 3, 4)
    out = run_op("tril_triu", {"X": x}, {"diagonal": diagonal, "lower": lower})["Out"]
    expected = np.tril(x, diagonal) if lower else np.triu(x, diagonal)
    np.testing.assert_array_equal(out, expected)


# -- index ops ----------------------------------------------------------------------------------
def test_index_select_and_its_range_check():
    x = u(3, 5)
    index = np.array([4, 0, 4])
    out = run_op("index_select", {"X": x, "Index": index}, {"dim": 1})["Out"]
    np.testing.assert_array_equal(out, x[:, index])
    with pytest.raises(ExecutionError, match=r"must be >= 0 and < 5 .* but got -1"):
        run_op("index_select", {"X": x, "Index": np.array([-1])}, {"dim": 1})


def test_take_along_axis_walks_the_index_shape():
    x = u(3, 4)
    index = np.array([[3, 0], [1, -1]])       # fewer rows than x: Paddle reads rows 0 and 1
    out = run_op("take_along_axis", {"Input": x, "Index": index}, {"Axis": 1})["Result"]
    np.testing.assert_array_equal(out, np.take_along_axis(x[:2], index % 4, axis=1))
    with pytest.raises(ExecutionError, match=r"must be in \[-4, 4\)"):
        run_op("take_along_axis", {"Input": x, "Index": np.array([[4]])}, {"Axis": 1})


def test_gather_reads_the_axis_tensor():
    x = u(2, 3, 4)
    out = run_op("gather", {"X": x, "Index": np.array([3, 1]), "Axis": np.array([2])},
                 {"axis": 0})["Out"]
    np.testing.assert_array_equal(out, x[:, :, [3, 1]])


# -- math ---------------------------------------------------------------------------------------
def test_bmm_and_trig():
    x, y = u(2, 3, 4), u(2, 4, 5)
    np.testing.assert_allclose(run_op("bmm", {"X": x, "Y": y}, {})["Out"], x @ y)
    for op_type, fn in (("sin", np.sin), ("cos", np.cos), ("ceil", np.ceil)):
        np.testing.assert_array_equal(run_op(op_type, {"X": x * 3}, {})["Out"], fn(x * 3))


@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("ii->i", [(3, 3)]),
    ("ij->", [(2, 3)]), ("i,j->ij", [(2,), (3,)]), ("ij,ij->i", [(2, 3), (1, 3)]),
    ("ji", [(2, 3)]), ("ij,jk", [(2, 3), (3, 4)]), ("...j,j", [(2, 3, 4), (4,)]),
])
def test_einsum_matches_numpy(equation, shapes):
    arrays = [u(*s) for s in shapes]
    out = run_op("einsum", {"Operands": arrays}, {"equation": equation},
                 n_outputs=len(arrays))["Out"]
    np.testing.assert_allclose(out, np.einsum(equation, *arrays), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("equation,message", [
    ("ij,jk->ik", "2 operand terms"), ("i1->i", "labels must be letters"),
    ("ijk->i", "does not fit"), ("ij->ix", "appear in no operand")])
def test_einsum_rejects_bad_equations(equation, message):
    with pytest.raises(ShapeError, match=message):
        run_op("einsum", {"Operands": [u(2, 3)]}, {"equation": equation}, n_outputs=1)


# -- rnn: a NumPy reference, one sample and one step at a time --------------------------------
def _reference_cell(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    gx, gh = w_ih @ x + b_ih, w_hh @ h + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(gx + gh, 4)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c), c
    if mode == "GRU":
        (xr, xz, xc), (hr, hz, hc) = np.split(gx, 3), np.split(gh, 3)
        r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
        cand = np.tanh(xc + r * hc)
        return z * h + (1 - z) * cand, None
    pre = gx + gh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)), None


def _reference_rnn(mode, x, states, weights, lengths, layers, dirs):
    steps, batch, _ = x.shape
    hidden = states[0].shape[-1]
    h_n = [s.copy() for s in states]
    for layer in range(layers):
        out = np.zeros((steps, batch, dirs * hidden))
        for d in range(dirs):
            k = 2 * (layer * dirs + d)
            bias = 2 * layers * dirs
            w = (weights[k], weights[k + 1], weights[bias + k], weights[bias + k + 1])
            row = layer * dirs + d
            for b in range(batch):
                h = states[0][row, b]
                c = states[1][row, b] if mode == "LSTM" else None
                order = range(lengths[b]) if d == 0 else range(lengths[b] - 1, -1, -1)
                for t in order:
                    h, c = _reference_cell(mode, x[t, b], h, c, *w)
                    out[t, b, d * hidden:(d + 1) * hidden] = h
                h_n[0][row, b] = h
                if c is not None:
                    h_n[1][row, b] = c
        x = out
    return x, h_n


@pytest.mark.parametrize("mode,layers,bidirec,lengths", [
    ("LSTM", 1, False, None), ("LSTM", 2, True, [5, 2, 3]), ("GRU", 2, False, [1, 5, 4]),
    ("GRU", 1, True, None), ("RNN_TANH", 1, True, [3, 3, 5]), ("RNN_RELU", 3, False, [2, 5, 1])])
def test_rnn_matches_a_step_by_step_reference(mode, layers, bidirec, lengths):
    rng = np.random.default_rng(3)
    gates, dirs, size, hidden = {"LSTM": 4, "GRU": 3}.get(mode, 1), 2 if bidirec else 1, 3, 4
    weights, biases = [], []
    for layer in range(layers):
        width = size if layer == 0 else dirs * hidden
        for _ in range(dirs):
            weights += [rng.uniform(-0.5, 0.5, (gates * hidden, width)),
                        rng.uniform(-0.5, 0.5, (gates * hidden, hidden))]
            biases += [rng.uniform(-0.5, 0.5, gates * hidden) for _ in range(2)]
    states = [rng.uniform(-1, 1, (layers * dirs, 3, hidden))
              for _ in range(2 if mode == "LSTM" else 1)]
    x = rng.uniform(-1, 1, (5, 3, size))
    inputs = {"Input": x, "PreState": states, "WeightList": weights + biases}
    if lengths is not None:
        inputs["SequenceLength"] = np.array(lengths, dtype=np.int32)
    out = run_op("rnn", inputs, {"mode": mode, "num_layers": layers, "is_bidirec": bidirec,
                                 "input_size": size, "hidden_size": hidden, "is_test": True},
                 n_outputs=len(states))
    expected_out, expected_states = _reference_rnn(mode, x, states, weights + biases,
                                                   lengths or [5, 5, 5], layers, dirs)
    np.testing.assert_allclose(out["Out"], expected_out, rtol=1e-10, atol=1e-12)
    for got, want in zip(out["State"], expected_states):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_rnn_training_dropout_keeps_its_masks_in_reserve():
    rng = np.random.default_rng(0)
    weights = [rng.uniform(-1, 1, s) for s in [(4, 3), (4, 4), (4, 4), (4, 4)]] + \
        [rng.uniform(-1, 1, 4) for _ in range(4)]
    inputs = {"Input": rng.uniform(-1, 1, (6, 2, 3)), "PreState": [np.zeros((2, 2, 4))],
              "WeightList": weights}
    attrs = {"mode": "RNN_TANH", "num_layers": 2, "hidden_size": 4, "input_size": 3,
             "dropout_prob": 0.5, "is_test": False, "seed": 9}
    train = run_op("rnn", inputs, attrs, n_outputs=1)
    mask = train["Reserve"]
    assert mask.shape == (1, 6, 2, 4) and mask.dtype == np.uint8 and 0 < mask.sum() < mask.size
    test = run_op("rnn", inputs, {**attrs, "is_test": True}, n_outputs=1)
    assert test["Reserve"].size == 0 and not np.allclose(train["Out"], test["Out"])


def test_rnn_rejects_a_short_weight_list():
    inputs = {"Input": u(2, 1, 3), "PreState": [u(1, 1, 4)], "WeightList": [u(4, 3), u(4, 4)]}
    with pytest.raises(ShapeError, match=r"WeightList must hold 4 \* num_layers"):
        run_op("rnn", inputs, {"mode": "GRU", "hidden_size": 4}, n_outputs=1)


# -- declarations widened to Paddle's protos ----------------------------------------------------
def test_reduce_any_reads_the_axis_tensor():
    x = np.array([[True, False, False], [False, False, False]])
    out = run_op("reduce_any", {"X": x, "AxisTensor": np.array([1], dtype="int64")},
                 {"dim": [0]})["Out"]
    np.testing.assert_array_equal(out, [True, False])


def test_batch_norm_without_scale_and_bias_is_plain_normalization():
    x = u(4, 3)
    stats = {"Mean": np.zeros(3, "float32"), "Variance": np.ones(3, "float32")}
    out = run_op("batch_norm", {"X": x, **stats}, {"is_test": False, "epsilon": 0.0})["Y"]
    np.testing.assert_allclose(out, (x - x.mean(0)) / x.std(0), rtol=1e-5, atol=1e-6)
