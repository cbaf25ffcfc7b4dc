"""Momentum (plain and Nesterov), Adam and AdamW on one small regression."""
import numpy as np
import paddle

paddle.enable_static()
rng = np.random.RandomState(15)
x_data = rng.randn(8, 3).astype("float32")
y_data = rng.randn(8, 1).astype("float32")
w0 = rng.randn(3, 1).astype("float32")


def train(make_optimizer, label):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        y = paddle.static.data("y", [None, 1], "float32")
        pred = paddle.static.nn.fc(x, 1, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Assign(w0)))
        loss = paddle.mean(paddle.nn.functional.mse_loss(pred, y))
        make_optimizer().minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        losses = [float(exe.run(main, feed={"x": x_data, "y": y_data}, fetch_list=[loss])[0])
                  for _ in range(10)]
        scope = paddle.static.global_scope()
        params = {p.name: np.array(scope.find_var(p.name).get_tensor()).ravel().tolist()
                  for p in main.all_parameters()}
    print(label, "losses", losses)
    print(label, "params", params)
    print(label, "optimizer_ops", sorted({op.type for op in main.global_block().ops
                                          if op.type in ("momentum", "adam", "adamw", "sgd")}))


train(lambda: paddle.optimizer.Momentum(0.05, momentum=0.9), "momentum")
train(lambda: paddle.optimizer.Momentum(0.05, momentum=0.8, use_nesterov=True), "nesterov")
train(lambda: paddle.optimizer.Adam(0.05, beta1=0.8, beta2=0.99), "adam")
train(lambda: paddle.optimizer.AdamW(0.05, weight_decay=0.1), "adamw")
train(lambda: paddle.optimizer.Momentum(0.05, weight_decay=paddle.regularizer.L2Decay(0.01)), "momentum_l2")
train(lambda: paddle.optimizer.SGD(0.05, weight_decay=paddle.regularizer.L2Decay(0.2)), "sgd_l2")
