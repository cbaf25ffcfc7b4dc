"""Executor.run conventions: fetch by name, feed of a partial program, program.random_seed,
create_global_var counters, fill_constant and increment."""
import numpy as np
import paddle

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
main.random_seed = 7
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 2], "float32")
    counter = paddle.static.create_global_var(shape=[1], value=0.0, dtype="float32",
                                              persistable=True, name="step_counter")
    paddle.increment(counter, value=1.0)
    y = paddle.add(x, counter, name="shifted")
    total = paddle.sum(y)
    const = paddle.full([2], 3.5, "float32")
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
feed = {"x": np.array([[1.0, 2.0]], "float32")}
for step in range(3):
    by_name = exe.run(main, feed=feed, fetch_list=["shifted", total.name])
    print("by_name", step, by_name[0].tolist(), float(by_name[1]))
print("y_name", y.name, "counter_name", counter.name, "persistable", counter.persistable)
print("const", exe.run(main, feed=feed, fetch_list=[const])[0].tolist())
print("counter", np.array(paddle.static.global_scope().find_var("step_counter").get_tensor()).tolist())
print("random_seed", main.random_seed, startup.random_seed)
print("no_fetch", exe.run(main, feed=feed))
