"""Dygraph gradients through common ops: softmax, log_softmax, layer_norm, conv2d, pooling,
gather, concat/split, max, where, cumsum, matmul with transpose, expand and slicing."""
import numpy as np
import paddle
import paddle.nn.functional as F

rng = np.random.RandomState(38)


def leaf(*shape):
    return paddle.to_tensor(rng.randn(*shape).astype("float32"), stop_gradient=False)


def report(name, out, *inputs):
    weights = paddle.to_tensor(rng.randn(*out.shape).astype("float32"))
    grads = paddle.grad((out * weights).sum(), list(inputs))
    print(name, out.numpy().tolist(), [g.numpy().tolist() for g in grads])


x = leaf(2, 3)
report("softmax", F.softmax(x, axis=1), x)
report("log_softmax", F.log_softmax(x, axis=0), x)
w, b = leaf(3), leaf(3)
report("layer_norm", F.layer_norm(x, 3, w, b), x, w, b)
img, kernel = leaf(1, 2, 4, 4), leaf(3, 2, 3, 3)
report("conv2d", F.conv2d(img, kernel, stride=1, padding=1), img, kernel)
report("max_pool", F.max_pool2d(img, 2), img)
report("avg_pool", F.avg_pool2d(img, 2, stride=1), img)
report("gather", paddle.gather(x, paddle.to_tensor([1, 0, 1]), axis=0), x)  # (axis=1: docs/interop.md)
a, c = paddle.split(paddle.concat([x, x * 2], axis=0), [1, 3], axis=0)
report("concat_split", c, x)
report("max", paddle.max(x, axis=1), x)
report("where", paddle.where(x > 0, x * x, -x), x)
report("cumsum", paddle.cumsum(x, axis=1), x)
m = leaf(4, 3)
report("matmul_t", paddle.matmul(x, m, transpose_y=True), x, m)
report("expand", paddle.expand(leaf(1, 3) * x[0:1], [4, 3]), x)
report("slice", x[:, 1:] * 3, x)
report("mean_std", paddle.std(x, axis=0), x)
