"""The inference passes (fold_conv_bn, fuse_conv, conv_winograd) and the Executor's values
computed from parameters alone (executor/hoisting.py): where they apply, that each is
switched by BuildStrategy, that results stay close to the unfused program (folding and
Winograd change rounding: rtol 1e-5 plus atol 1e-5 of the output's largest magnitude), that
training programs are left alone, and that the computed-once values follow every change of
the parameters: tensor.set, a training step updating them in place, a reload."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.executor.hoisting import HoistedPlan
from pyfluid.framework.passes import apply_passes

F = paddle.nn.functional


def strategy(**flags):
    bs = static.BuildStrategy()
    for name, value in flags.items():
        setattr(bs, name, value)
    return bs


def build(batch_size=None, layout="NCHW"):
    """A small residual CNN: conv-bn-relu, conv-bn + a 1x1 conv-bn shortcut, relu, a biased
    conv-bn, a depthwise conv-bn-relu6, pooling and two fc; its test clone; a training step."""
    main, startup = static.Program(), static.Program()
    nhwc = layout == "NHWC"

    def conv(x, filters, size, **kwargs):
        return static.nn.conv2d(x, filters, size, padding=size // 2, data_format=layout,
                                **kwargs)

    def bn(x, act=None):
        return static.nn.batch_norm(x, act=act, data_layout=layout)

    with static.program_guard(main, startup):
        x = static.data("x", [batch_size, 12, 12, 3] if nhwc else [batch_size, 3, 12, 12],
                        "float32")
        label = static.data("label", [batch_size, 1], "int64")
        h = bn(conv(x, 16, 3, bias_attr=False), act="relu")
        y = bn(conv(h, 16, 3, bias_attr=False))
        s = bn(conv(x, 16, 1, bias_attr=False))
        h = F.relu(paddle.add(y, s))
        h = bn(conv(h, 16, 3))                                                 # conv bias
        h = F.relu6(bn(conv(h, 16, 3, groups=16, bias_attr=False)))
        pooled = F.max_pool2d(h, 2, 2, data_format=layout)
        hidden = static.nn.fc(paddle.flatten(pooled, start_axis=1), 128, activation="relu")
        logits = static.nn.fc(hidden, 5)          # the hidden fc's weight is transposed
        test = main.clone(for_test=True)
        loss = F.cross_entropy(logits, label)
        paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)
    return main, startup, test, logits, loss


@pytest.fixture(params=["NCHW", "NHWC"])
def net(request):
    main, startup, test, logits, loss = build(layout=request.param)
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    for name in scope.local_var_names():          # non-trivial running statistics
        if "w_1" in name or "w_2" in name:
            tensor = scope.find_var(name).get_tensor()
            shape = np.array(tensor).shape
            tensor.set(rng.uniform(0.5, 1.5, shape).astype("float32"))
    shape = (4, 12, 12, 3) if request.param == "NHWC" else (4, 3, 12, 12)
    feed = {"x": rng.standard_normal(shape).astype("float32"),
            "label": rng.integers(0, 5, (4, 1))}
    return exe, scope, main, test, logits, loss, feed


def infer(exe, scope, program, logits, feed, **flags):
    compiled = static.CompiledProgram(program, build_strategy=strategy(**flags))
    return exe.run(compiled, feed={"x": feed["x"]}, fetch_list=[logits], scope=scope)[0]


def assert_close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def types(program, logits, **flags):
    optimized = apply_passes(program, strategy(**flags), ("x",), (logits.name,))
    return [op.type for op in optimized.global_block().ops]


def test_inference_programs_are_folded_and_fused(net):
    exe, scope, main, test, logits, loss, feed = net
    found = types(test, logits)
    assert "batch_norm" not in found and "relu" not in found and "relu6" not in found
    convs = ("fused_conv2d", "fused_conv2d_winograd", "fused_conv2d_pointwise")
    assert sum(found.count(kind) for kind in convs) == 5
    assert "conv2d" not in found and "depthwise_conv2d" not in found
    assert "winograd_filter" in found            # 16 -> 16 channels on a 12 x 12 map
    assert found.count("fc_transposed") == found.count("fc") == 1    # large and small weights
    assert "fc_weight_transpose" in found
    got = infer(exe, scope, test, logits, feed)
    assert_close(got, infer(exe, scope, test, logits, feed, enable_passes=False))


@pytest.mark.parametrize("flag,present,absent", [
    ("fold_conv_bn", ["batch_norm"], ["elementwise_div"]),
    ("fuse_conv", ["conv2d"], ["fused_conv2d"]),
    ("conv_winograd", ["fused_conv2d"], ["fused_conv2d_winograd"]),
    ("fc_transposed", ["fc"], ["fc_transposed"]),
    ("hoist_invariants", ["batch_norm", "fc"], ["fused_conv2d_winograd", "fc_transposed"]),
])
def test_each_pass_is_switched_by_build_strategy(net, flag, present, absent):
    exe, scope, main, test, logits, loss, feed = net
    found = types(test, logits, **{flag: False})
    assert all(t in found for t in present) and not any(t in found for t in absent)
    assert_close(infer(exe, scope, test, logits, feed, **{flag: False}),
                 infer(exe, scope, test, logits, feed, enable_passes=False))


def test_training_programs_are_left_alone(net):
    exe, scope, main, test, logits, loss, feed = net
    found = types(main, loss)
    assert found.count("batch_norm") == 5 and "fused_conv2d" not in found
    assert "winograd_filter" not in found and "fc_transposed" not in found


@pytest.mark.parametrize("rows,k,m,block", [(8, 1280, 1000, 91), (4, 4608, 512, 52),
                                            (8, 512, 1000, 125),     # 1024 output values
                                            (1, 1280, 1000, 0), (64, 1280, 1000, 0),
                                            (8, 256, 1000, 0), (8, 16, 10, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fc_transposed_runs_few_rows_in_blocks_of_the_weight(rows, k, m, block, dtype):
    from pyfluid.ops.small_products import rows_times_transposed, small_block
    assert small_block(rows, k, m, np.dtype(dtype)) == (block if dtype == "float32" else 0)
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((rows, k)).astype(dtype), rng.standard_normal((k, m))
    got = rows_times_transposed(x, np.ascontiguousarray(w.T.astype(dtype)))
    np.testing.assert_allclose(got, x @ w.astype(dtype), rtol=1e-4, atol=1e-4)


def sgd_step(param: str, shape) -> static.Program:
    """A program whose sgd op updates ``param`` in place by 0.1 * the fed ``g``."""
    program = static.Program()
    with static.program_guard(program, static.Program()):
        block = program.global_block()
        w = block.create_var(name=param, shape=shape, dtype="float32", persistable=True)
        lr = paddle.full([1], 0.1, "float32")
        g = static.data("g", list(shape), "float32")
        block.append_op(type="sgd", inputs={"Param": [w], "Grad": [g], "LearningRate": [lr]},
                        outputs={"ParamOut": [w]})
    return program


def test_parameter_values_are_computed_once_and_follow_every_change(net, monkeypatch):
    exe, scope, main, test, logits, loss, feed = net
    preps = []
    original = HoistedPlan._prepare
    monkeypatch.setattr(HoistedPlan, "_prepare",
                        lambda self, *a: preps.append(1) or original(self, *a))

    def check(runs):
        """``runs`` fused runs (the first may prepare), against the unfused program run on
        a copy of the scope (its batch_norm ops write the statistics back)."""
        got = [infer(exe, scope, test, logits, feed) for _ in range(runs)]
        twin = static.Scope()
        for name in scope.local_var_names():
            twin.var(name).get_tensor().set(np.array(scope.find_var(name).get_tensor()))
        want = infer(exe, twin, test, logits, feed, enable_passes=False)
        for value in got:
            assert_close(value, want)

    check(3)
    assert len(preps) == 1                                    # once for three runs
    mean = next(n for n in scope.local_var_names() if n.endswith("w_1"))
    tensor = scope.find_var(mean).get_tensor()
    tensor.set(np.array(tensor) + 0.25)                       # a new value: prepared again
    check(2)
    assert len(preps) == 2
    filt = "conv2d_1.w_0"
    before = scope.find_var(filt).get_tensor()._array
    exe.run(sgd_step(filt, before.shape), feed={"g": np.ones(before.shape, "float32")},
            scope=scope)
    assert scope.find_var(filt).get_tensor()._array is before  # updated in place
    check(2)
    assert len(preps) == 3
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)  # a training step
    check(1)
    assert len(preps) == 4
    weight = "fc_0.w_0"                                       # 576 x 128: transposed
    shape = np.array(scope.find_var(weight).get_tensor()).shape
    exe.run(sgd_step(weight, shape), feed={"g": np.ones(shape, "float32")}, scope=scope)
    check(1)                                                  # fc's transposed weight too
    assert len(preps) == 5
    assert not [n for n in scope.local_var_names() if "@" in n]   # the scope holds none


def test_a_loaded_inference_model_is_folded(net, tmp_path):
    exe, scope, main, test, logits, loss, feed = net
    with static.scope_guard(scope):
        x = test.global_block().var("x")
        static.save_inference_model(str(tmp_path / "m"), [x], [test.global_block().var(
            logits.name)], exe, program=test)
        program, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), exe)
        got = exe.run(program, feed={"x": feed["x"]}, fetch_list=fetches)[0]
        plan = next(reversed(exe._plans.values()))
        assert isinstance(plan, HoistedPlan)
        assert "batch_norm" not in [op.type for op in plan.ops]
    assert_close(got, infer(exe, scope, test, logits, feed, enable_passes=False))


def test_to_static_layers_see_eager_updates_of_their_parameters():
    paddle.disable_static()
    try:
        paddle.seed(3)
        model = paddle.nn.Sequential(paddle.nn.Conv2D(3, 16, 3, padding=1),
                                     paddle.nn.BatchNorm2D(16), paddle.nn.ReLU())
        model.eval()
        x = paddle.to_tensor(np.random.default_rng(1).standard_normal((2, 3, 8, 8))
                             .astype("float32"))
        static_model = paddle.jit.to_static(model)
        first = static_model(x).numpy()
        np.testing.assert_allclose(first, model(x).numpy(), rtol=1e-5, atol=1e-5)
        weight = model.parameters()[0]
        weight._array *= 2                                  # in place, as an optimizer does
        np.testing.assert_allclose(static_model(x).numpy(), model(x).numpy(), rtol=1e-5,
                                   atol=1e-5)
    finally:
        paddle.enable_static()
