"""Run-time semantics of control-flow ops in Paddle 2.6.2 (static executor)."""
import numpy as np
import paddle
from paddle.utils import unique_name
from paddle.static.nn.control_flow import ConditionalBlock
from _cfdump import Recorder

paddle.enable_static()
rec = Recorder("c06_executor_semantics")
exe = paddle.static.Executor(paddle.CPUPlace())


def show(r):
    r = np.asarray(r)
    return f"{r.tolist()} dtype={r.dtype} shape={list(r.shape)}"


def prog(tag, fn, feeds, save=True):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), paddle.static.program_guard(main, startup):
        fetch = fn()
    if save:
        rec.program(main, tag)
    rec.log(f"== {tag}: fetch", [f"{v.name}{list(v.shape)}:{str(v.dtype).split('.')[-1]}:{str(v.type).split('.')[-1]}" for v in fetch])
    for feed in feeds:
        try:
            res = exe.run(main, feed=feed, fetch_list=fetch)
            rec.log("  feed", {k: np.asarray(v).tolist() for k, v in feed.items()}, "->", " | ".join(show(r) for r in res))
        except Exception as e:
            msg = str(e)
            rec.log("  feed", {k: np.asarray(v).tolist() for k, v in feed.items()}, "-> EXC", type(e).__name__, repr(msg[-600:]))
    return main


X = lambda: paddle.static.data("x", [2], "float32")
POS, NEG = {"x": np.array([1, 2], "float32")}, {"x": np.array([-1, -2], "float32")}


# 1. branches with different dtypes: select_input's Out var takes the TRUE branch's desc dtype
def dtypes():
    x = X()
    return [paddle.static.nn.cond(x.sum() > 0, lambda: x * 1.5, lambda: paddle.cast(x, "int64"))]
prog("1_dtype_mismatch", dtypes, [POS, NEG])


# 2. fetching the Out var of the branch that did not run
def untaken():
    x = X()
    out = paddle.static.nn.cond(x.sum() > 0, lambda: x + 1, lambda: x - 1)
    blk = paddle.static.default_main_program().global_block()
    cbs = [op for op in blk.ops if op.type == "conditional_block"]
    return [blk.var(cbs[0].output("Out")[0]), blk.var(cbs[1].output("Out")[0]), out]
prog("2_untaken_branch_out", untaken, [POS, NEG], save=False)


# 3. raw ConditionalBlock, is_scalar_condition=False: the Cond VALUE is ignored; the block runs
#    iff every tensor of Input (vars read inside the block) has numel != 0
def raw_nonscalar():
    x = paddle.static.data("x", [-1], "float32")
    c = paddle.static.data("c", [3], "bool")
    out = paddle.full([1], -7.0, "float32")
    cb = ConditionalBlock([c], is_scalar_condition=False)
    with cb.block():
        paddle.assign(paddle.sum(x, keepdim=True) + 100.0, output=out)
    return [out]
prog("3_is_scalar_condition_false", raw_nonscalar,
     [{"x": np.array([1, 2], "float32"), "c": np.array([False, False, False])},
      {"x": np.array([1, 2], "float32"), "c": np.array([True, True, True])},
      {"x": np.zeros([0], "float32"), "c": np.array([True, True, True])}])


# 4. raw ConditionalBlock, is_scalar_condition=True with cond shape [1] (fed)
def raw_scalar():
    x = X()
    c = paddle.static.data("c", [1], "bool")
    out = paddle.full([1], -7.0, "float32")
    cb = ConditionalBlock([c], is_scalar_condition=True)
    with cb.block():
        paddle.assign(paddle.sum(x, keepdim=True), output=out)
    return [out]
prog("4_is_scalar_condition_true", raw_scalar, [dict(POS, c=np.array([True])), dict(POS, c=np.array([False]))])


