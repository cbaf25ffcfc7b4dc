"""paddle.static.save / load and load_program_state / set_program_state."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data("x", [None, 3], "float32")
out = paddle.static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(
    initializer=paddle.nn.initializer.Assign(np.array([[1, 2], [3, 4], [5, 6]], "float32"))))
loss = paddle.mean(out)
paddle.optimizer.Adam(0.1).minimize(loss)
main = paddle.static.default_main_program()
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
feed = {"x": np.ones([2, 3], "float32")}
exe.run(main, feed=feed, fetch_list=[loss])
paddle.static.save(main, "./ckpt/model")
saved = exe.run(main, feed=feed, fetch_list=[out])[0]
exe.run(main, feed=feed, fetch_list=[loss])
changed = exe.run(main, feed=feed, fetch_list=[out])[0]
paddle.static.load(main, "./ckpt/model", exe)
restored = exe.run(main, feed=feed, fetch_list=[out])[0]
print("saved", saved.tolist())
print("changed", changed.tolist())
print("restored", restored.tolist())
state = paddle.static.load_program_state("./ckpt/model")
print("state_keys", sorted(state))
print("weight", state["fc_0.w_0"].tolist())
state["fc_0.b_0"] = np.full([2], 7.0, "float32")
paddle.static.set_program_state(main, state)
print("after_set", exe.run(main, feed=feed, fetch_list=[out])[0].tolist())
