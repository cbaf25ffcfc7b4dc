"""append_backward, then a hand-made SGD update written with ops and paddle.assign."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data("x", [4, 3], "float32")
w = paddle.static.create_parameter([3, 2], "float32", name="w",
                                   default_initializer=paddle.nn.initializer.Constant(0.5))
b = paddle.static.create_parameter([2], "float32", name="b", is_bias=True)
out = paddle.matmul(x, w) + b
loss = paddle.mean(paddle.square(out))
params_grads = paddle.static.append_backward(loss)
print("pairs", [(p.name, g.name) for p, g in params_grads])
for param, grad in params_grads:
    paddle.assign(param - 0.1 * grad, output=param)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
x_data = np.arange(12, dtype="float32").reshape(4, 3) / 10
for step in range(4):
    l, gw = exe.run(feed={"x": x_data}, fetch_list=[loss, params_grads[0][1]])
    print("step", step, float(l), gw.tolist())
scope = paddle.static.global_scope()
print("w", np.array(scope.find_var("w").get_tensor()).tolist())
print("b", np.array(scope.find_var("b").get_tensor()).tolist())
