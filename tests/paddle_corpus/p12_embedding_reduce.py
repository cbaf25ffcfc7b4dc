"""Embedding lookup followed by reduce ops (sum/mean/max/min, axes and keepdim)."""
import numpy as np
import paddle

paddle.enable_static()
ids = paddle.static.data("ids", [None, 4], "int64")
table = np.arange(30, dtype="float32").reshape(10, 3) / 10
emb = paddle.static.nn.embedding(ids, size=[10, 3], param_attr=paddle.ParamAttr(
    name="emb_table", initializer=paddle.nn.initializer.Assign(table)))
outs = {
    "emb": emb, "sum_all": paddle.sum(emb), "sum_1": paddle.sum(emb, axis=1),
    "mean_keep": paddle.mean(emb, axis=[1, 2], keepdim=True), "max_2": paddle.max(emb, axis=2),
    "min_neg": paddle.min(emb, axis=-2), "prod": paddle.prod(emb, axis=0),
}
loss = paddle.mean(outs["sum_1"])
paddle.optimizer.SGD(1.0).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
feed = {"ids": np.array([[1, 2, 3, 1], [0, 9, 9, 4]], "int64")}
fetched = exe.run(feed=feed, fetch_list=list(outs.values()))
for name, value in zip(outs, fetched):
    print(name, value.tolist(), list(value.shape))
table_after = np.array(paddle.static.global_scope().find_var("emb_table").get_tensor())
print("table_after", table_after.tolist())
print("emb_shape", list(emb.shape))
