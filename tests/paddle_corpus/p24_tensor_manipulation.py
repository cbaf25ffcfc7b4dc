"""Shape ops in a static program: reshape, transpose, concat, split, stack, squeeze, gather."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data("x", [2, 3, 4], "float32")
idx = paddle.static.data("idx", [2], "int64")
parts = paddle.split(x, num_or_sections=[1, 3], axis=2)
outs = {
    "reshape": paddle.reshape(x, [4, -1]), "transpose": paddle.transpose(x, [2, 0, 1]),
    "concat": paddle.concat([x, x * 2], axis=1), "split0": parts[0], "split1": parts[1],
    "stack": paddle.stack([x[0], x[1]], axis=1), "unsqueeze": paddle.unsqueeze(x, [0, 3]),
    "squeeze": paddle.squeeze(parts[0], axis=2), "gather": paddle.gather(x, idx, axis=1),
    "slice": paddle.slice(x, axes=[1, 2], starts=[1, 0], ends=[3, 2]), "index": x[:, 1, ::2],
    "flatten": paddle.flatten(x, 1, 2), "tile": paddle.tile(parts[0], [1, 1, 2]),
    "expand": paddle.expand(parts[0], [2, 3, 3]), "cast": paddle.cast(x, "int32"),
}
exe = paddle.static.Executor(paddle.CPUPlace())
feed = {"x": np.arange(24, dtype="float32").reshape(2, 3, 4), "idx": np.array([2, 0], "int64")}
for name, value in zip(outs, exe.run(feed=feed, fetch_list=list(outs.values()))):
    print(name, value.tolist(), list(value.shape), str(value.dtype))
print("static_shapes", {k: list(v.shape) for k, v in outs.items()})
