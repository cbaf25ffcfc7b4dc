"""PyLayerContext and in-place rules: the scenarios of Paddle's test_pylayer_op.py (spec
§9.5) about in-place forwards, materialize_grads, mark_non_differentiable, saved tensors,
once_differentiable and backward inside backward (spec §8)."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.autograd import PyLayer, once_differentiable


@pytest.fixture(autouse=True)
def dygraph():
    paddle.disable_static()
    yield


def _randn64():
    return paddle.randn([2, 3]).astype("float64")


class Identity(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, dy):
        return dy


class SquareThenIdentity(paddle.nn.Layer):
    def forward(self, data):
        squared = data ** 2
        return Identity.apply(squared).mean()


@pytest.mark.parametrize("scale", [1, 2])
def test_inplace_forward_on_non_leaf(scale):
    data = paddle.ones([2, 3], dtype="float64") / scale
    data.stop_gradient = False
    SquareThenIdentity()(data).backward()
    np.testing.assert_allclose(data.grad.numpy(), 2 * data.numpy() / 6)


def test_inplace_forward_on_leaf_is_value_error():
    data = paddle.ones([2, 3], dtype="float64")
    data.stop_gradient = False
    with pytest.raises(ValueError, match=r"Leaf Var \(.*\) that doesn't stop gradient can't use "
                                         "inplace strategy."):
        Identity.apply(data)


def test_stale_inplace_version_is_runtime_error():
    data = paddle.ones([2, 3], dtype="float64")
    data.stop_gradient = False
    var_b = data ** 2
    var_c = var_b ** 2
    Identity.apply(var_b)
    assert var_b.inplace_version == 1
    with pytest.raises(RuntimeError, match="received tensor_version:1 != "
                                           "wrapper_version_snapshot:0"):
        paddle.nn.functional.relu(var_c).backward()


@pytest.mark.parametrize("use, derivative", [(lambda c: c ** 2, lambda x: 4 * x ** 3),
                                             (lambda c: c + c, lambda x: 4 * x)])
def test_inplace_then_use_succeeds(use, derivative):
    data = paddle.ones([2, 3], dtype="float64") / 2
    data.stop_gradient = False
    var_c = Identity.apply(data ** 2)
    use(var_c).sum().backward()
    np.testing.assert_allclose(data.grad.numpy(), derivative(data.numpy()))


def test_backward_inside_backward():
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.inputs = x.detach()
            return x.mean()

        @staticmethod
        def backward(ctx, dy):
            with paddle.set_grad_enabled(True):
                temp = ctx.inputs
                temp.stop_gradient = False
                paddle.tanh(temp).backward()
                assert temp.grad is not None
                return paddle.to_tensor(temp.grad)

    data = paddle.ones([2, 3], dtype="float32") / 2
    data.stop_gradient = False
    Layer.apply(paddle.nn.functional.relu(data)).backward()
    np.testing.assert_allclose(data.grad.numpy(), 1 - np.tanh(data.numpy()) ** 2, rtol=1e-6)


@pytest.mark.parametrize("materialize", [True, False])
def test_materialize_grads(materialize):
    seen = {}

    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            ctx.set_materialize_grads(materialize)
            return x, x + x

        @staticmethod
        def backward(ctx, grad, grad2):
            seen["grad2"] = grad2
            return grad

    x = paddle.ones([1], dtype="float64")
    x.stop_gradient = False
    out = Layer.apply(x)
    assert out[0] is not x
    out[0].backward()
    if materialize:
        assert bool(seen["grad2"] == paddle.zeros([1]))
    else:
        assert seen["grad2"] is None
    assert x.grad.item() == 1.0


def test_mark_non_differentiable_only_output_skips_backward():
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x):
            a = x + x
            ctx.mark_non_differentiable(a)
            return a

        @staticmethod
        def backward(ctx, grad):
            raise AssertionError("backward must not run")

    x = paddle.ones([1], dtype="float64")
    x.stop_gradient = False
    y = Layer.apply(x)
    assert y.stop_gradient
    y.sum().backward()
    assert x.grad is None


def test_mark_non_differentiable_output_gets_zero_grad():
    seen = {}

    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x):
            a, b = x + x, x + x + x
            ctx.mark_non_differentiable(a)
            return a, b

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            seen["a"], seen["b"] = grad_a.numpy(), grad_b.numpy()
            return grad_b

    x = paddle.ones([1], dtype="float64")
    x.stop_gradient = False
    a, b = Layer.apply(x)
    b.sum().backward()
    assert seen["a"].tolist() == [0.0] and seen["b"].tolist() == [1.0]
    assert bool(x.grad == paddle.ones([1], dtype="float64"))


def test_error_in_nested_backward_names_the_pylayer():
    class Broken(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = paddle.tanh(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            (y,) = ctx.saved_tensor()
            return paddle.reshape(y, [-1]) @ y      # shape error

    class Outer(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = paddle.tanh(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            (y,) = ctx.saved_tensor()
            with paddle.set_grad_enabled(True):
                y.stop_gradient = False
                Broken.apply(y).mean().backward()
            return dy

    data = paddle.randn([2, 3])
    data.stop_gradient = False
    with pytest.raises(OSError, match="Error message in backward of PyLayer 'Broken'"):
        Outer.apply(data).mean().backward()


def test_grad_in_dtype_consistent_flag():
    seen = {}

    class Keep(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_grad_in_dtype_consistent(False)
            return paddle.tanh(x)

        @staticmethod
        def backward(ctx, dy):
            seen["dtype"] = dy.dtype
            return dy

    class HalfGrad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return paddle.tanh(x)

        @staticmethod
        def backward(ctx, dy):
            return paddle.cast(dy, paddle.float16)

    x = paddle.randn([3, 3])
    x.stop_gradient = False
    HalfGrad.apply(Keep.apply(x)).sum().backward()
    assert seen["dtype"] == paddle.float16


def test_saved_tensors_and_ctx_attributes_and_once_differentiable():
    class Mul(PyLayer):
        @staticmethod
        def forward(ctx, x, y, factor):
            ctx.save_for_backward(x)
            ctx.save_for_backward(x, y)           # a second call replaces the first
            ctx.factor = factor
            return x * y * factor

        @staticmethod
        @once_differentiable
        def backward(ctx, dz):
            x, y = ctx.saved_tensor()
            assert not paddle.is_grad_enabled()
            return dz * y * ctx.factor, dz * x * ctx.factor

    x, y = _randn64(), _randn64()
    x.stop_gradient = y.stop_gradient = False
    Mul.apply(x, y, 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * y.numpy())
    np.testing.assert_allclose(y.grad.numpy(), 3 * x.numpy())


def test_static_variables_are_refused():
    paddle.enable_static()
    x = paddle.static.data("x", [None, 3])
    with pytest.raises(TypeError, match="use paddle.static.py_func"):
        Identity.apply(x)
