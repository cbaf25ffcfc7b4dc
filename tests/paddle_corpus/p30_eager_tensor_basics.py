"""Dygraph tensors: creation, dtype, arithmetic, indexing, in-place-free math and backward."""
import numpy as np
import paddle

a = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
b = paddle.arange(4, dtype="float32").reshape([2, 2])
print("dtype", str(a.dtype), "shape", a.shape, "stop_gradient", a.stop_gradient)
print("ops", (a + b).numpy().tolist(), (a * 2 - 1).numpy().tolist(), (a @ b).numpy().tolist())
print("compare", (a > b).numpy().tolist(), str((a > b).dtype))
print("index", a[1].numpy().tolist(), a[:, 0].numpy().tolist())
print("reduce", float(a.sum()), a.mean(axis=0).numpy().tolist(), a.max().item())
print("creation", paddle.zeros([2]).numpy().tolist(), paddle.ones([1, 2], "int64").numpy().tolist(),
      paddle.full([2], 7, "int32").numpy().tolist(), str(paddle.full([2], 7, "int32").dtype))
w = paddle.to_tensor([0.5, -0.5], stop_gradient=False)
loss = (paddle.matmul(a, w) ** 2).sum()
loss.backward()
print("w_grad", w.grad.numpy().tolist(), "a_grad_none", a.grad is None)
with paddle.no_grad():
    c = w * 3
print("no_grad_stop", c.stop_gradient)
d = w.detach()
print("detach", d.stop_gradient, d.numpy().tolist())
print("astype", str(a.astype("int64").dtype), a.astype("int64").numpy().tolist())