# 5. Python rebinding inside While does not update the outer var (doc example 2); assign(output=) does
def rebinding():
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 10, "int64")
    one = paddle.full([1], 1, "float32")
    data = paddle.static.data("data", [1], "float32")
    sums = paddle.full([1], 0, "float32")
    cond = paddle.less_than(i, n)
    loop = paddle.static.nn.control_flow.While(cond)
    with loop.block():
        s = paddle.add(data, data)
        paddle.assign(s, sums)
        i = paddle.increment(i, 1)
        data = paddle.add(data, one)
        paddle.assign(paddle.less_than(i, n), output=cond)
    return [sums, i]
prog("5_python_rebinding_in_While", rebinding, [{"data": np.ones(1, "float32")}])


# 6. while writes loop vars in place: the fed var used as loop var is changed; the original
#    Python Variable (loop_vars[k]) IS the result
def inplace():
    x = paddle.static.data("x", [1], "float32")
    y = x * 1.0
    (r,) = paddle.static.nn.while_loop(lambda v: v < 10.0, lambda v: [v * 2.0], [x])
    return [r, x, y]
prog("6_loop_var_in_place", inplace, [{"x": np.array([1.5], "float32")}])


# 7. is_test True vs False give the same values; nested loops
def is_test_loop(flag):
    def f():
        i = paddle.zeros([1], "int64")
        s = paddle.zeros([1], "float32")
        i, s = paddle.static.nn.while_loop(lambda i, s: i < 5, lambda i, s: [i + 1, s + paddle.cast(i, "float32")], [i, s], is_test=flag)
        return [i, s]
    return f
prog("7a_while_loop_is_test_false", is_test_loop(False), [{}], save=False)
prog("7b_while_loop_is_test_true", is_test_loop(True), [{}])


# 8. tensor arrays: write beyond the end, length, read out of range, to_tensor variants
def arrays():
    a = paddle.full([1, 2], 1.0)
    b = paddle.full([1, 2], 2.0)
    c = paddle.full([1, 3], 3.0)
    arr = paddle.tensor.create_array("float32")
    paddle.tensor.array_write(a, paddle.full([1], 0, "int64"), array=arr)
    paddle.tensor.array_write(b, paddle.full([1], 1, "int64"), array=arr)
    n2 = paddle.tensor.array_length(arr)
    r1 = paddle.tensor.array_read(arr, paddle.full([1], 1, "int64"))
    cat0, idx0 = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=0)
    cat1, idx1 = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=1)
    st0, sidx0 = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=0, use_stack=True)
    st1, sidx1 = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=1, use_stack=True)
    arr2 = paddle.tensor.create_array("float32", initialized_list=[a, c])
    n_init = paddle.tensor.array_length(arr2)
    catm, idxm = paddle.tensor.manipulation.tensor_array_to_tensor(arr2, axis=1)
    # overwrite an existing slot
    paddle.tensor.array_write(paddle.full([1, 2], 9.0), paddle.full([1], 0, "int64"), array=arr)
    r0 = paddle.tensor.array_read(arr, paddle.full([1], 0, "int64"))
    return [n2, r1, cat0, idx0, cat1, idx1, st0, sidx0, st1, sidx1, n_init, catm, idxm, r0]
prog("8_arrays", arrays, [{}])


def array_gap():
    arr = paddle.tensor.array_write(paddle.full([1], 4.0), paddle.full([1], 3, "int64"))
    n = paddle.tensor.array_length(arr)
    r3 = paddle.tensor.array_read(arr, paddle.full([1], 3, "int64"))
    r1 = paddle.tensor.array_read(arr, paddle.full([1], 1, "int64"))
    return [n, r3, r1]
prog("8b_array_write_past_end", array_gap, [{}])


def array_oob():
    arr = paddle.tensor.array_write(paddle.full([1], 4.0), paddle.full([1], 0, "int64"))
    r = paddle.tensor.array_read(arr, paddle.full([1], 5, "int64"))
    return [r]
