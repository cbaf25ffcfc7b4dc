"""Elementwise and reduction math in static mode: exp/log/sqrt/clip/pow/where/cumsum/argmax/topk."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data("x", [2, 4], "float32")
outs = {
    "exp": paddle.exp(x), "log": paddle.log(paddle.abs(x) + 1), "sqrt": paddle.sqrt(paddle.abs(x)),
    "clip": paddle.clip(x, -1.0, 2.0), "pow": paddle.pow(x, 3), "square": paddle.square(x),
    "where": paddle.where(x > 0, x, paddle.zeros_like(x)), "cumsum": paddle.cumsum(x, axis=1),
    "argmax": paddle.argmax(x, axis=1), "argmin": paddle.argmin(x, axis=0, keepdim=True),
    "maximum": paddle.maximum(x, paddle.full([2, 4], 0.5)), "scale": paddle.scale(x, 2.0, 1.0),
    "tanh": paddle.tanh(x), "sign": paddle.sign(x), "floor": paddle.floor(x), "round": paddle.round(x),
    "reciprocal": paddle.reciprocal(x), "rsqrt": paddle.rsqrt(paddle.abs(x)),
    "logsumexp": paddle.logsumexp(x, axis=1), "std": paddle.std(x, axis=1), "var": paddle.var(x),
    "norm": paddle.linalg.norm(x, p=2, axis=1), "isfinite": paddle.isfinite(x),
    "any": paddle.any(x > 3), "all": paddle.all(x > -3),
}
values, indices = paddle.topk(x, k=2, axis=1)
outs["topk_values"], outs["topk_indices"] = values, indices
sort_idx = paddle.argsort(x, axis=1, descending=True)
outs["argsort"] = sort_idx
exe = paddle.static.Executor(paddle.CPUPlace())
feed = {"x": np.array([[0.5, -1.5, 2.25, 3.0], [-0.25, 1.75, -2.5, 0.125]], "float32")}
for name, value in zip(outs, exe.run(feed=feed, fetch_list=list(outs.values()))):
    print(name, np.asarray(value).tolist(), str(np.asarray(value).dtype))
