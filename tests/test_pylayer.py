"""PyLayer slots and gradients: the scenarios of Paddle's test_pylayer_op.py (spec §9.5)
about forward inputs and outputs, backward's return values and their errors, and partial
grads (spec §8). PyLayerContext and in-place rules: test_pylayer_ctx.py."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.autograd import PyLayer


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
