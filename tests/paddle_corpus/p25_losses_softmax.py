"""Loss functions in a static program: soft-label cross entropy, softmax_with_cross_entropy,
ignore_index, class weights, L1, MSE and their gradients."""
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()
logits = paddle.static.data("logits", [4, 3], "float32")
logits.stop_gradient = False
hard = paddle.static.data("hard", [4, 1], "int64")
soft = paddle.static.data("soft", [4, 3], "float32")
target = paddle.static.data("target", [4, 3], "float32")
class_weight = paddle.static.data("class_weight", [3], "float32")
losses = {
    "ce_mean": F.cross_entropy(logits, hard),
    "ce_none": F.cross_entropy(logits, hard, reduction="none"),
    "ce_soft": F.cross_entropy(logits, soft, soft_label=True),
    "ce_ignore": F.cross_entropy(logits, hard, ignore_index=1),
    "ce_weight": F.cross_entropy(logits, hard, weight=class_weight),
    "ce_sum": F.cross_entropy(logits, hard, reduction="sum"),
    "swce": F.softmax_with_cross_entropy(logits, hard),
    "l1": F.l1_loss(logits, target), "mse_sum": F.mse_loss(logits, target, reduction="sum"),
    "log_softmax": F.log_softmax(logits, axis=-1),
}
total = paddle.add_n([paddle.sum(v) for v in losses.values()])
(dlogits,) = paddle.static.gradients([total], [logits])
exe = paddle.static.Executor(paddle.CPUPlace())
rng = np.random.RandomState(25)
soft_np = rng.rand(4, 3).astype("float32")
feed = {"logits": rng.randn(4, 3).astype("float32"), "hard": np.array([[0], [2], [1], [2]], "int64"),
        "soft": soft_np / soft_np.sum(1, keepdims=True), "target": rng.rand(4, 3).astype("float32"),
        "class_weight": np.array([1.0, 2.0, 0.5], "float32")}
fetched = exe.run(feed=feed, fetch_list=list(losses.values()) + [dlogits])
for name, value in zip(list(losses) + ["dlogits"], fetched):
    print(name, np.asarray(value).tolist(), list(np.asarray(value).shape))
