"""paddle.static.nn.cond: programs built and values produced (Paddle 2.6.2, static mode)."""
import numpy as np
import paddle
from paddle.utils import unique_name
from _cfdump import Recorder

paddle.enable_static()
rec = Recorder("c01_cond")
exe = paddle.static.Executor(paddle.CPUPlace())


def build(tag, fn, feeds):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), paddle.static.program_guard(main, startup):
        outs = fn()
    rec.program(main, tag)
    rec.log(f"== {tag}")
    rec.log("returned:", repr_struct(outs))
    flat = [o for o in paddle.utils.flatten(outs) if o is not None] if outs is not None else []
    for feed in feeds:
        res = exe.run(main, feed=feed, fetch_list=flat) if flat else exe.run(main, feed=feed)
        rec.log("  feed", {k: v.tolist() for k, v in feed.items()}, "->",
                [(r.tolist(), str(r.dtype), list(r.shape)) for r in res] if flat else res)
    return main


def repr_struct(o):
    if isinstance(o, (list, tuple)):
        inner = ", ".join(repr_struct(x) for x in o)
        return f"[{inner}]" if isinstance(o, list) else f"({inner},)"
    if o is None:
        return "None"
    return f"Var({o.name}, shape={list(o.shape)}, dtype={o.dtype}, type={str(o.type).split('.')[-1]}, stop_gradient={o.stop_gradient})"


xpos = {"x": np.array([1.0, 2.0], "float32")}
xneg = {"x": np.array([-1.0, -2.0], "float32")}


# A: scalar pred (shape []) from a comparison of a reduced sum, both branches return one tensor
def case_a():
    x = paddle.static.data("x", [2], "float32")
    pred = x.sum() > 0
    return paddle.static.nn.cond(pred, lambda: x + 1, lambda: x - 1)
build("a_basic", case_a, [xpos, xneg])


# B: pred of shape [1] (less_than on [1] tensors), names given
def case_b():
    x = paddle.static.data("x", [2], "float32")
    a = paddle.full([1], 0.0, "float32")
    b = paddle.slice(x, [0], [0], [1])
    pred = paddle.less_than(a, b)
    return paddle.static.nn.cond(pred, lambda: paddle.scale(x, 2.0), lambda: paddle.scale(x, -3.0), name="mycond")
build("b_pred_shape1", case_b, [xpos, xneg])


# C: only true_fn, returns None; side effect through paddle.assign(output=outer)
def case_c():
    x = paddle.static.data("x", [2], "float32")
    outer = paddle.full([2], 7.0, "float32")
    def t():
        paddle.assign(x * 10, output=outer)
    r = paddle.static.nn.cond(x.sum() > 0, t)
    assert r is None
    return [outer]
build("c_true_only_none", case_c, [xpos, xneg])


# D: both branches return None
def case_d():
    x = paddle.static.data("x", [2], "float32")
    r = paddle.static.nn.cond(x.sum() > 0, lambda: None, lambda: None)
    assert r is None
    return [x * 1]
build("d_both_none", case_d, [xpos])


# E: nested structure (tuple containing a list), differing shapes/dtypes-compatible branches
def case_e():
    x = paddle.static.data("x", [2], "float32")
    def t():
        return (x + 1, [paddle.reshape(x, [1, 2]), paddle.full([3], 1, "int64")])
    def f():
        return (x * 2, [paddle.full([1, 2], 5.0, "float32"), paddle.full([3], 2, "int64")])
    return paddle.static.nn.cond(x.sum() > 0, t, f)
build("e_nested_tuple_list", case_e, [xpos, xneg])


# F: branches return vars of different static shapes -> select_input merges dims to -1
def case_f():
    x = paddle.static.data("x", [-1, 3], "float32")
    def t():
        return paddle.zeros([2, 3], "float32")
    def f():
        return x * 1
    return paddle.static.nn.cond(paddle.sum(x) > 0, t, f)
build("f_shape_merge", case_f, [{"x": np.ones((4, 3), "float32")}, {"x": -np.ones((1, 3), "float32")}])


# G: true_fn returns an outer variable directly (no op inside the branch)
def case_g():
    x = paddle.static.data("x", [2], "float32")
    y = x * 3
    return paddle.static.nn.cond(x.sum() > 0, lambda: y, lambda: x)
build("g_return_outer_var", case_g, [xpos, xneg])


# H: nested cond inside a branch
def case_h():
    x = paddle.static.data("x", [2], "float32")
    def t():
        return paddle.static.nn.cond(x.mean() > 1.0, lambda: x * 100, lambda: x * 10)
    return paddle.static.nn.cond(x.sum() > 0, t, lambda: x - 1)
build("h_nested", case_h, [xpos, {"x": np.array([0.5, 0.5], "float32")}, xneg])


# I: list return [a, b] and single-element tuple
def case_i():
    x = paddle.static.data("x", [2], "float32")
    r1 = paddle.static.nn.cond(x.sum() > 0, lambda: [x + 1, x + 2], lambda: [x - 1, x - 2])
    r2 = paddle.static.nn.cond(x.sum() > 0, lambda: (x + 3,), lambda: (x - 3,))
    return [r1, r2]
build("i_list_and_1tuple", case_i, [xpos, xneg])

# J: cond whose branch reads a variable created before and writes an intermediate only used inside
def case_j():
    x = paddle.static.data("x", [2], "float32")
    def t():
        h = paddle.exp(x)
        h2 = paddle.tanh(h)
        return h2 + h
    return paddle.static.nn.cond(x.sum() > 0, t, lambda: paddle.zeros([2], "float32"))
build("j_intermediates", case_j, [xpos, xneg])
