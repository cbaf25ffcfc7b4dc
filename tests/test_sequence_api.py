"""The public API of the sequence-model ops: values in eager and static mode against NumPy, and
static programs with Paddle 2.6's ops, slots and temporaries (the expected listings are what
Paddle 2.6.2 appends for the same code)."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle

_rng = np.random.default_rng(5)
X = _rng.uniform(-1, 1, (2, 3, 4)).astype("float32")
Y = _rng.uniform(-1, 1, (2, 4, 5)).astype("float32")
IDX = np.array([3, 1], dtype="int64")


def _listing(program) -> list[str]:
    """``type(slot=names) -> slot=names`` per op, empty slots left out."""
    lines = []
    for op in program.global_block().ops:
        ins = " ".join(f"{k}={','.join(op.input(k))}" for k in sorted(op.input_names)
                       if op.input(k))
        outs = " ".join(f"{k}={','.join(op.output(k))}" for k in sorted(op.output_names)
                        if op.output(k))
        lines.append(f"{op.type}({ins}) -> {outs}")
    return lines


@pytest.fixture
def static_mode():
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        yield main, startup
    paddle.disable_static()


# -- static programs as Paddle builds them ------------------------------------------------------
def test_tensor_functions_append_paddles_ops_and_names(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 3, 4], "float32")
    y = paddle.static.data("y", [-1, 4, 5], "float32")
    i = paddle.static.data("i", [2], "int64")
    ax = paddle.static.data("ax", [1], "int64")
    outs = [paddle.bmm(x, y), paddle.einsum("bij,bjk->bik", x, y), paddle.einsum("bij", x),
            paddle.index_select(x, i, axis=2), paddle.tril(x), paddle.triu(x, 1),
            paddle.shape(x), paddle.numel(x), paddle.sin(x), paddle.cos(x), paddle.ceil(x),
            paddle.gather(x, i, axis=ax), paddle.arange(paddle.shape(x)[0]),
            paddle.arange(1, 7, 2), paddle.arange(0.5, 2.0),
            paddle.take_along_axis(x, paddle.static.data("t", [1, 3, 2], "int64"), 2),
            paddle.full([2, paddle.shape(x)[0]], 1.5)]
    assert _listing(main) == [
        "bmm(X=x Y=y) -> Out=bmm_0.tmp_0",
        "einsum(Operands=x,y) -> InnerCache=einsum_0.tmp_1,einsum_0.tmp_2 Out=einsum_0.tmp_0 "
        "XShape=einsum_0.tmp_3,einsum_0.tmp_4",
        "einsum(Operands=x) -> InnerCache=einsum_1.tmp_1 Out=einsum_1.tmp_0 XShape=einsum_1.tmp_2",
        "index_select(Index=i X=x) -> Out=index_select_0.tmp_0",
        "tril_triu(X=x) -> Out=tril_0", "tril_triu(X=x) -> Out=triu_0",
        "shape(Input=x) -> Out=shape_0.tmp_0", "size(Input=x) -> Out=numel_0.tmp_0",
        "sin(X=x) -> Out=sin_0.tmp_0", "cos(X=x) -> Out=cos_0.tmp_0",
        "ceil(X=x) -> Out=ceil_0.tmp_0",
        "gather(Axis=ax Index=i X=x) -> Out=gather_0.tmp_0",
        "shape(Input=x) -> Out=shape_1.tmp_0",
        "slice(Input=shape_1.tmp_0) -> Out=shape_1.tmp_0_slice_0",
        "fill_constant() -> Out=fill_constant_1.tmp_0",
        "cast(X=shape_1.tmp_0_slice_0) -> Out=cast_0.tmp_0",
        "fill_constant() -> Out=fill_constant_3.tmp_0",
        "range(End=cast_0.tmp_0 Start=fill_constant_1.tmp_0 Step=fill_constant_3.tmp_0) -> "
        "Out=range_0.tmp_0",
        "fill_constant() -> Out=fill_constant_5.tmp_0",
        "fill_constant() -> Out=fill_constant_7.tmp_0",
        "fill_constant() -> Out=fill_constant_9.tmp_0",
        "range(End=fill_constant_7.tmp_0 Start=fill_constant_5.tmp_0 Step=fill_constant_9.tmp_0)"
        " -> Out=range_1.tmp_0",
        "fill_constant() -> Out=fill_constant_11.tmp_0",
        "fill_constant() -> Out=fill_constant_13.tmp_0",
        "fill_constant() -> Out=fill_constant_15.tmp_0",
        "range(End=fill_constant_13.tmp_0 Start=fill_constant_11.tmp_0 "
        "Step=fill_constant_15.tmp_0) -> Out=range_2.tmp_0",
        "expand_v2(X=t) -> Out=expand_0.tmp_0", "expand_v2(X=x) -> Out=expand_1.tmp_0",
        "take_along_axis(Index=expand_0.tmp_0 Input=expand_1.tmp_0) -> "
        "Result=take_along_axis_0.tmp_0",
        "shape(Input=x) -> Out=shape_2.tmp_0",
        "slice(Input=shape_2.tmp_0) -> Out=shape_2.tmp_0_slice_0",
        "fill_constant() -> Out=fill_constant_19.tmp_0",
        "fill_constant(ShapeTensorList=fill_constant_19.tmp_0,shape_2.tmp_0_slice_0) -> "
        "Out=fill_constant_17.tmp_0"]
    shapes = [tuple(o.shape) for o in outs]
    assert shapes == [(-1, 3, 5), (-1, 3, 5), (-1, 3, 4), (-1, 3, 2), (-1, 3, 4), (-1, 3, 4),
                      (3,), (), (-1, 3, 4), (-1, 3, 4), (-1, 3, 4), (-1, -1, -1), (-1,), (3,),
                      (2,), (1, 3, 2), (2, -1)]
    ops = main.global_block().ops
    assert ops[11].attrs.get("overwrite") is None      # Paddle 2.6 drops gather's overwrite
    assert [op.attrs["op_device"] for op in ops if op.type == "fill_constant"][:2] == \
        ["cpu", "cpu"]                                 # arange's bounds: device_guard("cpu")


def test_lstm_appends_one_rnn_op_as_paddle(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 5, 3], "float32")
    lengths = paddle.static.data("sl", [-1], "int64")
    lstm = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirect", dropout=0.2)
    y, (h, c) = lstm(x, sequence_length=lengths)
    weights = ",".join([f"lstm_cell_{k}.w_{j}" for k in range(4) for j in range(2)]
                       + [f"lstm_cell_{k}.b_{j}" for k in range(4) for j in range(2)])
    assert _listing(main) == [
        "shape(Input=x) -> Out=shape_0.tmp_0",
        "slice(Input=shape_0.tmp_0) -> Out=shape_0.tmp_0_slice_0",
        "fill_constant() -> Out=fill_constant_3.tmp_0",
        "fill_constant() -> Out=fill_constant_5.tmp_0",
        "fill_constant(ShapeTensorList=fill_constant_3.tmp_0,shape_0.tmp_0_slice_0,"
        "fill_constant_5.tmp_0) -> Out=fill_constant_1.tmp_0",
        "fill_constant() -> Out=fill_constant_9.tmp_0",
        "fill_constant() -> Out=fill_constant_11.tmp_0",
        "fill_constant(ShapeTensorList=fill_constant_9.tmp_0,shape_0.tmp_0_slice_0,"
        "fill_constant_11.tmp_0) -> Out=fill_constant_7.tmp_0",
        "transpose2(X=x) -> Out=transpose_0.tmp_0 XShape=transpose_0.tmp_1",
        f"rnn(Input=transpose_0.tmp_0 PreState=fill_constant_1.tmp_0,fill_constant_7.tmp_0 "
        f"SequenceLength=sl WeightList={weights}) -> DropoutState=lstm_0.dropout_state__non_"
        f"persistable Out=lstm_0.tmp_0 Reserve=lstm_0.tmp_3 State=lstm_0.tmp_1,lstm_0.tmp_2",
        "transpose2(X=lstm_0.tmp_0) -> Out=transpose_1.tmp_0 XShape=transpose_1.tmp_1"]
    rnn = main.global_block().ops[9]
    assert {k: rnn.attrs[k] for k in ("mode", "num_layers", "is_bidirec", "input_size",
                                      "hidden_size", "is_test")} == {
        "mode": "LSTM", "num_layers": 2, "is_bidirec": True, "input_size": 3,
        "hidden_size": 4, "is_test": False}
    assert abs(rnn.attrs["dropout_prob"] - 0.2) < 1e-7
    startup_ops = _listing(startup)
    assert startup_ops[-2:] == [
        "fill_constant() -> Out=lstm_0.w_0",
        f"coalesce_tensor(Input={weights}) -> FusedOutput=lstm_0.w_0 Output={weights}"]
    bound = 1 / np.sqrt(4)
    first = startup.global_block().ops[0]
    assert (first.type, first.attrs["min"], first.attrs["max"]) == ("uniform_random", -bound,
                                                                    bound)
    assert [tuple(v.shape) for v in (y, h, c)] == [(-1, 5, 8), (4, -1, 4), (4, -1, 4)]
    backward = paddle.static.append_backward(paddle.mean(y))
    grad_op = next(op for op in main.global_block().ops if op.type == "rnn_grad")
    assert sorted(grad_op.input_names) == sorted(
        ["Input", "PreState", "WeightList", "SequenceLength", "Out", "DropoutState", "Reserve",
         "Out@GRAD", "State@GRAD"])
    assert len(backward) == 16


def test_lstm_parameters_and_state_dict_as_paddle():
    paddle.disable_static()
    lstm = paddle.nn.LSTM(3, 4, direction="bidirect")
    assert list(lstm.state_dict())[:8] == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
        "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"]
    assert list(lstm.state_dict())[8:10] == ["0.cell_fw.weight_ih", "0.cell_fw.weight_hh"]
    assert [tuple(p.shape) for p in lstm.parameters()[:4]] == [(16, 3), (16, 4), (16,), (16,)]
    assert all(np.abs(p.numpy()).max() <= 0.5 for p in lstm.parameters())
    assert len(paddle.nn.GRU(3, 4, num_layers=3).parameters()) == 12


# -- values: eager = static = NumPy -------------------------------------------------------------
CASES = [
    ("bmm", lambda x, y: paddle.bmm(x, y), X @ Y),
    ("einsum", lambda x, y: paddle.einsum("bij,bjk->bki", x, y), np.einsum("bij,bjk->bki", X, Y)),
    ("einsum_implicit", lambda x, y: paddle.einsum("BIJ", x), np.einsum("bij", X)),
    ("index_select", lambda x, y: paddle.index_select(x, paddle.to_tensor(IDX) if
                                                      paddle.in_dynamic_mode() else
                                                      paddle.assign(IDX), axis=2), X[:, :, IDX]),
    ("tril", lambda x, y: paddle.tril(x, -1), np.tril(X, -1)),
    ("triu", lambda x, y: paddle.triu(y), np.triu(Y)),
    ("sin", lambda x, y: paddle.sin(x), np.sin(X)),
    ("cos", lambda x, y: paddle.cos(x), np.cos(X)),
    ("ceil", lambda x, y: paddle.ceil(x * 3), np.ceil(X * 3)),
    ("numel", lambda x, y: paddle.numel(y), np.array(40)),
    ("shape", lambda x, y: paddle.shape(y), np.array([2, 4, 5], "int32")),
    ("take_along_axis", lambda x, y: paddle.take_along_axis(
        x, paddle.argsort(x, axis=1)[:, :1], axis=1), np.sort(X, axis=1)[:, :1]),
]


@pytest.mark.parametrize("fn,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_eager_and_static_values(fn, expected):
    paddle.disable_static()
    eager = fn(paddle.to_tensor(X), paddle.to_tensor(Y)).numpy()
    np.testing.assert_allclose(eager, expected, rtol=1e-5, atol=1e-6)
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            out = fn(paddle.static.data("x", [-1, 3, 4], "float32"),
                     paddle.static.data("y", [-1, 4, 5], "float32"))
        static, = paddle.static.Executor().run(main, feed={"x": X, "y": Y}, fetch_list=[out])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(static, expected, rtol=1e-5, atol=1e-6)


def test_arange_with_tensor_bounds_and_dtypes():
    paddle.disable_static()
    assert paddle.arange(5).dtype == paddle.int64
    assert paddle.arange(0.0, 1.0, 0.25).numpy().tolist() == [0.0, 0.25, 0.5, 0.75]
    out = paddle.arange(paddle.to_tensor(3), paddle.to_tensor(np.int32(9)), 2)
    assert out.numpy().tolist() == [3, 5, 7] and out.dtype == paddle.int64
    assert paddle.arange(paddle.to_tensor(2.0)).dtype == paddle.float32
    with pytest.raises(ValueError, match="should not be 0"):
        paddle.arange(0, 3, 0)


def test_gather_with_a_tensor_axis_in_eager_mode_and_its_gradient():
    paddle.disable_static()
    x = paddle.to_tensor(X, stop_gradient=False)
    out = paddle.gather(x, paddle.to_tensor(IDX), axis=paddle.to_tensor(2))
    np.testing.assert_array_equal(out.numpy(), X[:, :, IDX])
    out.sum().backward()
    expected = np.zeros_like(X)
    expected[:, :, IDX] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    with pytest.raises(TypeError, match="axis must be an int"):
        paddle.gather(x, paddle.to_tensor(IDX), axis=1.5)


def test_api_errors_name_what_was_wrong():
    paddle.disable_static()
    with pytest.raises(ValueError, match="x and y should be 3-dimensional"):
        paddle.bmm(paddle.to_tensor(X[0]), paddle.to_tensor(Y))
    with pytest.raises(ValueError, match="x shape in tril must be at least 2-D"):
        paddle.tril(paddle.to_tensor(X[0, 0]))
    with pytest.raises(TypeError, match="diagonal in triu must be a python Int"):
        paddle.triu(paddle.to_tensor(X), 1.0)
    with pytest.raises(ValueError, match="the number of operands is 1"):
        paddle.einsum("ij,jk", paddle.to_tensor(X))
    with pytest.raises(ValueError, match="missing ellipsis"):
        paddle.einsum("...ij->ij", paddle.to_tensor(X))
    with pytest.raises(ValueError, match="same number of dimensions"):
        paddle.take_along_axis(paddle.to_tensor(X), paddle.to_tensor(IDX), 0)
    with pytest.raises(TypeError, match="must be any of \\['int32', 'int64'\\]"):
        paddle.index_select(paddle.to_tensor(X), paddle.to_tensor(X[0, 0]))
