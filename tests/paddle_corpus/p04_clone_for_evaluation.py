"""Evaluate with main.clone(for_test=True) taken before minimize."""
import numpy as np
import paddle

paddle.enable_static()
rng = np.random.RandomState(4)
train_x = rng.randn(20, 6).astype("float32")
train_y = rng.randn(20, 1).astype("float32")
test_x = rng.randn(5, 6).astype("float32")
test_y = rng.randn(5, 1).astype("float32")

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 6], "float32")
    y = paddle.static.data("y", [None, 1], "float32")
    w = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.05))
    h = paddle.static.nn.fc(x, 4, weight_attr=w, activation="sigmoid")
    pred = paddle.static.nn.fc(h, 1, weight_attr=w)
    cost = paddle.mean(paddle.square(pred - y))
    test_program = main.clone(for_test=True)
    paddle.optimizer.SGD(0.2).minimize(cost)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
for epoch in range(3):
    for start in range(0, 20, 5):
        exe.run(main, feed={"x": train_x[start:start + 5], "y": train_y[start:start + 5]},
                fetch_list=[cost])
    (test_cost,) = exe.run(test_program, feed={"x": test_x, "y": test_y}, fetch_list=[cost])
    print("test_cost", epoch, float(test_cost))
print("train_ops", len(main.global_block().ops), "test_ops", len(test_program.global_block().ops))
print("test_op_types", [op.type for op in test_program.global_block().ops])
print("same_cost_var", test_program.global_block().var(cost.name).name == cost.name)
