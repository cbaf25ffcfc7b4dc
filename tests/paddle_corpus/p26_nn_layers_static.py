"""paddle.nn layers used inside a static program (Linear, LayerNorm, Embedding, activations)."""
import numpy as np
import paddle

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    ids = paddle.static.data("ids", [None, 3], "int64")
    emb = paddle.nn.Embedding(6, 4, weight_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Assign(np.linspace(-1, 1, 24).reshape(6, 4).astype("float32"))))
    linear = paddle.nn.Linear(4, 2, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.3)),
                              bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(-0.1)))
    norm = paddle.nn.LayerNorm(4)
    h = norm(emb(ids))
    acts = {"gelu": paddle.nn.functional.gelu(h), "sigmoid": paddle.nn.Sigmoid()(h),
            "leaky": paddle.nn.functional.leaky_relu(h, 0.1), "softmax": paddle.nn.Softmax(-1)(h),
            "hardswish": paddle.nn.functional.hardswish(h), "elu": paddle.nn.functional.elu(h)}
    out = linear(h)
    loss = paddle.mean(out * out)
    paddle.optimizer.SGD(0.5).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
feed = {"ids": np.array([[0, 1, 5], [3, 3, 2]], "int64")}
for step in range(3):
    fetched = exe.run(main, feed=feed, fetch_list=[loss, out] + list(acts.values()))
    print("loss", step, float(fetched[0]))
print("out", fetched[1].tolist())
for name, value in zip(acts, fetched[2:]):
    print(name, value[0, 0].tolist())
print("params", sorted(p.name for p in main.all_parameters()))
print("linear_weight", np.array(paddle.static.global_scope().find_var(linear.weight.name).get_tensor()).tolist())
