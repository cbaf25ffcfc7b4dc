"""Graph passes (framework/passes): each rewrite happens where it should, and programs give
bit-identical results, scope state and errors with the passes on (the default) and off."""
import os

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework import ExecutionError
from pyfluid.framework.op_append import append_simple_op
from pyfluid.framework.passes import PASSES, apply_passes
from shared_fixtures import PADDLE_FIXTURES, needs_shared

FIXTURES = str(PADDLE_FIXTURES)


# -- helpers ------------------------------------------------------------------------------------
def strategy(**flags):
    bs = static.BuildStrategy()
    for name, value in flags.items():
        setattr(bs, name, value)
    return bs


def off(program):
    return static.CompiledProgram(program, build_strategy=strategy(enable_passes=False))


def mlp(optimizer=None, sizes=(6, 8, 8, 3)):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, sizes[0]], "float32")
        y = static.data("y", [None, 1], "int64")
        h = x
        for size in sizes[1:-1]:
            h = static.nn.fc(h, size, activation="relu")
        logits = static.nn.fc(h, sizes[-1])
        test = main.clone(for_test=True)              # the network without the loss
        loss = paddle.nn.functional.cross_entropy(logits, y)
        (optimizer or paddle.optimizer.SGD(learning_rate=0.1)).minimize(loss)
    return main, startup, test, logits, loss


def batches(n=4, width=6, classes=3, rows=5):
    rng = np.random.default_rng(0)
    return [{"x": rng.standard_normal((rows, width)).astype("float32"),
             "y": rng.integers(0, classes, (rows, 1))} for _ in range(n)]


def twin_scopes(exe, startup):
    """Two scopes holding the same (bitwise) state after running ``startup`` once."""
    on = static.Scope()
    exe.run(startup, scope=on)
    twin = static.Scope()
    for name in on.local_var_names():
        value = np.array(on.find_var(name).get_tensor()).copy()
        twin.var(name).get_tensor().set(value, paddle.CPUPlace())
    return on, twin


def assert_same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def assert_same_scopes(s1, s2):
    assert sorted(s1.local_var_names()) == sorted(s2.local_var_names())
    for name in s1.local_var_names():
        assert_same_bits(s1.find_var(name).get_tensor(), s2.find_var(name).get_tensor())


def optimized(program, feed_names, fetch, **flags):
    return apply_passes(program, strategy(**flags), tuple(feed_names),
                        tuple(v if isinstance(v, str) else v.name for v in fetch))


def op_types(program):
    return [op.type for op in program.global_block().ops]


# -- training: bit-identical steps ----------------------------------------------------------------
@pytest.mark.parametrize("make_optimizer", [
    lambda: paddle.optimizer.SGD(learning_rate=0.1),
    lambda: paddle.optimizer.Adam(learning_rate=0.01),
    lambda: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9)])
def test_training_steps_are_bit_identical(make_optimizer):
    main, startup, _, _, loss = mlp(make_optimizer())
    exe = static.Executor()
    on, twin = twin_scopes(exe, startup)
    for feed in batches(5):
        got = exe.run(main, feed=feed, fetch_list=[loss], scope=on)
        want = exe.run(off(main), feed=feed, fetch_list=[loss], scope=twin)
        assert_same_bits(got[0], want[0])
    assert_same_scopes(on, twin)


def test_training_program_gets_updates_scheduled_and_bias_relu_fused():
    main, _, _, _, loss = mlp()
    before = str(main)
    program = optimized(main, ["x", "y"], [loss])
    assert str(main) == before and program is not main          # the user's program is untouched
    ops = program.global_block().ops
    types = op_types(program)
    # elementwise_add_grad reads the product, so fc is not fused; bias add + relu is
    assert "fc" not in types and types.count("fused_elemwise_activation") == 2
    assert types.count("mul") == 3 and types.count("relu") == 0
    for index, op in enumerate(ops):
        if op.type == "sgd":   # right after the op producing its gradient
            assert op.input("Grad")[0] in ops[index - 1].output_arg_names
    first_sgd = types.index("sgd")
    assert first_sgd < types.index("relu_grad")                   # moved up into backward