prog("8c_array_read_out_of_range", array_oob, [{}], save=False)


# 9. increment and logical ops
def inc_logic():
    i = paddle.full([1], 3, "int64")
    j = paddle.increment(i, 2)          # in place: j is i
    f = paddle.full([1], 1.5, "float32")
    g = paddle.increment(f, 2.5)
    a = paddle.static.data("a", [3], "bool")
    b = paddle.static.data("b", [3], "bool")
    ai = paddle.static.data("ai", [3], "int32")
    bi = paddle.static.data("bi", [3], "int32")
    out_given = paddle.static.data("o", [3], "bool")
    la = paddle.logical_and(a, b)
    lo = paddle.logical_or(a, b)
    lx = paddle.logical_xor(a, b)
    ln = paddle.logical_not(a)
    lai = paddle.logical_and(ai, bi)
    lni = paddle.logical_not(ai)
    lo2 = paddle.logical_or(a, b, out=out_given)
    rec.log("increment returns the same Variable:", j is i, g is f)
    rec.log("logical_and(int32) out var dtype at build:", lai.dtype, "logical_not(int32):", lni.dtype,
            "out= returns given var:", lo2 is out_given)
    return [i, j, f, g, la, lo, lx, ln, lai, lni, lo2]
prog("9_increment_logical", inc_logic, [{"a": np.array([True, False, True]), "b": np.array([True, True, False]),
                                          "ai": np.array([2, 0, -1], "int32"), "bi": np.array([0, 5, 3], "int32"),
                                          "o": np.array([False, False, False])}])


# 10. switch_case / case value semantics incl. default rules and index dtypes
def sw(kind):
    def f():
        idx = paddle.static.data("idx", [1], kind)
        r_list = paddle.static.nn.switch_case(idx, [lambda: paddle.full([1], 10.0), lambda: paddle.full([1], 11.0)])
        r_dict = paddle.static.nn.switch_case(idx, {3: lambda: paddle.full([1], 3.0), 1: lambda: paddle.full([1], 1.0)})
        r_def = paddle.static.nn.switch_case(idx, {3: lambda: paddle.full([1], 3.0), 1: lambda: paddle.full([1], 1.0)},
                                             default=lambda: paddle.full([1], -1.0))
        r_pairs = paddle.static.nn.switch_case(idx, [(5, lambda: paddle.full([1], 5.0)), (0, lambda: paddle.full([1], 0.0))])
        return [r_list, r_dict, r_def, r_pairs]
    return f
prog("10_switch_case_int64", sw("int64"), [{"idx": np.array([k], "int64")} for k in (0, 1, 3, 5, 9, -1)])
prog("10b_switch_case_int32", sw("int32"), [{"idx": np.array([1], "int32")}])


def cs():
    x = paddle.static.data("x", [1], "float32")
    r_nodef = paddle.static.nn.case([(x > 1.0, lambda: paddle.full([1], 1.0)), (x > 0.0, lambda: paddle.full([1], 2.0))])
    r_def = paddle.static.nn.case([(x > 1.0, lambda: paddle.full([1], 1.0)), (x > 0.0, lambda: paddle.full([1], 2.0))],
                                  default=lambda: paddle.full([1], 3.0))
    return [r_nodef, r_def]
prog("11_case", cs, [{"x": np.array([v], "float32")} for v in (2.0, 0.5, -1.0)])


# 12. while condition: numel is checked only on entry; later iterations read element 0
def cond_numel2():
    i = paddle.zeros([1], "int64")
    c = paddle.less_than(i, paddle.full([1], 3, "int64"))
    loop = paddle.static.nn.control_flow.While(c)
    with loop.block():
        paddle.increment(i)
        paddle.assign(paddle.full([2], False, "bool"), output=c)
    return [i, c]
prog("12_while_cond_becomes_numel2", cond_numel2, [{}], save=False)
