"""MLP classifier with softmax cross entropy, static.accuracy and Adam."""
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()
rng = np.random.RandomState(2)
images = rng.randn(32, 8).astype("float32")
labels = (images[:, :4].sum(1) > 0).astype("int64").reshape(-1, 1) + \
    (images[:, 4:].sum(1) > 0).astype("int64").reshape(-1, 1)

def attr(shape, seed):
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(
        np.random.RandomState(seed).uniform(-0.5, 0.5, shape).astype("float32")))

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    img = paddle.static.data("img", [None, 8], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    hidden = paddle.static.nn.fc(img, 16, activation="relu", weight_attr=attr([8, 16], 10))
    logits = paddle.static.nn.fc(hidden, 3, weight_attr=attr([16, 3], 11))
    loss = F.cross_entropy(logits, label)
    avg_loss = paddle.mean(loss)
    acc = paddle.static.accuracy(input=F.softmax(logits), label=label, k=1)
    paddle.optimizer.Adam(learning_rate=0.01).minimize(avg_loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
for epoch in range(15):
    l, a = exe.run(main, feed={"img": images, "label": labels}, fetch_list=[avg_loss, acc])
    print("epoch", epoch, float(l), float(a))
print("loss_var_shape", list(loss.shape))
print("acc_dtype", str(acc.dtype))