def test_an_update_never_moves_above_a_reader_of_its_parameter():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        out = static.nn.fc(x, 2)
        loss = paddle.mean(out)
        params_grads = static.append_backward(loss)
        weight = params_grads[0][0]
        echo = paddle.scale(weight, scale=2.0)        # reads the weight after backward
        paddle.optimizer.SGD(learning_rate=0.5).apply_gradients(params_grads)
    program = optimized(main, ["x"], [echo])
    types = op_types(program)
    update = next(i for i, op in enumerate(program.global_block().ops)
                  if op.type == "sgd" and op.input("Param") == [weight.name])
    assert types.index("scale") < update
    exe = static.Executor()
    on, twin = twin_scopes(exe, startup)
    feed = {"x": np.ones((3, 4), "float32")}
    assert_same_bits(exe.run(main, feed=feed, fetch_list=[echo], scope=on)[0],
                     exe.run(off(main), feed=feed, fetch_list=[echo], scope=twin)[0])
    assert_same_scopes(on, twin)


# -- inference: fc fusion ------------------------------------------------------------------------
def test_for_test_clone_fuses_fc_and_matches():
    main, startup, test, logits, _ = mlp()
    program = optimized(test, ["x"], [logits])
    assert op_types(program) == ["fc", "fc", "fc"]
    assert [op.attr("activation_type") for op in program.global_block().ops] == ["relu", "relu", ""]
    assert "fc_0.tmp_0" not in program.global_block().vars      # the fused temporaries are gone
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": batches(1)[0]["x"]}
    assert_same_bits(exe.run(test, feed=feed, fetch_list=[logits])[0],
                     exe.run(off(test), feed=feed, fetch_list=[logits])[0])


def test_saved_inference_model_runs_fused(tmp_path):
    main, startup, test, logits, _ = mlp()
    exe = static.Executor()
    exe.run(startup)
    x = test.global_block().var("x")
    static.save_inference_model(str(tmp_path / "model"), [x], [logits], exe, program=test)
    program, feed_names, fetch_targets = static.load_inference_model(str(tmp_path / "model"), exe)
    assert op_types(optimized(program, feed_names, fetch_targets)).count("fc") == 3
    feed = {"x": batches(1)[0]["x"]}
    got = exe.run(program, feed=feed, fetch_list=fetch_targets)
    want = exe.run(off(program), feed=feed, fetch_list=fetch_targets)
    assert_same_bits(got[0], want[0])


@needs_shared
@pytest.mark.parametrize("name", ["mlp_small", "convnet_small", "norm_mix"])
def test_models_saved_by_paddle_run_fused_and_identical(name):
    exe = static.Executor()
    program, feed_names, fetch_targets = static.load_inference_model(
        os.path.join(FIXTURES, name), exe)
    io = np.load(os.path.join(FIXTURES, name + ".io.npz"))
    types = op_types(optimized(program, feed_names, fetch_targets))
    assert "fc" in types and "mul" not in types
    if name == "convnet_small":      # conv bias (axis=1 on NCHW) + relu
        assert "fused_conv2d" in types and "conv2d" not in types
    got = exe.run(program, feed={feed_names[0]: io["x"]}, fetch_list=fetch_targets)
    want = exe.run(off(program), feed={feed_names[0]: io["x"]}, fetch_list=fetch_targets)
    for g, w in zip(got, want):
        assert_same_bits(g, w)


def test_fc_fusion_of_matmul_and_of_mul_on_3d_input():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        seq = static.data("seq", [None, 3, 4], "float32")
        w = static.create_parameter([4, 5], "float32")
        b = static.create_parameter([5], "float32")
        flat = paddle.nn.functional.relu(paddle.add(paddle.matmul(x, w), b))
        per_step = static.nn.fc(seq, 5, num_flatten_dims=2)
    program = optimized(main, ["x", "seq"], [flat, per_step])
    fcs = [op for op in program.global_block().ops if op.type == "fc"]
    assert [(op.attr("in_num_col_dims"), op.attr("activation_type")) for op in fcs] == \
        [(1, "relu"), (2, "")]
    exe = static.Executor()
    exe.run(startup)
    rng = np.random.default_rng(1)
    feed = {"x": rng.standard_normal((6, 4)).astype("float32"),
            "seq": rng.standard_normal((2, 3, 4)).astype("float32")}
    got = exe.run(main, feed=feed, fetch_list=[flat, per_step])
    want = exe.run(off(main), feed=feed, fetch_list=[flat, per_step])
    assert got[1].shape == (2, 3, 5)
    for g, w_ in zip(got, want):
        assert_same_bits(g, w_)


