"""paddle.static.nn.while_loop and the While class: programs and values (Paddle 2.6.2 static)."""
import numpy as np
import paddle
from paddle.utils import unique_name
from _cfdump import Recorder

paddle.enable_static()
rec = Recorder("c02_while")
exe = paddle.static.Executor(paddle.CPUPlace())


def desc(o):
    return f"{o.name}{list(o.shape)}:{str(o.dtype).split('.')[-1]}:{str(o.type).split('.')[-1]}:sg={o.stop_gradient}"


def build(tag, fn, feeds):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), paddle.static.program_guard(main, startup):
        outs = fn()
    rec.program(main, tag)
    rec.log(f"== {tag}")
    rec.log("returned:", [desc(o) for o in outs])
    for feed in feeds:
        res = exe.run(main, feed=feed, fetch_list=outs)
        rec.log("  feed", {k: v.tolist() for k, v in feed.items()}, "->",
                [(r.tolist(), str(r.dtype), list(r.shape)) for r in res])
    return main


# A: the doc example: counter + bound
def case_a():
    i = paddle.full([1], 0, "int64")
    ten = paddle.full([1], 10, "int64")
    i2, ten2 = paddle.static.nn.while_loop(lambda i, t: i < t, lambda i, t: [i + 1, t], [i, ten])
    rec.log("a: identity of returned vars: i2 is i:", i2 is i, " ten2 is ten:", ten2 is ten)
    return [i2, ten2]
build("a_counter", case_a, [{}])


# B: several loop vars, float accumulation reading a fed var (not a loop var)
def case_b():
    x = paddle.static.data("x", [3], "float32")
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 4, "int64")
    acc = paddle.zeros([3], "float32")
    prod = paddle.ones([3], "float32")
    def body(i, acc, prod):
        return [i + 1, acc + x, prod * x]
    i, acc, prod = paddle.static.nn.while_loop(lambda i, a, p: i < n, body, [i, acc, prod])
    return [i, acc, prod]
build("b_multi_vars", case_b, [{"x": np.array([1.0, 2.0, 0.5], "float32")}])


# C: while inside a cond branch
def case_c():
    x = paddle.static.data("x", [1], "float32")
    def t():
        i = paddle.zeros([1], "int64")
        s = paddle.zeros([1], "float32")
        i, s = paddle.static.nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s + x], [i, s])
        return s
    return [paddle.static.nn.cond(x.sum() > 0, t, lambda: x * -1)]
build("c_while_in_cond", case_c, [{"x": np.array([2.0], "float32")}, {"x": np.array([-2.0], "float32")}])


# D: cond inside a while body
def case_d():
    i = paddle.zeros([1], "int64")
    s = paddle.zeros([1], "float32")
    def body(i, s):
        s2 = paddle.static.nn.cond((i % 2 == 0).squeeze(), lambda: s + 1.0, lambda: s * 10.0)
        return [i + 1, s2]
    i, s = paddle.static.nn.while_loop(lambda i, s: i < 4, body, [i, s])
    return [i, s]
build("d_cond_in_while", case_d, [{}])


# E: nested while_loop
def case_e():
    i = paddle.zeros([1], "int64")
    total = paddle.zeros([1], "int64")
    def outer(i, total):
        j = paddle.zeros([1], "int64")
        j, total = paddle.static.nn.while_loop(lambda j, t: j < i, lambda j, t: [j + 1, t + 1], [j, total])
        return [i + 1, total]
    i, total = paddle.static.nn.while_loop(lambda i, t: i < 4, outer, [i, total])
    return [i, total]
build("e_nested_while", case_e, [{}])


# F: the While class + increment (in place) + assign to the condition
def case_f():
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 5, "int64")
    s = paddle.full([1], 0.0, "float32")
    cond = paddle.less_than(i, n)
    loop = paddle.static.nn.control_flow.While(cond=cond)
    with loop.block():
        t = paddle.cast(i, "float32")
        paddle.assign(s + t, output=s)
        paddle.increment(i, 1)
        paddle.assign(paddle.less_than(i, n), output=cond)
    return [i, s, cond]
build("f_While_class", case_f, [{}])


# G: While with is_test=True
def case_g():
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 3, "int64")
    cond = paddle.less_than(i, n)
    loop = paddle.static.nn.control_flow.While(cond=cond, is_test=True)
    with loop.block():
        paddle.increment(i, 1)
        paddle.less_than(i, n, out=cond) if False else paddle.assign(paddle.less_than(i, n), output=cond)
    return [i]
build("g_While_is_test", case_g, [{}])


# H: while_loop whose body returns a single tensor (not a list) and loop_vars tuple
def case_h():
    x = paddle.full([1], 1.0, "float32")
    (y,) = paddle.static.nn.while_loop(lambda v: v < 100.0, lambda v: v * 3.0, (x,))
    return [y]
build("h_single_var_tuple", case_h, [{}])


# I: condition false at entry (zero iterations)
def case_i():
    x = paddle.static.data("x", [1], "float32")
    y = paddle.static.nn.while_loop(lambda v: v < 0.0, lambda v: [v + 1.0], [x])
    return [y[0]]
build("i_zero_iter", case_i, [{"x": np.array([5.0], "float32")}])

# J: logical ops in the condition
def case_j():
    i = paddle.zeros([1], "int64")
    j = paddle.full([1], 10, "int64")
    def c(i, j):
        return paddle.logical_and(i < 5, paddle.logical_not(paddle.logical_or(j < 7, paddle.logical_xor(i > 100, j > 100))))
    i, j = paddle.static.nn.while_loop(c, lambda i, j: [i + 1, j - 1], [i, j])
    return [i, j]
build("j_logical_cond", case_j, [{}])
