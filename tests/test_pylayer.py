"""PyLayer: the scenarios of Paddle's test_pylayer_op.py (spec §9.5) and the rules of §8."""
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


def _pair():
    a = _randn64()
    b = a.detach().clone()
    a.stop_gradient = False
    b.stop_gradient = False
    return a, b


class TanhTwice(PyLayer):
    @staticmethod
    def forward(ctx, x1, x2, func1, func2=paddle.square):
        ctx.func = func2
        y1, y2 = func1(x1), func1(x2)
        ctx.save_for_backward(y1, y2)
        return y1, 1, y2, None

    @staticmethod
    def backward(ctx, dy1, dy2):
        y1, y2 = ctx.saved_tensor()
        return dy1 * (1 - ctx.func(y1)), dy2 * (1 - paddle.square(y2))


def test_multiple_outputs_with_non_tensor_items():
    a, b = _pair()
    z = TanhTwice.apply(a, a, paddle.tanh, paddle.square)
    assert z[1] == 1 and z[3] is None
    (z[0] + z[2]).mean().backward()
    (paddle.tanh(b) + paddle.tanh(b)).mean().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-10)


def test_none_grads_for_stop_gradient_inputs():
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2, func1):
            y1, y2 = func1(x1), func1(x2)
            ctx.save_for_backward(y1, y2)
            return 1, None, y1, y2, ""

        @staticmethod
        def backward(ctx, dy1, dy2):
            y1, _ = ctx.saved_tensor()
            return dy1 * (1 - paddle.square(y1)), None

    a, b = _pair()
    frozen = a.detach().clone()
    z = Layer.apply(a, frozen, paddle.tanh)
    (z[2] + z[3]).mean().backward()
    (paddle.tanh(b) + paddle.tanh(frozen)).mean().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-10)
    assert frozen.grad is None


def test_keyword_tensor_input():
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x1, func1, func2=paddle.square):
            ctx.func = func2
            y1 = func1(x1)
            ctx.save_for_backward(y1)
            return y1

        @staticmethod
        def backward(ctx, dy1):
            (y1,) = ctx.saved_tensor()
            return dy1 * (1 - ctx.func(y1))

    a, b = _pair()
    Layer.apply(x1=a, func1=paddle.tanh).mean().backward()
    paddle.tanh(b).mean().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-10)


def test_list_input_is_one_duplicable_slot():
    class Concat(PyLayer):
        @staticmethod
        def forward(ctx, x1, func1, func2=paddle.split):
            ctx.func = func2
            y1 = func1(x1)
            ctx.save_for_backward(y1)
            return y1

        @staticmethod
        def backward(ctx, dy1):
            return ctx.func(dy1, 3)                # a list: the grads of the list input

    xs = [_randn64() for _ in range(3)]
    for x in xs:
        x.stop_gradient = False
    z = Concat.apply(x1=xs, func1=paddle.concat)
    assert z.shape == [6, 3]
    (z * z).mean().backward()
    for x in xs:
        np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() / 18)
    twins = [x.detach().clone() for x in xs]
    for t in twins:
        t.stop_gradient = False
    (paddle.concat(twins) ** 2).mean().backward()
    np.testing.assert_allclose(xs[0].grad.numpy(), twins[0].grad.numpy(), atol=1e-10)


def test_too_few_backward_values_is_value_error():
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2):
            return x1 + x2

        @staticmethod
        def backward(ctx, dy1):
            return dy1 + 1

    a, b = _pair()
    z = Layer.apply(a, b)
    with pytest.raises(ValueError, match="should not return empty at 1 position"):
        z.mean().backward()


def test_too_many_backward_values_is_value_error():
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 5

        @staticmethod
        def backward(ctx, dy1, dy2):
            return dy2 * 2, dy1 * 2

    a, _ = _pair()
    z = Layer.apply(a)
    with pytest.raises(ValueError, match=r"should be 1, but received 2"):
        (z[0] + z[1]).mean().backward()


@pytest.mark.parametrize("value", [1, (1, 1)])
def test_int_backward_value_is_value_error(value):
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2):
            return x1 * 2, x2 * 5

        @staticmethod
        def backward(ctx, *args):
            return value

    a, _ = _pair()
    y = Layer.apply(a, a)
    with pytest.raises(ValueError, match="only support Tensor or None"):
        (y[0] + y[1]).mean().backward()


def test_value_for_stop_gradient_input_must_be_none():
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2):
            return x1 + x2

        @staticmethod
        def backward(ctx, dy):
            return dy, dy

    frozen, a = _randn64(), _randn64()
    a.stop_gradient = False
    z = Layer.apply(frozen, a)
    with pytest.raises(ValueError, match="should return None at 0 position"):
        z.mean().backward()


