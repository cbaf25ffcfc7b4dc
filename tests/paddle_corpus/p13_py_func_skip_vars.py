"""static.py_func with a backward function and skip_vars_in_backward_input."""
import numpy as np
import paddle

paddle.enable_static()


def tanh_forward(x):
    return np.tanh(np.array(x))


def tanh_backward(y, dy):
    return np.array(dy) * (1 - np.square(np.array(y)))


def show(x):
    print("debug_shape", list(np.array(x).shape))


x = paddle.static.data("x", [2, 3], "float32")
x.stop_gradient = False
main = paddle.static.default_main_program()
hidden = main.current_block().create_var(name="tanh_out", dtype="float32", shape=[2, 3])
paddle.static.py_func(func=tanh_forward, x=x, out=hidden, backward_func=tanh_backward,
                      skip_vars_in_backward_input=x)
paddle.static.py_func(func=show, x=hidden, out=None)
loss = paddle.sum(hidden * 2.0)
grads = paddle.static.gradients([loss], [x])
exe = paddle.static.Executor(paddle.CPUPlace())
data = np.array([[0.1, -0.5, 1.0], [2.0, 0.0, -1.5]], "float32")
h, g = exe.run(feed={"x": data}, fetch_list=[hidden, grads[0]])
print("hidden", h.tolist())
print("grad", g.tolist())
# (the grad of `scale` is op `scale` in Paddle, `scale_grad` in pyfluid: docs/interop.md)
print("ops", [op.type for op in main.global_block().ops if op.type != "scale_grad" and op.type != "scale"])
print("grad_op_inputs", sorted(main.global_block().ops[-1].input_names))
