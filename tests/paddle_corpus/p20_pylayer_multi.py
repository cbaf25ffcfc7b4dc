"""PyLayer with two inputs, a non-tensor argument, two outputs and mark_non_differentiable."""
import numpy as np
import paddle
from paddle.autograd import PyLayer


class ScaledProduct(PyLayer):
    @staticmethod
    def forward(ctx, a, b, factor):
        ctx.factor = factor
        ctx.save_for_backward(a, b)
        product = a * b * factor
        count = paddle.cast(a > 0, "float32")
        ctx.mark_non_differentiable(count)
        return product, count

    @staticmethod
    def backward(ctx, d_product, d_count):
        a, b = ctx.saved_tensor()
        return d_product * b * ctx.factor, d_product * a * ctx.factor


a = paddle.to_tensor([1.0, -2.0, 3.0], stop_gradient=False)
b = paddle.to_tensor([4.0, 5.0, -6.0], stop_gradient=False)
product, count = ScaledProduct.apply(a, b, 0.5)
(product.sum() + count.sum()).backward()
print("product", product.numpy().tolist(), "count", count.numpy().tolist())
print("count_stop_gradient", count.stop_gradient)
print("grad_a", a.grad.numpy().tolist(), "grad_b", b.grad.numpy().tolist())
