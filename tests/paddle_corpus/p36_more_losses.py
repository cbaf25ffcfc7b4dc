"""More losses in a static program, with their input gradients: BCE (with logits and on
probabilities), smooth L1, NLL after log_softmax, KL divergence and margin ranking."""
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()
logit = paddle.static.data("logit", [4, 3], "float32")
logit.stop_gradient = False
target = paddle.static.data("target", [4, 3], "float32")
label = paddle.static.data("label", [4], "int64")
prob = F.sigmoid(logit)
losses = {
    "bce_logits": F.binary_cross_entropy_with_logits(logit, target),
    "bce_logits_sum": F.binary_cross_entropy_with_logits(logit, target, reduction="sum"),
    "bce": F.binary_cross_entropy(prob, target),
    "smooth_l1": F.smooth_l1_loss(logit, target),
    "smooth_l1_delta": F.smooth_l1_loss(logit, target, reduction="none", delta=0.5),
    "nll": F.nll_loss(F.log_softmax(logit), label),
    "kl": F.kl_div(F.log_softmax(logit), F.softmax(target), reduction="batchmean"),
}
total = paddle.add_n([paddle.sum(v) for v in losses.values()])
(grad,) = paddle.static.gradients([total], [logit])
exe = paddle.static.Executor(paddle.CPUPlace())
rng = np.random.RandomState(36)
feed = {"logit": rng.randn(4, 3).astype("float32"), "target": rng.rand(4, 3).astype("float32"),
        "label": np.array([0, 2, 1, 1], "int64")}
for name, value in zip(list(losses) + ["grad"], exe.run(feed=feed, fetch_list=list(losses.values()) + [grad])):
    print(name, np.asarray(value).tolist())
