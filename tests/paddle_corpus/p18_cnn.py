"""A small CNN: conv2d + pool2d + fc, trained with Momentum for a few steps."""
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()
rng = np.random.RandomState(18)
images = rng.rand(4, 1, 8, 8).astype("float32")
labels = np.array([[0], [1], [1], [0]], "int64")
conv_w = rng.uniform(-0.3, 0.3, [4, 1, 3, 3]).astype("float32")
fc_w = rng.uniform(-0.2, 0.2, [36, 2]).astype("float32")

img = paddle.static.data("img", [None, 1, 8, 8], "float32")
label = paddle.static.data("label", [None, 1], "int64")
conv = paddle.static.nn.conv2d(img, num_filters=4, filter_size=3, padding=1, act="relu",
                               param_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(conv_w)))
pool = F.max_pool2d(conv, kernel_size=2, stride=2)
avg = F.avg_pool2d(pool, kernel_size=2, stride=1, padding=0)
flat = paddle.flatten(avg, start_axis=1)
logits = paddle.static.nn.fc(flat, 2, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(fc_w)))
loss = paddle.mean(F.cross_entropy(logits, label))
paddle.optimizer.Momentum(0.1, momentum=0.9).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
for step in range(5):
    l, lg = exe.run(feed={"img": images, "label": labels}, fetch_list=[loss, logits])
    print("step", step, float(l), lg.tolist())
print("shapes", list(conv.shape), list(pool.shape), list(avg.shape), list(flat.shape))
print("forward_ops", [op.type for op in paddle.static.default_main_program().global_block().ops][:12])
