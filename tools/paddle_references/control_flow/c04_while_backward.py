"""Backward through while_loop / While / arrays / nesting (float64), Paddle 2.6.2 static."""
import numpy as np
import paddle
from _cfdump import Recorder, GradCase

paddle.enable_static()
rec = Recorder("c04_while_backward")
C = paddle.nn.initializer.Constant


def param(name, shape):
    return paddle.static.create_parameter(shape, "float64", name=name, default_initializer=C(0.5))


W = np.array([[0.3, -0.2], [0.1, 0.4]])
B = np.array([0.05, -0.1])
FEED = {"x": np.array([[0.5, -1.0]]), "h0": np.array([[0.2, 0.3]])}


# 1. RNN-like while_loop: h = tanh(h @ W + x + b), 3 iterations; grads for W, b, x, h0
def rnn():
    x = paddle.static.data("x", [1, 2], "float64"); x.stop_gradient = False
    h0 = paddle.static.data("h0", [1, 2], "float64"); h0.stop_gradient = False
    w, b = param("w", [2, 2]), param("b", [2])
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 3, "int64")
    def body(i, h):
        return [i + 1, paddle.tanh(paddle.matmul(h, w) + x + b)]
    i, h = paddle.static.nn.while_loop(lambda i, h: i < n, body, [i, h0])
    loss = paddle.sum(h * h)
    return dict(loss=loss, params=[w, b], inputs=[x, h0])
GradCase(rec, "1_while_loop_rnn").run(rnn, [FEED], {"w": W, "b": B})


# 2. same with paddle.static.gradients (targets=loss, inputs=[w, x])
GradCase(rec, "2_while_loop_gradients_api").run(rnn, [FEED], {"w": W, "b": B}, method="gradients")


# 3. While class: accumulate s += h @ w each step, in-place increment counter
def while_class():
    x = paddle.static.data("x", [1, 2], "float64"); x.stop_gradient = False
    w = param("w", [2, 2])
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 3, "int64")
    s = paddle.zeros([1, 2], "float64"); s.stop_gradient = False
    h = paddle.assign(x)
    cond = paddle.less_than(i, n)
    loop = paddle.static.nn.control_flow.While(cond)
    with loop.block():
        h2 = paddle.matmul(h, w)
        paddle.assign(s + h2, output=s)
        paddle.assign(h2, output=h)
        paddle.increment(i, 1)
        paddle.assign(paddle.less_than(i, n), output=cond)
    loss = paddle.sum(s)
    return dict(loss=loss, params=[w], inputs=[x])
GradCase(rec, "3_While_class_accumulate").run(while_class, [{"x": FEED["x"]}], {"w": W})


# 4. tensor array inside while_loop: write h_t each step, stack at the end
def arrays():
    x = paddle.static.data("x", [1, 2], "float64"); x.stop_gradient = False
    w = param("w", [2, 2])
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 3, "int64")
    arr = paddle.tensor.create_array("float64")
    def body(i, h, arr):
        h = paddle.tanh(paddle.matmul(h, w))
        paddle.tensor.array_write(h, i, array=arr)
        return [i + 1, h, arr]
    i, h, arr = paddle.static.nn.while_loop(lambda i, h, a: i < n, body, [i, x, arr])
    stacked, idx = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=0, use_stack=True)
    loss = paddle.sum(stacked * paddle.to_tensor(np.array([[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]]), dtype="float64")) \
        if False else paddle.sum(stacked * stacked) + paddle.sum(h)
    return dict(loss=loss, params=[w], inputs=[x])
GradCase(rec, "4_array_in_while").run(arrays, [{"x": FEED["x"]}], {"w": W})


# 5. arrays outside a loop: write/read/length + tensor_array_to_tensor(concat, axis=1)
def arrays_flat():
    x = paddle.static.data("x", [1, 2], "float64"); x.stop_gradient = False
    w = param("w", [2, 2])
    zero = paddle.zeros([1], "int64")
    one = paddle.ones([1], "int64")
    arr = paddle.tensor.array_write(paddle.matmul(x, w), zero)
    paddle.tensor.array_write(x * 3.0, one, array=arr)
    r0 = paddle.tensor.array_read(arr, zero)
    cat, idx = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=1)
    ln = paddle.tensor.array_length(arr)
    loss = paddle.sum(cat * cat) + paddle.sum(r0)
    return dict(loss=loss, params=[w], inputs=[x])
GradCase(rec, "5_array_flat").run(arrays_flat, [{"x": FEED["x"]}], {"w": W})


# 6. while_loop inside a cond branch, params used in the loop
def while_in_cond():
    x = paddle.static.data("x", [1, 2], "float64"); x.stop_gradient = False
    w = param("w", [2, 2])
    def t():
        i = paddle.zeros([1], "int64")
        i, h = paddle.static.nn.while_loop(lambda i, h: i < 2, lambda i, h: [i + 1, paddle.matmul(h, w)], [i, x])
        return h
    out = paddle.static.nn.cond(paddle.sum(x) < 0, t, lambda: x * 2.0)
    loss = paddle.sum(out * out)
    return dict(loss=loss, params=[w], inputs=[x])
GradCase(rec, "6_while_in_cond").run(while_in_cond, [{"x": FEED["x"]}, {"x": np.array([[1.0, 1.0]])}], {"w": W})


# 7. cond inside while_loop body, param in one branch
def cond_in_while():
    x = paddle.static.data("x", [1, 2], "float64"); x.stop_gradient = False
    w = param("w", [2, 2])
    i = paddle.zeros([1], "int64")
    def body(i, h):
        h2 = paddle.static.nn.cond((i % 2 == 0).squeeze(), lambda: paddle.matmul(h, w), lambda: h * 0.5)
        return [i + 1, h2]
    i, h = paddle.static.nn.while_loop(lambda i, h: i < 3, body, [i, x])
    loss = paddle.sum(h * h)
    return dict(loss=loss, params=[w], inputs=[x])
GradCase(rec, "7_cond_in_while").run(cond_in_while, [{"x": FEED["x"]}], {"w": W})


# 8. loop var that does not reach the loss + a read-only outer var used inside the body
def partial_vars():
    x = paddle.static.data("x", [1, 2], "float64"); x.stop_gradient = False
    y = paddle.static.data("y", [1, 2], "float64"); y.stop_gradient = False
    w = param("w", [2, 2])
    i = paddle.zeros([1], "int64")
    junk = paddle.zeros([1, 2], "float64")
    def body(i, h, junk):
        return [i + 1, paddle.matmul(h, w) + y, junk + h]
    i, h, junk = paddle.static.nn.while_loop(lambda i, h, j: i < 2, body, [i, x, junk])
    loss = paddle.sum(h)
    return dict(loss=loss, params=[w], inputs=[x, y])
GradCase(rec, "8_unused_loop_var_readonly_input").run(partial_vars, [{"x": FEED["x"], "y": np.array([[0.1, 0.2]])}], {"w": W})
