"""static.nn.fc with named ParamAttr, initializers, num_flatten_dims and no bias."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data("x", [None, 2, 3], "float32")
y1 = paddle.static.nn.fc(x, 4, num_flatten_dims=2, name="proj",
                         weight_attr=paddle.ParamAttr(name="proj_w", initializer=paddle.nn.initializer.Constant(0.25),
                                                      learning_rate=0.5),
                         bias_attr=False)
y2 = paddle.static.nn.fc(x, 3, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.XavierUniform()),
                         bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)))
y3 = paddle.static.nn.fc([x, x], 2, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1)))
main = paddle.static.default_main_program()
for p in main.all_parameters():
    print("param", p.name, list(p.shape), p.trainable, p.optimize_attr["learning_rate"])
print("shapes", list(y1.shape), list(y2.shape), list(y3.shape))
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
data = np.arange(12, dtype="float32").reshape(2, 2, 3)
o1, o3 = exe.run(feed={"x": data}, fetch_list=[y1, y3])
print("y1", o1.tolist())
print("y3", o3.tolist())
w2 = np.array(paddle.static.global_scope().find_var(main.all_parameters()[1].name).get_tensor())
limit = np.sqrt(6.0 / (6 + 3))
print("xavier_in_range", bool(np.all(np.abs(w2) <= limit)), list(w2.shape))
print("startup_ops", [op.type for op in paddle.static.default_startup_program().global_block().ops])
