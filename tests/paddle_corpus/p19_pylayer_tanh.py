"""A custom tanh with PyLayer: saved tensors, backward, grads and stop_gradient."""
import numpy as np
import paddle
from paddle.autograd import PyLayer


class CusTanh(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = paddle.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * (1 - paddle.square(y))


x = paddle.to_tensor(np.array([[0.5, -1.0], [2.0, 0.1]], "float32"), stop_gradient=False)
y = CusTanh.apply(x)
z = (y * y).sum()
z.backward()
print("y", y.numpy().tolist())
print("grad", x.grad.numpy().tolist())
print("y_stop_gradient", y.stop_gradient)
x.clear_gradient()
CusTanh.apply(x * 3).mean().backward()
print("grad_scaled", x.grad.numpy().tolist())
