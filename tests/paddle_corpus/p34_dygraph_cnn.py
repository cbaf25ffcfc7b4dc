"""A dygraph LeNet-style model: Conv2D, MaxPool2D, BatchNorm2D, Flatten, Linear, SGD."""
import numpy as np
import paddle

rng = np.random.RandomState(34)


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(1, 2, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(2)
        self.pool = paddle.nn.MaxPool2D(2, 2)
        self.fc = paddle.nn.Linear(2 * 3 * 3, 3)

    def forward(self, x):
        x = self.pool(paddle.nn.functional.relu(self.bn(self.conv(x))))
        return self.fc(paddle.flatten(x, 1))


net = Net()
for name, param in net.named_parameters():       # includes BatchNorm's running statistics
    low, high = (0.5, 1.5) if name.endswith("_variance") else (-0.5, 0.5)
    param.set_value(rng.uniform(low, high, param.shape).astype("float32"))
opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
images = paddle.to_tensor(rng.rand(4, 1, 6, 6).astype("float32"))
labels = paddle.to_tensor(np.array([[0], [1], [2], [1]], "int64"))
for step in range(4):
    loss = paddle.nn.functional.cross_entropy(net(images), labels)
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("loss", step, float(loss))
net.eval()
print("eval_logits", net(images).numpy()[:2].tolist())
print("running_mean", net.bn._mean.numpy().tolist())
print("param_names", [n for n, _ in net.named_parameters()])
