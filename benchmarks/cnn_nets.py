"""Training steps of the CNN benchmarks, written once against Paddle's static API: the same
code runs with ``paddle`` = pyfluid (benchmarks/cnn_train.py) and = PaddlePaddle 2.6
(benchmarks/paddle_side.py under ``$PADDLE_PYTHON``).

* ``lenet``: examples/lenet_mnist.py's network (conv-bn-relu-pool twice, two fc), 1x28x28,
  Adam;
* ``resnet18``: ResNet-18 (basic blocks [2, 2, 2, 2], batch norm, Momentum) on 3x64x64.
"""
from __future__ import annotations

NETS = {"lenet": ((1, 28, 28), 10), "resnet18": ((3, 64, 64), 100)}


def _lenet(paddle, image):
    F, nn = paddle.nn.functional, paddle.static.nn
    conv1 = nn.conv2d(image, num_filters=6, filter_size=5, padding=2)
    pool1 = F.max_pool2d(nn.batch_norm(conv1, act="relu"), kernel_size=2, stride=2)
    conv2 = nn.conv2d(pool1, num_filters=16, filter_size=5)
    pool2 = F.max_pool2d(nn.batch_norm(conv2, act="relu"), kernel_size=2, stride=2)
    hidden = nn.fc(paddle.flatten(pool2, start_axis=1), 120, activation="relu")
    return nn.fc(hidden, 10)


def _conv_bn(paddle, x, filters, size, stride=1, act=None):
    conv = paddle.static.nn.conv2d(x, filters, size, stride=stride, padding=size // 2,
                                   bias_attr=False)
    return paddle.static.nn.batch_norm(conv, act=act)


def _resnet18(paddle, image):
    F = paddle.nn.functional
    x = _conv_bn(paddle, image, 64, 7, stride=2, act="relu")
    x = F.max_pool2d(x, kernel_size=3, stride=2, padding=1)
    channels = 64
    for stage, filters in enumerate((64, 128, 256, 512)):
        for block in range(2):
            stride = 2 if stage and not block else 1
            out = _conv_bn(paddle, x, filters, 3, stride, act="relu")
            out = _conv_bn(paddle, out, filters, 3)
            shortcut = (_conv_bn(paddle, x, filters, 1, stride) if stride != 1 or
                        channels != filters else x)
            x = F.relu(paddle.add(out, shortcut))
            channels = filters
    x = F.adaptive_avg_pool2d(x, 1)
    return paddle.static.nn.fc(paddle.flatten(x, start_axis=1), NETS["resnet18"][1])


def training_step(paddle, net: str, batch: int):
    """A function running one training step of ``net`` on a fixed random batch."""
    import numpy as np
    paddle.enable_static()
    paddle.seed(1)
    shape, classes = NETS[net]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        image = paddle.static.data("image", [None, *shape], "float32")
        label = paddle.static.data("label", [None, 1], "int64")
        logits = (_lenet if net == "lenet" else _resnet18)(paddle, image)
        loss = paddle.nn.functional.cross_entropy(logits, label)
        optimizer = (paddle.optimizer.Adam(learning_rate=0.001) if net == "lenet" else
                     paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9))
        optimizer.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(0)
    feed = {"image": rng.standard_normal((batch, *shape)).astype("float32"),
            "label": rng.integers(0, classes, (batch, 1)).astype("int64")}
    return lambda: exe.run(main, feed=feed, fetch_list=[loss])
