"""static.nn.batch_norm: training updates the running statistics, the test clone uses them."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data("x", [None, 3, 2, 2], "float32")
y = paddle.static.nn.batch_norm(x, momentum=0.8, epsilon=1e-5,
                                moving_mean_name="bn_mean", moving_variance_name="bn_var")
loss = paddle.mean(y * y)
main = paddle.static.default_main_program()
test_program = main.clone(for_test=True)
paddle.optimizer.SGD(0.1).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
rng = np.random.RandomState(17)
scope = paddle.static.global_scope()
for step in range(3):
    data = (rng.randn(4, 3, 2, 2) * 2 + 1).astype("float32")
    out, l = exe.run(main, feed={"x": data}, fetch_list=[y, loss])
    print("train_out_first", out[0, :, 0, 0].tolist(), float(l))
    print("running_mean", np.array(scope.find_var("bn_mean").get_tensor()).tolist())
    print("running_var", np.array(scope.find_var("bn_var").get_tensor()).tolist())
(t,) = exe.run(test_program, feed={"x": data}, fetch_list=[y])
print("test_out_first", t[0, :, 0, 0].tolist())
print("params", sorted(p.name for p in main.all_parameters()))
print("bn_is_test", [op.attr("is_test") for op in test_program.global_block().ops if op.type == "batch_norm"])
