"""Eager mode: Tensor, the tape engine, creation functions, paddle.grad, no_grad, nn.Layer."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.engine import EagerParameter


@pytest.fixture(autouse=True)
def dygraph():
    paddle.disable_static()
    yield


def _leaf(array, dtype="float64"):
    t = paddle.to_tensor(np.asarray(array, dtype=dtype))
    t.stop_gradient = False
    return t


def _numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        grad[i] = (f(plus) - f(minus)) / (2 * eps)
    return grad


# -- Tensor basics ----------------------------------------------------------------------------
def test_dynamic_mode_is_the_default_and_switchable():
    assert paddle.in_dynamic_mode()
    paddle.enable_static()
    assert not paddle.in_dynamic_mode()
    paddle.disable_static()
    assert paddle.in_dynamic_mode()


def test_new_tensor_attributes():
    t = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.shape == [2, 3] and t.dtype == paddle.float32 and str(t.dtype) == "paddle.float32"
    assert t.stop_gradient is True and t.grad is None and t.is_leaf
    assert t.name.startswith("generated_tensor_")
    assert paddle.to_tensor(3).dtype == paddle.int64
    assert paddle.to_tensor(np.ones(2)).dtype == paddle.float64
    assert paddle.to_tensor([1, 2], dtype="float32", stop_gradient=False).stop_gradient is False
    assert isinstance(t, paddle.Tensor)


def test_repr_matches_paddle_layout():
    t = paddle.to_tensor(np.array([[0.5, 1.0, 2.0], [3.0, 4.0, 5.0]]))
    assert repr(t) == ("Tensor(shape=[2, 3], dtype=float64, place=Place(cpu), stop_gradient=True,\n"
                       "       [[0.50000000, 1.00000000, 2.00000000],\n"
                       "        [3.00000000, 4.00000000, 5.00000000]])")
    assert repr(paddle.to_tensor(2.5)) == ("Tensor(shape=[], dtype=float32, place=Place(cpu), "
                                           "stop_gradient=True,\n       2.50000000)")


def test_values_numpy_item_and_copies():
    t = paddle.to_tensor([[1.0, 2.0]])
    values = t.numpy()
    values[0, 0] = 99.0
    assert t.numpy()[0, 0] == 1.0                 # numpy() is a copy
    assert paddle.to_tensor(7.0).item() == 7.0 and float(paddle.to_tensor([3.0])) == 3.0
    assert np.asarray(t).shape == (1, 2)


def test_creation_functions():
    paddle.seed(7)
    a = paddle.randn([3, 4])
    paddle.seed(7)
    b = paddle.randn([3, 4])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.dtype == paddle.float32 and paddle.randn([2], dtype="float64").dtype == paddle.float64
    r = paddle.rand([100])
    assert 0 <= r.numpy().min() and r.numpy().max() < 1
    np.testing.assert_array_equal(paddle.zeros([2, 2]).numpy(), np.zeros((2, 2), "float32"))
    np.testing.assert_array_equal(paddle.ones([2], dtype="int64").numpy(), [1, 1])
    np.testing.assert_array_equal(paddle.full([2], 3.5).numpy(), [3.5, 3.5])
    np.testing.assert_array_equal(paddle.zeros_like(a).numpy(), np.zeros((3, 4)))
    assert paddle.ones_like(a, dtype="float64").dtype == paddle.float64
    np.testing.assert_array_equal(paddle.arange(5).numpy(), np.arange(5))
    assert paddle.arange(0.0, 1.0, 0.25).dtype == paddle.float32


def test_creation_functions_append_ops_in_static_mode():
    paddle.enable_static()
    z = paddle.zeros([2, 3])
    assert isinstance(z, paddle.static.Variable)
    assert paddle.static.default_main_program().global_block().ops[-1].type == "fill_constant"


def test_operators_and_scalar_forms():
    x = paddle.to_tensor(np.array([1.0, 2.0, 4.0]))
    y = paddle.to_tensor(np.array([2.0, 2.0, 2.0]))
    np.testing.assert_allclose((x + y).numpy(), [3, 4, 6])
    np.testing.assert_allclose((x - 1).numpy(), [0, 1, 3])
    np.testing.assert_allclose((1 - x).numpy(), [0, -1, -3])
    np.testing.assert_allclose((2 * x / 4).numpy(), [0.5, 1, 2])
    np.testing.assert_allclose((8 / x).numpy(), [8, 4, 2])
    np.testing.assert_allclose((x ** 2).numpy(), [1, 4, 16])
    np.testing.assert_allclose((-x).numpy(), [-1, -2, -4])
    assert (x > y).numpy().tolist() == [False, False, True]
    assert (x == 2.0).numpy().tolist() == [False, True, False]
    m = paddle.to_tensor(np.eye(3))
    np.testing.assert_allclose((m @ x).numpy(), [1, 2, 4])
    assert (x + paddle.to_tensor(np.ones(3, "float32"))).dtype == paddle.float64


def test_indexing_is_differentiable():
    x = _leaf(np.arange(12.0).reshape(4, 3))
    assert x[1:3].shape == [2, 3] and x[0].shape == [3] and x[1, 2].shape == []
    (x[1:3].sum() + 2 * x[0].sum() + 3 * x[1, 2]).backward()
    expected = np.zeros((4, 3))
    expected[1:3] += 1
    expected[0] += 2
    expected[1, 2] += 3
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    x.clear_gradient()
    x[::2, [2, 0]].sum().backward()           # strided_slice then gather_nd, as in Paddle
    expected = np.zeros((4, 3))
    expected[::2][:, [2, 0]] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)


# -- autograd -------------------------------------------------------------------------------------
def test_backward_matches_numeric_gradient():
    rng = np.random.default_rng(0)
    xv, wv = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))

    def loss(x, w):
        return (paddle.tanh(paddle.matmul(x, w)) * paddle.sigmoid(x).sum(axis=1, keepdim=True)
                ).mean()

    x, w = _leaf(xv), _leaf(wv)
    loss(x, w).backward()
    f = lambda a: loss(paddle.to_tensor(a), paddle.to_tensor(wv)).item()  # noqa: E731
    g = lambda b: loss(paddle.to_tensor(xv), paddle.to_tensor(b)).item()  # noqa: E731
    np.testing.assert_allclose(x.grad.numpy(), _numeric_grad(f, xv), atol=1e-7)
    np.testing.assert_allclose(w.grad.numpy(), _numeric_grad(g, wv), atol=1e-7)


def test_gradients_accumulate_and_clear():
    x = _leaf([1.0, 2.0])
    (x * x).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0])
    assert x.grad.stop_gradient
    x.clear_grad()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    assert x._grad_ivar() is x.grad            # Paddle's name for the gradient Tensor
    x.clear_gradient(set_to_zero=False)
    assert x.grad is None and x._grad_ivar() is None


def test_shared_input_and_broadcast_gradients():
    x = _leaf(np.ones((2, 3)))
    b = _leaf(np.array([1.0, 2.0, 3.0]))
    y = x * b + x
    (y * y).sum().backward()
    yv = np.ones((2, 3)) * np.array([1.0, 2.0, 3.0]) + 1
    np.testing.assert_allclose(x.grad.numpy(), 2 * yv * (np.array([1.0, 2, 3]) + 1))
    np.testing.assert_allclose(b.grad.numpy(), (2 * yv).sum(axis=0))


def test_stop_gradient_propagation_and_detach_clone_astype():
    x = _leaf([1.0, 2.0])
    frozen = paddle.to_tensor([1.0, 1.0], dtype="float64")
    assert (frozen * 2).stop_gradient and not (x * frozen).stop_gradient
    d = x.detach()
    assert d.stop_gradient and d.is_leaf
    c = x.clone()
    assert not c.stop_gradient and not c.is_leaf
    half = x.astype("float32")
    assert half.dtype == paddle.float32
    (c * 2 + half.astype("float64")).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_backward_twice_needs_retain_graph():
    x = _leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_graph_keeps_no_intermediate_alive_after_backward():
    import weakref
    x, w = _leaf(np.ones((2, 3))), _leaf(np.ones((3, 4)))
    hidden = paddle.nn.functional.relu(paddle.matmul(x, w))
    tensor_ref, array_ref = weakref.ref(hidden), weakref.ref(hidden._array)
    loss = (hidden * 2).sum()
    del hidden
    assert tensor_ref() is None                     # edges do not hold intermediate tensors
    assert array_ref() is not None                  # ...but what backward needs is saved
    loss.backward()
    assert array_ref() is None                      # and released by backward
    np.testing.assert_allclose(w.grad.numpy(), np.full((3, 4), 4.0))


def test_backward_with_grad_tensor_and_non_scalar():
    x = _leaf([1.0, 2.0])
    (x * 3).backward(paddle.to_tensor([1.0, 10.0], dtype="float64"))
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 30.0])


def test_no_grad_and_set_grad_enabled():
    x = _leaf([1.0])
    with paddle.no_grad():
        assert (x * 2).stop_gradient
    with paddle.set_grad_enabled(False):
        assert not paddle.is_grad_enabled() and (x * 2).stop_gradient
    assert paddle.is_grad_enabled() and not (x * 2).stop_gradient

    @paddle.no_grad()
    def frozen(t):
        return t * 2
    assert frozen(x).stop_gradient


def test_paddle_grad_for_leaf_and_intermediate_inputs():
    x = _leaf([1.0, 2.0])
    y = x * x
    z = (y * 3).sum()
    dz_dx, dz_dy = paddle.grad(z, [x, y])
    np.testing.assert_allclose(dz_dx.numpy(), [6.0, 12.0])
    np.testing.assert_allclose(dz_dy.numpy(), [3.0, 3.0])
    assert x.grad is None


def test_paddle_grad_allow_unused_and_grad_outputs():
    x, unused = _leaf([1.0, 2.0]), _leaf([5.0])
    y = x * 2
    with pytest.raises(ValueError, match="does not appear in the backward graph"):
        paddle.grad(y, [x, unused], retain_graph=True)
    gx, gu = paddle.grad(y, [x, unused], paddle.to_tensor([1.0, 3.0], dtype="float64"),
                         allow_unused=True)
    np.testing.assert_allclose(gx.numpy(), [2.0, 6.0])
    assert gu is None


def test_eager_ops_run_the_registered_declaration(monkeypatch):
    from pyfluid.engine import run as eager_run
    from pyfluid.ops import get_op
    calls = []
    for op_type in ("tanh", "tanh_grad"):
        opdef = get_op(op_type)
        original = opdef.kernel
        monkeypatch.setattr(opdef, "kernel", lambda *a, _k=original, _t=op_type, **kw:
                            calls.append(_t) or _k(*a, **kw))
    monkeypatch.setattr(eager_run, "_INFO", {})          # forget memoized kernels
    x = _leaf([0.5, 1.0])
    paddle.tanh(x).sum().backward()
    assert calls == ["tanh", "tanh_grad"]
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh([0.5, 1.0]) ** 2)


def test_backward_asks_only_for_wanted_gradients(monkeypatch):
    from pyfluid.engine import run as eager_run
    from pyfluid.ops import get_op
    seen = []
    grad_op = get_op("matmul_v2_grad")
    original = grad_op.kernel
    monkeypatch.setattr(grad_op, "kernel", lambda *a, **kw: seen.append(kw["wanted"])
                        or original(*a, **kw))
    monkeypatch.setattr(eager_run, "_INFO", {})
    data, w = paddle.ones([2, 3]), _leaf(np.ones((3, 4)), "float32")
    paddle.matmul(data, w).sum().backward()
    assert seen == [(False, True)]
    np.testing.assert_array_equal(w.grad.numpy(), np.full((3, 4), 2.0))


def test_grad_maker_ops_run_backward_through_their_grad_specs():
    x = _leaf(np.arange(6.0).reshape(2, 3))
    parts = paddle.engine.run_op("split", {"X": x}, {"num": 3, "axis": 1})
    (parts[0] * 2 + parts[2]).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2, 0, 1], [2, 0, 1]])


def test_eager_error_names_the_op_and_shapes():
    with pytest.raises(ValueError, match="matmul_v2.*float32\\[2, 3\\].*float32\\[2, 3\\]"):
        paddle.matmul(paddle.ones([2, 3]), paddle.ones([2, 3]))


# -- nn.Layer ----------------------------------------------------------------------------------
class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 8)
        self.act = paddle.nn.ReLU()
        self.fc2 = paddle.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def test_layer_parameters_names_and_state_dict():
    model = MLP()
    names = [n for n, _ in model.named_parameters()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert all(isinstance(p, EagerParameter) and not p.stop_gradient for p in model.parameters())
    assert model.fc1.weight.name == "linear_0.w_0" and model.fc2.bias.name == "linear_1.b_0"
    assert model.fc1.weight.shape == [4, 8]
    np.testing.assert_array_equal(model.fc1.bias.numpy(), np.zeros(8, "float32"))
    limit = np.sqrt(6.0 / (4 + 8))                     # XavierUniform
    assert np.abs(model.fc1.weight.numpy()).max() <= limit
    state = model.state_dict()
    assert list(state) == names
    other = MLP()
    missing, unexpected = other.set_state_dict({k: v.numpy() for k, v in state.items()})
    assert missing == [] and unexpected == []
    x = paddle.randn([5, 4])
    np.testing.assert_array_equal(model(x).numpy(), other(x).numpy())
    with pytest.raises(ValueError, match="receives a shape"):
        other.set_state_dict({"fc1.weight": np.zeros((2, 2))})


def test_layer_train_eval_and_sequential():
    seq = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.ReLU())
    assert len(seq) == 2 and isinstance(seq[1], paddle.nn.ReLU)
    seq.eval()
    assert not seq.training and not seq[0].training
    seq.train()
    assert seq[0].training
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]


def test_linear_and_cross_entropy_gradients():
    model = MLP()
    x = paddle.randn([5, 4])
    label = paddle.to_tensor(np.array([0, 2, 1, 1, 0]))
    loss = paddle.nn.CrossEntropyLoss()(model(x), label)
    loss.backward()
    w1, b1, w2, b2 = (p.numpy().astype("float64") for p in model.parameters())
    xv = x.numpy().astype("float64")

    def reference(w2_value):
        h = np.maximum(xv @ w1 + b1, 0)
        logits = h @ w2_value + b2
        logits = logits - logits.max(axis=1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        return -logp[np.arange(5), [0, 2, 1, 1, 0]].mean()

    assert loss.shape == [] and abs(loss.item() - reference(w2)) < 1e-6
    np.testing.assert_allclose(model.fc2.weight.grad.numpy(), _numeric_grad(reference, w2),
                               atol=1e-5)


def test_conv2d_layer_gradient():
    conv = paddle.nn.Conv2D(2, 3, kernel_size=3, padding=1)
    assert conv.weight.shape == [3, 2, 3, 3] and conv.weight.name == "conv2d_0.w_0"
    x = _leaf(np.random.default_rng(1).normal(size=(1, 2, 4, 4)), "float32")
    (conv(x) ** 2).mean().backward()
    wv = conv.weight.numpy().astype("float64")

    def loss_of(w):
        conv.weight._array = w.astype("float32")
        return (conv(x.detach()) ** 2).mean().item()

    numeric = _numeric_grad(loss_of, wv, eps=1e-2)
    np.testing.assert_allclose(conv.weight.grad.numpy(), numeric, rtol=2e-2, atol=1e-4)
    assert x.grad.shape == [1, 2, 4, 4]


def test_layer_builds_a_static_program_in_static_mode():
    paddle.enable_static()
    x = paddle.static.data("x", [None, 4])
    out = MLP()(x)
    assert isinstance(out, paddle.static.Variable) and out.shape == (-1, 3)
    params = paddle.static.default_main_program().global_block().all_parameters()
    assert sorted(p.name for p in params) == ["linear_0.b_0", "linear_0.w_0", "linear_1.b_0",
                                               "linear_1.w_0"]


def test_linear_is_one_op_and_one_backward_step_with_matmul_add_values():
    lin = paddle.nn.Linear(4, 3)
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal((5, 2, 4)).astype("float32"))
    x.stop_gradient = False
    out = lin(x)
    assert out._node.info.opdef.type == "fc"
    np.testing.assert_array_equal(out.numpy(), x.numpy() @ lin.weight.numpy() + lin.bias.numpy())
    out.sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), x.numpy().reshape(-1, 4).T.sum(
        axis=1, keepdims=True).repeat(3, axis=1), rtol=1e-5)
    np.testing.assert_allclose(lin.bias.grad.numpy(), np.full(3, 10.0), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(
        lin.weight.numpy().sum(axis=1), (5, 2, 4)), rtol=1e-5)


def test_optimizer_steps_update_parameters_in_place_and_guard_retained_graphs():
    lin = paddle.nn.Linear(3, 2)
    opt = paddle.optimizer.Momentum(0.1, parameters=lin.parameters())
    loss = lin(paddle.to_tensor(np.ones((4, 3), "float32"))).sum()
    loss.backward(retain_graph=True)
    weight, before = lin.weight._array, lin.weight.numpy()
    opt.step()
    assert lin.weight._array is weight                      # the parameter's own buffer
    np.testing.assert_allclose(weight, before - 0.1 * 4.0, rtol=1e-6)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()                                    # the graph saw the old weights
