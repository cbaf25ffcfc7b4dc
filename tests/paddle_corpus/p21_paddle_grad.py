"""paddle.grad: first and second order, retain_graph, allow_unused."""
import numpy as np
import paddle

x = paddle.to_tensor(np.array([1.0, 2.0, -0.5], "float32"), stop_gradient=False)
w = paddle.to_tensor(np.array([0.5, -1.0, 2.0], "float32"), stop_gradient=False)
unused = paddle.to_tensor([1.0], stop_gradient=False)
y = (x * x * w).sum()
(dx,) = paddle.grad(y, x, create_graph=True)
print("dx", dx.numpy().tolist(), "dx_stop_gradient", dx.stop_gradient)
(ddx,) = paddle.grad(dx.sum(), x, retain_graph=True)
print("ddx", ddx.numpy().tolist())
dw, du = paddle.grad(y, [w, unused], allow_unused=True)
print("dw", dw.numpy().tolist(), "unused_is_none", du is None)
z = paddle.matmul(paddle.reshape(x, [1, 3]), paddle.reshape(w, [3, 1]))
(gx,) = paddle.grad(z, x, grad_outputs=paddle.to_tensor([[3.0]]))
print("gx", gx.numpy().tolist())
