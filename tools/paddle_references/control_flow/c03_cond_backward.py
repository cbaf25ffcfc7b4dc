"""Backward through cond / nested cond / switch_case / case (float64), Paddle 2.6.2 static."""
import numpy as np
import paddle
from _cfdump import Recorder, GradCase

paddle.enable_static()
rec = Recorder("c03_cond_backward")
C = paddle.nn.initializer.Constant


def param(name, shape):
    return paddle.static.create_parameter(shape, "float64", name=name, default_initializer=C(0.5))


W1 = np.array([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.25]])
W2 = np.array([[0.7, 0.1], [-0.3, 0.2], [0.05, -0.6]])
X_POS = {"x": np.array([[1.0, 2.0, 0.5]], "float64")}
X_NEG = {"x": np.array([[-1.0, 0.5, -2.0]], "float64")}


# 1. params in both branches (w1 only in true, w2 only in false, w_shared in both), x needs grad
def both():
    x = paddle.static.data("x", [1, 3], "float64"); x.stop_gradient = False
    w1, w2 = param("w1", [3, 2]), param("w2", [3, 2])
    ws = param("ws", [2])
    pred = paddle.sum(x) > 0
    out = paddle.static.nn.cond(pred, lambda: paddle.tanh(paddle.matmul(x, w1)) * ws,
                                lambda: paddle.matmul(x, w2) + ws)
    loss = paddle.mean(out * out)
    return dict(loss=loss, params=[w1, w2, ws], inputs=[x])
GradCase(rec, "1_params_both_branches").run(both, [X_POS, X_NEG],
                                            {"w1": W1, "w2": W2, "ws": np.array([0.9, -1.1])})


# 2. param only in the true branch; false branch uses only x
def one():
    x = paddle.static.data("x", [1, 3], "float64"); x.stop_gradient = False
    w1 = param("w1", [3, 2])
    pred = paddle.sum(x) > 0
    out = paddle.static.nn.cond(pred, lambda: paddle.matmul(x, w1), lambda: paddle.slice(x, [1], [0], [2]) * 2.0)
    loss = paddle.sum(out * out)
    return dict(loss=loss, params=[w1], inputs=[x])
GradCase(rec, "2_param_one_branch").run(one, [X_POS, X_NEG], {"w1": W1})


# 3. nested cond, params at both levels
def nested():
    x = paddle.static.data("x", [1, 3], "float64"); x.stop_gradient = False
    w1, w2 = param("w1", [3, 2]), param("w2", [3, 2])
    def t():
        h = paddle.matmul(x, w1)
        return paddle.static.nn.cond(paddle.mean(h) > 0, lambda: h * h, lambda: h * 3.0)
    out = paddle.static.nn.cond(paddle.sum(x) > 0, t, lambda: paddle.matmul(x, w2))
    loss = paddle.sum(out)
    return dict(loss=loss, params=[w1, w2], inputs=[x])
GradCase(rec, "3_nested_cond").run(nested, [X_POS, {"x": np.array([[1.0, -2.0, 2.0]])}, X_NEG],
                                   {"w1": W1, "w2": W2})


# 4. paddle.static.gradients through cond (w.r.t. x and a parameter)
def grads_api():
    x = paddle.static.data("x", [1, 3], "float64"); x.stop_gradient = False
    w1 = param("w1", [3, 2])
    out = paddle.static.nn.cond(paddle.sum(x) > 0, lambda: paddle.exp(paddle.matmul(x, w1)), lambda: x * x)
    loss = paddle.sum(out)
    return dict(loss=loss, params=[w1], inputs=[x])
GradCase(rec, "4_gradients_api").run(grads_api, [X_POS, X_NEG], {"w1": W1}, method="gradients")


# 5. switch_case (list of fns, default) with params
def sw():
    x = paddle.static.data("x", [1, 3], "float64"); x.stop_gradient = False
    idx = paddle.static.data("idx", [1], "int32")
    w1, w2 = param("w1", [3, 2]), param("w2", [3, 2])
    out = paddle.static.nn.switch_case(idx, {0: lambda: paddle.matmul(x, w1), 2: lambda: paddle.matmul(x, w2) * 2.0},
                                       default=lambda: paddle.matmul(x * x, w1 + w2))
    loss = paddle.sum(out * out)
    return dict(loss=loss, params=[w1, w2], inputs=[x])
GradCase(rec, "5_switch_case").run(sw, [dict(X_POS, idx=np.array([0], "int32")), dict(X_POS, idx=np.array([2], "int32")),
                                        dict(X_POS, idx=np.array([7], "int32"))], {"w1": W1, "w2": W2})


# 6. case (pred_fn_pairs) with params, no default
def cs():
    x = paddle.static.data("x", [1, 3], "float64"); x.stop_gradient = False
    w1 = param("w1", [3, 2])
    s = paddle.sum(x)
    out = paddle.static.nn.case([(s > 1.0, lambda: paddle.matmul(x, w1)), (s > -1.0, lambda: paddle.matmul(x, w1) * 5.0),
                                 (s > -100.0, lambda: paddle.zeros([1, 2], "float64"))])
    loss = paddle.sum(out)
    return dict(loss=loss, params=[w1], inputs=[x])
GradCase(rec, "6_case").run(cs, [X_POS, {"x": np.array([[0.1, 0.1, 0.1]])}, X_NEG], {"w1": W1})


# 7. cond whose output does not depend on any param in the false branch and pred on x;
#    loss also uses x directly (gradient accumulation across cond and outside)
def accum():
    x = paddle.static.data("x", [1, 3], "float64"); x.stop_gradient = False
    w1 = param("w1", [3, 2])
    h = paddle.matmul(x, w1)
    out = paddle.static.nn.cond(paddle.sum(x) > 0, lambda: h * h, lambda: h)
    loss = paddle.sum(out) + paddle.sum(h) + paddle.sum(x * x)
    return dict(loss=loss, params=[w1], inputs=[x])
GradCase(rec, "7_accumulate_outside").run(accum, [X_POS, X_NEG], {"w1": W1})


# 8. a branch reads a stop_gradient var (y) and an int var (k); no_grad_set on another param
def sg_inputs():
    x = paddle.static.data("x", [1, 3], "float64"); x.stop_gradient = False
    y = paddle.static.data("y", [1, 3], "float64")           # stop_gradient=True
    k = paddle.full([1], 2, "int64")
    w1, w2 = param("w1", [3, 2]), param("w2", [3, 2])
    def t():
        return paddle.matmul(x * y * paddle.cast(k, "float64"), w1) + paddle.matmul(x, w2)
    out = paddle.static.nn.cond(paddle.sum(x) > 0, t, lambda: paddle.matmul(y, w2))
    loss = paddle.sum(out * out)
    return dict(loss=loss, params=[w1, w2], inputs=[x])
GradCase(rec, "8_stop_gradient_inputs").run(sg_inputs, [dict(X_POS, y=np.array([[2.0, 1.0, -1.0]])), dict(X_NEG, y=np.array([[2.0, 1.0, -1.0]]))],
                                           {"w1": W1, "w2": W2})
