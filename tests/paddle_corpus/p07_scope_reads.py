"""Reading and writing variables in global_scope() and in a scope_guard'ed Scope."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data("x", [None, 2], "float32")
y = paddle.static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(
    name="fc_w", initializer=paddle.nn.initializer.Constant(1.0)), bias_attr=paddle.ParamAttr(name="fc_b"))
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
feed = {"x": np.array([[1.0, 2.0]], "float32")}
print("out", exe.run(feed=feed, fetch_list=[y])[0].tolist())
tensor = paddle.static.global_scope().find_var("fc_w").get_tensor()
print("w_shape", np.array(tensor).shape)
tensor.set(np.array([[2.0, 0.0], [0.0, 3.0]], "float32"), paddle.CPUPlace())
print("out_after_set", exe.run(feed=feed, fetch_list=[y])[0].tolist())
print("missing_var", paddle.static.global_scope().find_var("nothing_here") is None)

other = paddle.static.Scope()
with paddle.static.scope_guard(other):
    exe.run(paddle.static.default_startup_program())
    print("other_out", exe.run(feed=feed, fetch_list=[y])[0].tolist())
    print("other_b", np.array(paddle.static.global_scope().find_var("fc_b").get_tensor()).tolist())
print("global_still", np.array(paddle.static.global_scope().find_var("fc_w").get_tensor()).tolist())
(lod,) = exe.run(feed=feed, fetch_list=[y], return_numpy=False)
print("return_numpy_false", np.array(lod).tolist(), lod.shape())
