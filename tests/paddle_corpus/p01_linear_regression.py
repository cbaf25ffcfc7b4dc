"""Static linear regression: fc + square_error_cost + SGD, weights set by Assign."""
import numpy as np
import paddle

paddle.enable_static()
rng = np.random.RandomState(1)
x_data = rng.rand(16, 3).astype("float32")
y_data = (x_data @ np.array([[1.5], [-2.0], [0.7]], "float32") + 0.3).astype("float32")

x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
y = paddle.static.data(name="y", shape=[None, 1], dtype="float32")
w_init = paddle.nn.initializer.Assign(np.array([[0.1], [0.2], [0.3]], "float32"))
pred = paddle.static.nn.fc(x, size=1, weight_attr=paddle.ParamAttr(initializer=w_init),
                           bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.0)))
loss = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
losses = []
for step in range(30):
    (value,) = exe.run(feed={"x": x_data, "y": y_data}, fetch_list=[loss])
    losses.append(float(value))
print("losses", losses)
print("loss_shape", list(np.array(value).shape))
params = paddle.static.default_main_program().global_block().all_parameters()
print("param_names", [p.name for p in params])
for p in params:
    print("param", p.name, np.array(paddle.static.global_scope().find_var(p.name).get_tensor()).tolist())
