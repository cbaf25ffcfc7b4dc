"""minimize with parameters=, no_grad_set= and a frozen (trainable=False) parameter;
stop_gradient on an intermediate; the returned params_grads."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data("x", [None, 2], "float32")
c = paddle.ParamAttr
a1 = paddle.static.nn.fc(x, 2, weight_attr=c(name="w1", initializer=paddle.nn.initializer.Constant(0.5)),
                         bias_attr=c(name="b1"))
a2 = paddle.static.nn.fc(a1, 2, weight_attr=c(name="w2", initializer=paddle.nn.initializer.Constant(-0.5)),
                         bias_attr=c(name="b2", trainable=False, initializer=paddle.nn.initializer.Constant(1.0)))
frozen = paddle.static.nn.fc(x, 2, weight_attr=c(name="w3", initializer=paddle.nn.initializer.Constant(2.0)),
                             bias_attr=False)
frozen.stop_gradient = True
loss = paddle.mean(a2 * a2) + paddle.mean(frozen)
opt = paddle.optimizer.SGD(0.1)
ops, params_grads = opt.minimize(loss, no_grad_set={"w2"})
print("optimized", sorted(p.name for p, g in params_grads))
print("opt_ops", sorted(op.type for op in ops))
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
feed = {"x": np.array([[1.0, -1.0], [2.0, 0.5]], "float32")}
for step in range(3):
    print("loss", float(exe.run(feed=feed, fetch_list=[loss])[0]))
scope = paddle.static.global_scope()
for name in ["w1", "b1", "w2", "b2", "w3"]:
    print(name, np.array(scope.find_var(name).get_tensor()).tolist())
