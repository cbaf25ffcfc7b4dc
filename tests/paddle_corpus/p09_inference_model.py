"""save_inference_model / load_inference_model round trip."""
import numpy as np
import paddle

paddle.enable_static()
img = paddle.static.data("img", [None, 4], "float32")
w = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(
    np.linspace(-1, 1, 12).reshape(4, 3).astype("float32")))
hidden = paddle.static.nn.fc(img, 3, activation="relu", weight_attr=w)
prob = paddle.nn.functional.softmax(hidden)
label = paddle.static.data("label", [None, 1], "int64")
loss = paddle.mean(paddle.nn.functional.cross_entropy(hidden, label))
paddle.optimizer.SGD(0.5).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
data = np.random.RandomState(9).randn(6, 4).astype("float32")
exe.run(feed={"img": data, "label": np.array([[0], [1], [2], [0], [1], [2]], "int64")},
        fetch_list=[loss])
expected = exe.run(paddle.static.default_main_program().clone(for_test=True),
                   feed={"img": data, "label": np.zeros([6, 1], "int64")}, fetch_list=[prob])[0]
paddle.static.save_inference_model("./infer/net", [img], [prob], exe)

scope = paddle.static.Scope()
with paddle.static.scope_guard(scope):
    program, feed_names, fetch_targets = paddle.static.load_inference_model("./infer/net", exe)
    (result,) = exe.run(program, feed={feed_names[0]: data}, fetch_list=fetch_targets)
print("feed_names", feed_names)
print("fetch_names", [v.name for v in fetch_targets])
print("op_types", [op.type for op in program.global_block().ops])
print("expected", expected.tolist())
print("loaded", result.tolist())
