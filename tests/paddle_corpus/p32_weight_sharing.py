"""Two fc layers sharing one weight through a named ParamAttr; its gradient sums both uses."""
import numpy as np
import paddle

paddle.enable_static()
a = paddle.static.data("a", [None, 3], "float32")
b = paddle.static.data("b", [None, 3], "float32")
shared = paddle.ParamAttr(name="shared_w", initializer=paddle.nn.initializer.Assign(
    np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], "float32")))
ya = paddle.static.nn.fc(a, 2, weight_attr=shared, bias_attr=False)
yb = paddle.static.nn.fc(b, 2, weight_attr=shared, bias_attr=False)
loss = paddle.mean(ya * yb)
_, params_grads = paddle.optimizer.SGD(0.5).minimize(loss)
print("params", [(p.name, g.name) for p, g in params_grads])
print("num_params", len(paddle.static.default_main_program().all_parameters()))
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
feed = {"a": np.array([[1.0, 2.0, 3.0]], "float32"), "b": np.array([[-1.0, 0.5, 2.0]], "float32")}
for step in range(3):
    l, g = exe.run(feed=feed, fetch_list=[loss, params_grads[0][1]])
    print("step", step, float(l), g.tolist())
print("grad_ops", [op.type for op in paddle.static.default_main_program().global_block().ops
                   if op.type.endswith("_grad") or op.type == "sum"])