def test_backward_returning_none_leaves_grad_none():
    class Double(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            return None

    class AddFirstNone(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2):
            return x1 + x2

        @staticmethod
        def backward(ctx, dy):
            return None, dy

    a, b = _pair()
    Double.apply(a).sum().backward()
    assert a.grad is None
    z = AddFirstNone.apply(b, b)
    z.mean().backward()
    assert z.grad is None
    np.testing.assert_allclose(b.grad.numpy(), np.full([2, 3], 1 / 6))


@pytest.mark.parametrize("dtype", ["bool", "float16", "float32", "float64", "uint8", "int32",
                                   "int64"])
def test_dtype_cast_in_forward(dtype):
    class Cast(PyLayer):
        @staticmethod
        def forward(ctx, x, dtype):
            return paddle.cast(x, dtype)

        @staticmethod
        def backward(ctx, dy):
            return dy

    x = paddle.randn([2, 3])
    x.stop_gradient = False
    z = Cast.apply(x, dtype)
    assert z.dtype == paddle.ops.convert_dtype(dtype)
    paddle.cast(z, "float32").sum().backward()
    assert x.grad is not None and x.grad.dtype == paddle.float32


@pytest.mark.parametrize("result", [None, 1])
def test_forward_without_tensor_output_is_value_error(result):
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, *args):
            return result

        @staticmethod
        def backward(ctx, *args):
            return args

    with pytest.raises(ValueError, match="At least one output of `PyLayer.forward` is a"):
        Layer.apply(_randn64())


@pytest.mark.parametrize("make", [lambda x: [None, x], lambda x: [1, 2, x]])
def test_non_tensor_items_beside_a_tensor_are_returned(make):
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, *args):
            return make(args[0] * 1)

        @staticmethod
        def backward(ctx, *args):
            return args

    x = _randn64()
    out = Layer.apply(x)
    assert isinstance(out, list) and out[:-1] == make(x)[:-1]
    np.testing.assert_array_equal(out[-1].numpy(), x.numpy())


def test_missing_forward_is_not_implemented():
    class Layer(PyLayer):
        @staticmethod
        def backward(ctx, *args):
            return args

    with pytest.raises(NotImplementedError, match="implement the forward function"):
        Layer.apply(_randn64())


def test_missing_backward_is_os_error_when_backward_runs():
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 5

    a, _ = _pair()
    z = Layer.apply(a)
    with pytest.raises(OSError, match="implement the backward function"):
        (z[0] + z[1]).mean().backward()


def test_backward_not_run_when_no_input_needs_grad():
    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x1, func1, func2=paddle.square, xx=None):
            return func1(x1)

        @staticmethod
        def backward(ctx, x1, y1, dy1):      # wrong signature: never called
            raise AssertionError("backward must not run")

    z = Layer.apply(_randn64(), paddle.tanh, paddle.square)
    assert z.stop_gradient
    z.mean().backward()
    assert z.grad is None


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


def test_tensor_created_in_forward_is_an_output_slot():
    seen = {}

    class Layer(PyLayer):
        @staticmethod
        def forward(ctx, x1):
            return paddle.tanh(x1), 5, None, "helloworld", paddle.to_tensor([1, 2], "float32")

        @staticmethod
        def backward(ctx, dy1, dy2):
            seen["dy2"] = dy2.numpy()
            return dy1

    a, _ = _pair()
    z, number, none_item, text, extra = Layer.apply(x1=a)
    assert (number, none_item, text) == (5, None, "helloworld")
    z.mean().backward()
    np.testing.assert_array_equal(seen["dy2"], np.zeros(2, "float32"))


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


def test_partial_grad_with_paddle_grad():
    class Layer(TanhTwice):
        @staticmethod
        def forward(ctx, x1, x2, func1, func2=paddle.square):
            outs = TanhTwice.forward(ctx, x1, x2, func1, func2)
            ctx.mark_non_differentiable(outs[2])
            return outs

    a, b = _pair()
    z = Layer.apply(a, a, paddle.tanh, paddle.square)
    (grad_a,) = paddle.grad((z[0] + z[2]).mean(), [a], retain_graph=True)
    y0, y1 = paddle.tanh(b), paddle.tanh(b)
    y1.stop_gradient = True
    (grad_b,) = paddle.grad((y0 + y1).mean(), [b], retain_graph=True)
    np.testing.assert_allclose(grad_a, grad_b)
    assert a.grad is None


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
