"""The names Paddle gives the outputs of common static-mode API calls."""
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()
x = paddle.static.data("x", [None, 4], "float32")
label = paddle.static.data("label", [None, 1], "int64")
h = paddle.static.nn.fc(x, 3, activation="relu")
outs = [h, F.relu(x), F.softmax(h), paddle.matmul(x, x, transpose_y=True), paddle.mean(h),
        paddle.sum(h, axis=1), paddle.reshape(h, [-1, 1]), paddle.concat([h, h], axis=1),
        paddle.scale(h, 2.0), paddle.add(h, h), h * h, h + 1.0, F.sigmoid(h), paddle.tanh(h),
        F.cross_entropy(h, label), paddle.transpose(h, [1, 0]), paddle.cast(h, "float64"),
        paddle.unsqueeze(h, 1), paddle.argmax(h, axis=1), paddle.exp(h), h > 0.5,
        paddle.static.accuracy(F.softmax(h), label), paddle.full([1], 2.0), paddle.square(h)]
for v in outs:
    print("name", v.name, list(v.shape), str(v.dtype))
