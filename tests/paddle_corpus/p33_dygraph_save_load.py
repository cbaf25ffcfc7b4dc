"""Dygraph state dicts: paddle.save / paddle.load of a Layer and its optimizer."""
import numpy as np
import paddle

rng = np.random.RandomState(33)
net = paddle.nn.Linear(3, 2)
net.weight.set_value(rng.randn(3, 2).astype("float32"))
net.bias.set_value(np.array([0.5, -0.5], "float32"))
opt = paddle.optimizer.Adam(0.1, parameters=net.parameters())
x = paddle.to_tensor(rng.randn(4, 3).astype("float32"))
loss = net(x).pow(2).mean()
loss.backward()
opt.step()
opt.clear_grad()
paddle.save(net.state_dict(), "net.pdparams")
paddle.save(opt.state_dict(), "opt.pdopt")
restored = paddle.nn.Linear(3, 2)
restored.set_state_dict(paddle.load("net.pdparams"))
print("same_output", np.allclose(restored(x).numpy(), net(x).numpy()))
print("weight", restored.weight.numpy().tolist())
state = paddle.load("net.pdparams")
print("keys", sorted(state), type(state["weight"]).__name__ in ("Tensor", "ndarray"))
opt_state = paddle.load("opt.pdopt")
print("opt_keys", sorted(k for k in opt_state if k != "LR_Scheduler"))
