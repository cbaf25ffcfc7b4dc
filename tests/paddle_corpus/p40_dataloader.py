"""Feeding a static program from paddle.io.Dataset / DataLoader and from paddle.batch."""
import numpy as np
import paddle

paddle.enable_static()


class Squares(paddle.io.Dataset):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def __getitem__(self, index):
        x = np.array([index, index + 1], "float32")
        return x, np.array([index * index], "float32")

    def __len__(self):
        return self.n


x = paddle.static.data("x", [None, 2], "float32")
y = paddle.static.data("y", [None, 1], "float32")
pred = paddle.static.nn.fc(x, 1, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)))
loss = paddle.mean(paddle.square(pred - y))
paddle.optimizer.SGD(0.001).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
dataset = Squares(10)
print("len", len(dataset), [v.tolist() for v in dataset[3]])
loader = paddle.io.DataLoader(dataset, batch_size=4, shuffle=False, drop_last=False)
print("batches", len(loader))
for epoch in range(2):
    for batch_x, batch_y in loader():
        (l,) = exe.run(feed={"x": np.array(batch_x), "y": np.array(batch_y)}, fetch_list=[loss])
        print("batch", epoch, list(np.array(batch_x).shape), float(l))


def reader():
    for i in range(5):
        yield np.array([i, 2 * i], "float32"), np.array([i], "float32")


for batch in paddle.batch(reader, batch_size=2)():
    xs = np.stack([b[0] for b in batch])
    print("paddle_batch", xs.tolist())
