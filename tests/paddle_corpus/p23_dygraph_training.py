"""Dygraph training of an nn.Sequential with Adam, clear_grad and state_dict."""
import numpy as np
import paddle

rng = np.random.RandomState(23)
model = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Tanh(), paddle.nn.Linear(4, 1))
for param in model.parameters():
    param.set_value(rng.uniform(-0.5, 0.5, param.shape).astype("float32"))
opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())
x = paddle.to_tensor(rng.randn(10, 3).astype("float32"))
y = paddle.to_tensor(rng.randn(10, 1).astype("float32"))
for step in range(8):
    loss = paddle.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("loss", step, float(loss))
print("state_keys", list(model.state_dict().keys()))
print("last_bias", model.state_dict()["2.bias"].numpy().tolist())
print("first_grad_cleared", model[0].weight.grad is None or float(model[0].weight.grad.abs().sum()) == 0.0)