def test_fetched_or_shared_intermediates_are_not_fused():
    main, _, test, logits, _ = mlp()
    product, pre_activation = "fc_0.tmp_0", "fc_0.tmp_1"
    types = op_types(optimized(test, ["x"], [logits, product]))
    assert types[:2] == ["mul", "fused_elemwise_activation"] and types.count("fc") == 2
    types = op_types(optimized(test, ["x"], [logits, pre_activation]))
    assert types[:2] == ["fc", "relu"] and types.count("fc") == 3
    types = op_types(optimized(main, ["x", "y"], [logits]))     # backward reads the products
    assert "fc" not in types
    transposed = static.Program()
    with static.program_guard(transposed, static.Program()):
        x = static.data("x", [None, 4], "float32")
        w = static.create_parameter([5, 4], "float32")
        out = paddle.add(paddle.matmul(x, w, transpose_y=True),
                         static.create_parameter([5], "float32"))
    assert "fc" not in op_types(optimized(transposed, ["x"], [out]))


# -- dead-op elimination ---------------------------------------------------------------------------
def test_dead_ops_are_dropped_but_side_effects_stay():
    calls = []

    def record(value):
        calls.append(float(np.array(value).sum()))

    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        used = paddle.scale(x, scale=3.0)
        unused = paddle.exp(paddle.scale(x, scale=5.0))           # nobody reads it
        static.py_func(record, x, None)                           # a debug print: no outputs
        block = main.global_block()
        noise = append_simple_op("uniform_random", {}, {"shape": [2, 2]},   # seed 0: shared
                                 block=block)                     # generator, must still draw
        seeded = append_simple_op("uniform_random", {}, {"shape": [2, 2], "seed": 7},
                                  block=block)                    # its own stream: droppable
        counter = main.global_block().create_var(name="steps", shape=[1], dtype="float32",
                                                 persistable=True)
        main.global_block().append_op(type="scale", inputs={"X": counter},
                                      outputs={"Out": counter}, attrs={"bias": 1.0})
    program = optimized(main, ["x"], [used])
    block = program.global_block()
    assert op_types(program) == ["scale", "py_func", "uniform_random", "scale"]
    assert block.ops[2].output("Out") == [noise.name]
    assert unused.name not in block.vars and seeded.name not in block.vars
    assert "exp" in op_types(main)                                # the user's program keeps it
    exe = static.Executor()
    feed = {"x": np.arange(8, dtype="float32").reshape(2, 4)}
    results, draws, steps = [], [], []
    for program_or_compiled in (main, off(main)):
        scope = static.Scope()
        scope.var("steps").get_tensor().set(np.zeros(1, "float32"), paddle.CPUPlace())
        paddle.seed(5)
        results.append(exe.run(program_or_compiled, feed=feed, fetch_list=[used], scope=scope)[0])
        draws.append(paddle.ops.random.default_generator.rng.random(3))
        steps.append(np.array(scope.find_var("steps").get_tensor()))
    assert_same_bits(*results)
    assert_same_bits(*draws)
    assert steps[0].tolist() == steps[1].tolist() == [1.0]
    assert calls == [28.0, 28.0]


def test_dropping_dead_ops_keeps_the_random_stream():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 16], "float32")
        append_simple_op("dropout", {"X": x}, {"dropout_prob": 0.5})   # unused, but draws
        kept = append_simple_op("dropout", {"X": x}, {"dropout_prob": 0.5})
    exe = static.Executor()
    feed = {"x": np.ones((4, 16), "float32")}
    paddle.seed(11)
    got = [exe.run(main, feed=feed, fetch_list=[kept])[0] for _ in range(2)]
    paddle.seed(11)
    want = [exe.run(off(main), feed=feed, fetch_list=[kept])[0] for _ in range(2)]
    for g, w in zip(got, want):
        assert_same_bits(g, w)
    assert op_types(optimized(main, ["x"], [kept])).count("dropout") == 2


def test_ops_reading_an_unfed_input_still_report_it():
    main, startup, _, logits, loss = mlp()
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": batches(1)[0]["x"]}
    # the loss ops are dead for this fetch, but they read y, which nobody feeds
    with pytest.raises(ExecutionError, match=r"Label\(y\) is not initialized"):
        exe.run(main.clone(for_test=True), feed=feed, fetch_list=[logits])


