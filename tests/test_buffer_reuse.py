"""Buffer reuse (executor/buffer_reuse.py): ops write into the buffers of temporaries that
nothing reads later, never into feeds, persistables, fetched values or shared buffers."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework.op_append import append_simple_op
from pyfluid.ops.registry import OpDef, get_op

F = paddle.nn.functional


def compiled(main, reuse=True, passes=True, fuse=True):
    strategy = static.BuildStrategy()
    strategy.enable_passes, strategy.reuse_buffers = passes, reuse
    strategy.fuse_elementwise_act = strategy.fuse_fc = fuse
    return static.CompiledProgram(main, build_strategy=strategy)


def run(main, feed, fetch, **options):
    exe = static.Executor()
    values = exe.run(compiled(main, **options), feed=feed, fetch_list=fetch)
    plan = list(exe._plans.values())[-1]
    reused = sorted(plan.ops[i].type for i in plan._inplace
                    if not plan.ops[i].outputs.keys() & {"ParamOut"})
    return values, reused


def feed(rows=4, width=3, seed=0):
    return {"x": np.random.default_rng(seed).standard_normal((rows, width)).astype("float32")}


def test_grad_rules_declare_shape_only_inputs():
    assert get_op("elementwise_add_grad").shape_only == {"X", "Y"}
    assert get_op("elementwise_sub_grad").shape_only == {"X", "Y"}
    assert get_op("elementwise_mul_grad").shape_only == frozenset()
    for op_type in ("reduce_mean_grad", "reduce_sum_grad", "mean_grad"):
        assert get_op(op_type).shape_only == {"X"}
    op = OpDef("demo", inputs=["X"], outputs=["Out"])
    with pytest.raises(TypeError, match="shape_only.*'w'.*choose from"):
        op.def_grad(lambda x, dout: dout, shape_only=("w",))


def test_training_mlp_reuses_bias_add_and_relu_buffers():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        label = static.data("label", [None, 1], "int64")
        hidden = static.nn.fc(x, 5, activation="relu")
        loss = F.cross_entropy(static.nn.fc(hidden, 2), label)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    static.Executor().run(startup)
    data = dict(feed(), label=np.array([[0], [1], [1], [0]]))
    (loss_on,), fused = run(main, data, [loss])
    (_, unfused) = run(main, data, [loss], fuse=False)
    (loss_off,), none = run(main, data, [loss], reuse=False)
    assert fused == ["elementwise_add", "fused_elemwise_activation"]
    assert unfused == ["elementwise_add", "elementwise_add", "relu"]
    assert none == []
    assert run(main, data, [loss], passes=False)[1] == []


def forward_program(build):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        outputs = build(x)
    static.Executor().run(startup)
    return main, outputs


def test_fed_values_and_fetched_temporaries_are_never_overwritten():
    main, (product, out) = forward_program(
        lambda x: (lambda p: (p, F.relu(p * x)))(paddle.matmul(x, paddle.ones([3, 3]))))
    data = feed()
    kept = data["x"].copy()
    (got_product, got_out), reused = run(main, data, [product, out], fuse=False)
    expected = kept @ np.ones((3, 3), "float32")
    assert reused == ["relu"]                        # the product is fetched: mul keeps it
    assert run(main, data, [product, out])[1] == []
    assert np.array_equal(data["x"], kept)
    assert np.array_equal(got_product, expected)
    assert np.array_equal(got_out, np.maximum(expected * kept, 0))
    (got_out,), reused = run(main, data, [out], fuse=False)
    assert reused == ["elementwise_mul", "relu"]
    assert np.array_equal(got_out, np.maximum(expected * kept, 0))
    (got_out,), reused = run(main, data, [out])
    assert reused == ["fused_elemwise_activation"]
    assert np.array_equal(got_out, np.maximum(expected * kept, 0))


def test_a_view_of_a_temporary_read_later_keeps_its_buffer():
    def build(x):
        product = paddle.matmul(x, paddle.ones([3, 3]))
        view = paddle.reshape(product, [-1])
        return F.relu(product) + paddle.reshape(view, [-1, 3])
    main, out = forward_program(build)
    data = feed()
    (got,), reused = run(main, data, [out])
    product = data["x"] @ np.ones((3, 3), "float32")
    assert "relu" not in reused
    assert np.array_equal(got, np.maximum(product, 0) + product)


def _identity(a):
    return np.asarray(a)


def test_a_py_func_result_sharing_the_buffer_keeps_it():
    def build(x):
        product = paddle.matmul(x, paddle.ones([3, 3]))
        same = main_block(x).create_var(name="same", dtype="float32", shape=[-1, 3])
        static.py_func(func=_identity, x=product, out=same)
        return F.relu(product) + same
    main, out = forward_program(build)
    data = feed()
    (got,), reused = run(main, data, [out])
    product = data["x"] @ np.ones((3, 3), "float32")
    assert "relu" not in reused
    assert np.array_equal(got, np.maximum(product, 0) + product)


@pytest.mark.parametrize("writer", ["assign", "reshape2", "py_func"])
def test_a_persistable_never_shares_a_temporary_buffer(writer):
    """assign returns a new array; a view (reshape2) or a py_func result written to a
    persistable is copied by the plan: either way the product's buffer stays reusable and the
    scope keeps the product's value, not relu's."""
    def build(x):
        product = paddle.matmul(x, paddle.ones([3, 3]))
        kept = main_block(x).create_var(name="kept", dtype="float32", shape=[-1, 3],
                                        persistable=True)
        if writer == "py_func":
            static.py_func(func=_identity, x=product, out=kept)
        else:
            append_simple_op(writer, {"X": product}, {"shape": [-1, 3]} if writer == "reshape2"
                             else None, outputs={"Out": kept})
        return F.relu(product)
    main, out = forward_program(build)
    data = feed()
    (got,), reused = run(main, data, [out])
    product = data["x"] @ np.ones((3, 3), "float32")
    assert reused == ["relu"]
    assert np.array_equal(got, np.maximum(product, 0))
    assert np.array_equal(static.global_scope().find_var("kept").get_tensor(), product)


def main_block(var):
    return var.block.program.global_block()


def test_a_later_value_read_keeps_the_buffer_and_broadcasting_falls_back():
    def build(x):
        column = paddle.matmul(x, paddle.ones([3, 1]))         # [N, 1]
        wide = column + paddle.matmul(x, paddle.ones([3, 4]))  # [N, 4]: not X's shape
        doubled = append_simple_op("scale", {"X": column}, {"scale": 2.0})
        return wide, doubled                                   # scale reads column later
    main, (wide, doubled) = forward_program(build)
    data = feed()
    (got_wide, got_doubled), reused = run(main, data, [wide, doubled])
    column = data["x"] @ np.ones((3, 1), "float32")
    assert reused == []
    assert np.array_equal(got_wide, column + data["x"] @ np.ones((3, 4), "float32"))
    assert np.array_equal(got_doubled, column * np.float32(2.0))
    main, wide = forward_program(lambda x: paddle.matmul(x, paddle.ones([3, 1]))
                                 + paddle.matmul(x, paddle.ones([3, 4])))
    (got_wide,), reused = run(main, data, [wide])
    assert reused == ["elementwise_add"]                       # chosen, falls back at run time
    assert np.array_equal(got_wide, column + data["x"] @ np.ones((3, 4), "float32"))


def test_in_place_kernels_match_the_pure_kernels_bit_for_bit():
    rng = np.random.default_rng(3)
    x, y, bias = (rng.standard_normal(s).astype("float32") for s in ((5, 4), (5, 4), (4,)))
    for op_type in ("elementwise_add", "elementwise_sub", "elementwise_mul"):
        opdef = get_op(op_type)
        for other, axis in ((y, -1), (bias, -1), (bias, 1)):
            expected = opdef.run(x, other, axis=axis)
            buffer = x.copy()
            assert opdef.inplace_kernel(buffer, other, axis=axis) is buffer
            assert buffer.tobytes() == expected.tobytes()
        assert opdef.inplace_kernel(x[:1, :1].copy(), y, axis=-1).shape == (5, 4)
    fused = get_op("fused_elemwise_activation")
    attrs = dict(axis=-1, save_intermediate_out=False, functor_list=["relu", "elementwise_add"])
    buffer = x.copy()
    out, _ = fused.inplace_kernel(buffer, bias, **attrs)
    assert out is buffer and out.tobytes() == np.maximum(x + bias, 0).tobytes()
    buffer = x.copy()
    assert get_op("relu").inplace_kernel(buffer) is buffer
    assert buffer.tobytes() == np.maximum(x, 0).tobytes()
