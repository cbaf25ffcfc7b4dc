"""paddle.jit.to_static with an InputSpec, jit.save, jit.load and inference."""
import numpy as np
import paddle


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 3)
        self.fc2 = paddle.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(paddle.nn.functional.relu(self.fc1(x)))


net = Net()
rng = np.random.RandomState(22)
for name, param in net.named_parameters():
    param.set_value(rng.uniform(-1, 1, param.shape).astype("float32"))
print("param_names", [name for name, _ in net.named_parameters()])
data = paddle.to_tensor(rng.randn(2, 4).astype("float32"))
eager_out = net(data).numpy()
static_net = paddle.jit.to_static(net, input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
paddle.jit.save(static_net, "./jit/net")
loaded = paddle.jit.load("./jit/net")
loaded.eval()
print("eager", eager_out.tolist())
print("loaded", loaded(data).numpy().tolist())
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
program, feeds, fetches = paddle.static.load_inference_model("./jit/net", exe)
print("feeds", feeds)
print("static", exe.run(program, feed={feeds[0]: data.numpy()}, fetch_list=fetches)[0].tolist())
