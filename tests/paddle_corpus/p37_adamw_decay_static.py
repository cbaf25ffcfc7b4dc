"""Static AdamW with an LR scheduler, apply_decay_param_fun (no decay on biases) and
per-parameter learning rates; LinearWarmup and PolynomialDecay schedules."""
import numpy as np
import paddle

paddle.enable_static()
rng = np.random.RandomState(37)
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 3], "float32")
    y = paddle.static.data("y", [None, 1], "float32")
    h = paddle.static.nn.fc(x, 4, activation="tanh", weight_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Assign(rng.uniform(-1, 1, [3, 4]).astype("float32"))))
    out = paddle.static.nn.fc(h, 1, weight_attr=paddle.ParamAttr(
        learning_rate=0.5, initializer=paddle.nn.initializer.Assign(rng.uniform(-1, 1, [4, 1]).astype("float32"))))
    loss = paddle.mean(paddle.square(out - y))
    scheduler = paddle.optimizer.lr.LinearWarmup(
        learning_rate=paddle.optimizer.lr.PolynomialDecay(0.1, decay_steps=4, end_lr=0.01),
        warmup_steps=2, start_lr=0.0, end_lr=0.1)
    opt = paddle.optimizer.AdamW(learning_rate=scheduler, weight_decay=0.05,
                                 apply_decay_param_fun=lambda name: not name.endswith(".b_0"))
    opt.minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
feed = {"x": rng.randn(6, 3).astype("float32"), "y": rng.randn(6, 1).astype("float32")}
for step in range(7):
    lr = scheduler.get_lr()
    (l,) = exe.run(main, feed=feed, fetch_list=[loss])
    scheduler.step()
    print("step", step, lr, float(l))
scope = paddle.static.global_scope()
for p in sorted(main.all_parameters(), key=lambda p: p.name):
    print(p.name, np.array(scope.find_var(p.name).get_tensor()).ravel().tolist())