# -- errors, switches, printing, caching ----------------------------------------------------------
def test_errors_name_the_ops_the_user_built():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, None], "float32")       # width unknown until run time
        out = paddle.nn.functional.relu(paddle.add(
            paddle.matmul(x, static.create_parameter([6, 5], "float32")),
            static.create_parameter([5], "float32")))
    exe = static.Executor()
    exe.run(startup)
    assert op_types(optimized(main, ["x"], [out])) == ["fc"]
    with pytest.raises(ExecutionError) as info:
        exe.run(main, feed={"x": np.ones((2, 7), "float32")}, fetch_list=[out])
    message = str(info.value)
    assert "matmul_v2(X=x" in message and "relu(" in message and __file__ in message
    with pytest.raises(ExecutionError, match=r"Input Variable Input\(x\)[\s\S]*matmul_v2\(X=x"):
        exe.run(main, feed={}, fetch_list=[out])


def test_errors_in_programs_split_for_hoisting_name_the_ops_the_user_built():
    """A large fc weight is transposed once (fc_transposed), which splits the program into
    a prep and a main part: their copies keep what each fused op was made of."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 300], "float32")
        out = paddle.add(paddle.matmul(x, static.create_parameter([300, 256], "float32")),
                         static.create_parameter([256], "float32"))
    exe = static.Executor()
    exe.run(startup)
    assert op_types(optimized(main, ["x"], [out])) == ["fc_weight_transpose", "fc_transposed"]
    with pytest.raises(ExecutionError, match=r"Input Variable Input\(x\)[\s\S]*matmul_v2\(X=x"):
        exe.run(main, feed={}, fetch_list=[out])


def test_switches_turn_passes_off():
    main, _, test, logits, _ = mlp()
    assert apply_passes(test, strategy(enable_passes=False), ("x",), (logits.name,)) is test
    program = optimized(test, ["x"], [logits], fuse_fc=False)
    assert "fc" not in op_types(program) and "fused_elemwise_activation" in op_types(program)
    bs = strategy()
    bs.fuse_elewise_add_act_ops = False                # Paddle's name for the flag
    assert bs.fuse_elementwise_act is False
    assert set(PASSES) == set(static.BuildStrategy().enabled_passes())


def test_plan_cache_key_includes_the_strategy():
    main, startup, test, logits, _ = mlp()
    exe = static.Executor()
    exe.run(startup)
    bs = strategy()
    compiled = static.CompiledProgram(test, build_strategy=bs)
    feed = {"x": batches(1)[0]["x"]}
    exe.run(compiled, feed=feed, fetch_list=[logits])
    bs.fuse_fc = False
    exe.run(compiled, feed=feed, fetch_list=[logits])
    programs = [plan.program for plan in exe._plans.values()]
    assert [("fc" in op_types(p)) for p in programs[-2:]] == [True, False]


def test_show_passes_prints_each_change(capsys, monkeypatch):
    main, startup, test, logits, _ = mlp()
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": batches(1)[0]["x"]}
    exe.run(static.CompiledProgram(test, build_strategy=strategy(show_passes=True)),
            feed=feed, fetch_list=[logits])
    out = capsys.readouterr().out
    assert "--- pass fuse_fc: before ---" in out and "--- pass fuse_fc: after ---" in out
    assert "pass schedule_optimizer_updates" not in out          # changed nothing: silent
    assert "= fc(Bias=fc_0.b_0, Input=x, W=fc_0.w_0) {activation_type='relu'}" in out
    monkeypatch.setenv("PYFLUID_SHOW_PASSES", "1")
    exe.run(test, feed=feed, fetch_list=[logits, "fc_0.tmp_2"])     # a new plan
    assert "--- pass fuse_fc: after ---" in capsys.readouterr().out


def test_fused_ops_follow_paddle():
    fc = paddle.ops.get_op("fc")
    assert [s.name for s in fc.inputs] == ["Input", "W", "Bias"] and fc.inputs[2].dispensable
    assert {k: s.default for k, s in fc.attrs.items()} == {
        "in_num_col_dims": 1, "activation_type": "", "padding_weights": False}
    fused = paddle.ops.get_op("fused_elemwise_activation")
    assert {k: s.default for k, s in fused.attrs.items()} == {
        "axis": -1, "scale": 0.0, "save_intermediate_out": False, "functor_list": []}
    x = np.random.default_rng(2).standard_normal((3, 4)).astype("float32")
    w = np.random.default_rng(3).standard_normal((4, 2)).astype("float32")
    b = np.float32([0.5, -9.0])
    out = fc.run(x, w, b, in_num_col_dims=1, activation_type="relu", padding_weights=False)
    assert_same_bits(out, np.maximum(x @ w + b, np.float32(0)))
    with pytest.raises(ValueError, match="Activation tanh is not supportetd in fc now"):
        fc.run(x, w, b, in_num_col_dims=1, activation_type="tanh", padding_weights=False)
