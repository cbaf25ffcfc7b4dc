"""paddle.static.gradients with and without target_gradients, and no_grad_set."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data("x", [3], "float32")
x.stop_gradient = False
z = paddle.static.data("z", [3], "float32")
z.stop_gradient = False
y = x * x + 3.0 * x + z * x
dx, = paddle.static.gradients([y], [x])
dx2, dz2 = paddle.static.gradients([y], [x, z], target_gradients=[paddle.full([3], 2.0)])
dxs, = paddle.static.gradients([y], [x], no_grad_set=[z.name])
exe = paddle.static.Executor(paddle.CPUPlace())
feed = {"x": np.array([1.0, -2.0, 0.5], "float32"), "z": np.array([0.0, 1.0, 2.0], "float32")}
r = exe.run(feed=feed, fetch_list=[dx, dx2, dz2, dxs])
print("dx", r[0].tolist())
print("dx_weighted", r[1].tolist())
print("dz_weighted", r[2].tolist())
print("dx_no_grad_z", r[3].tolist())
print("grad_name", dx.name)
