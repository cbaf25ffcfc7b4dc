"""A run that raises changes nothing in the scope: parameters, optimizer moments, beta powers
and counters are as they were before it (issue: a failed step left 18 of 41 persistables
updated, and a retry applied the update twice). In-place updates run only after the last op
that may raise; every other persistable is written back when the last op has run."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static


class Boom(RuntimeError):
    pass


def _fail_on(step: int):
    calls = {"n": 0}

    def relu_grad(y, dy):
        calls["n"] += 1
        if calls["n"] == step:
            raise Boom("the user's backward failed")
        return np.array(dy) * (np.array(y) > 0)
    return relu_grad


def _relu(x):
    return np.maximum(x, 0)


def build(optimizer, backward):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 6], "float32")
        y = static.data("y", [None, 1], "int64")
        h = static.nn.fc(x, 8)
        out = main.current_block().create_var(name="h_relu", dtype="float32", shape=h.shape)
        h = static.py_func(_relu, x=h, out=out, backward_func=backward,
                           skip_vars_in_backward_input=h)
        h = static.nn.fc(h, 5, activation="relu")
        loss = paddle.mean(paddle.nn.functional.cross_entropy(static.nn.fc(h, 3), y))
        counter = static.create_global_var([1], 0.0, "float32", persistable=True, name="steps")
        paddle.increment(counter)
        optimizer().minimize(loss)
    return main, startup, loss


def snapshot(scope, program):
    return {v.name: np.array(scope.find_var(v.name).get_tensor())
            for v in program.list_vars() if v.persistable and scope.find_var(v.name) is not None
            and scope.find_var(v.name).get_tensor()._array is not None}


OPTIMIZERS = {"sgd": lambda: paddle.optimizer.SGD(0.1),
              "momentum": lambda: paddle.optimizer.Momentum(0.1, momentum=0.9),
              "adam": lambda: paddle.optimizer.Adam(0.01)}


@pytest.mark.parametrize("passes", [True, False], ids=["passes", "no-passes"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_step_failing_in_the_backward_changes_no_persistable(name, passes):
    main, startup, loss = build(OPTIMIZERS[name], _fail_on(3))
    program = main
    if not passes:
        strategy = static.BuildStrategy()
        strategy.enable_passes = False
        program = static.CompiledProgram(main, build_strategy=strategy)
    scope, exe = static.Scope(), static.Executor()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((4, 6)).astype("float32"),
            "y": rng.integers(0, 3, (4, 1))}
    for _ in range(2):
        exe.run(program, feed=feed, fetch_list=[loss], scope=scope)
    before = snapshot(scope, main)
    assert len(before) > 6
    with pytest.raises(Exception, match="the user's backward failed"):
        exe.run(program, feed=feed, fetch_list=[loss], scope=scope)
    after = snapshot(scope, main)
    changed = [n for n in before if not np.array_equal(before[n], after[n])]
    assert changed == [], f"a failed run changed {changed}"
    exe.run(program, feed=feed, fetch_list=[loss], scope=scope)    # the retry is one step
    assert float(after["steps"][0]) == 2 and float(snapshot(scope, main)["steps"][0]) == 3


def test_updates_of_an_ordinary_training_step_still_run_in_place():
    """The grad ops of a training step cannot raise, so the updates the passes move right
    after their gradients keep their in-place kernels (the speed and memory of before)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 6], "float32")
        y = static.data("y", [None, 1], "int64")
        h = static.nn.fc(x, 8, activation="relu")
        loss = paddle.nn.functional.cross_entropy(static.nn.fc(h, 3), y)
        paddle.optimizer.Adam(0.01).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    exe.run(main, feed={"x": np.ones((2, 6), "float32"), "y": np.zeros((2, 1), "int64")},
            fetch_list=[loss])
    source = list(exe._plans.values())[-1].source
    adam_lines = [line for line in source.splitlines() if line.rstrip().endswith(
        ("adam", "adam (in place)"))]
    assert len(adam_lines) == 4 and all(line.endswith("(in place)") for line in adam_lines)
    assert "mul_grad" in source.split("adam (in place)")[1]     # updates before later grads


def test_an_update_before_a_fallible_op_runs_its_pure_kernel():
    main, startup, loss = build(OPTIMIZERS["sgd"], _fail_on(-1))
    exe = static.Executor()
    exe.run(startup)
    exe.run(main, feed={"x": np.ones((2, 6), "float32"), "y": np.zeros((2, 1), "int64")},
            fetch_list=[loss])
    source = list(exe._plans.values())[-1].source
    sgd_lines = [line for line in source.splitlines() if " sgd" in line]
    before_py_func = source.split("py_func")[-2]    # everything up to the backward py_func
    assert any(" sgd" in line and "in place" not in line for line in before_py_func.splitlines())
    assert sgd_lines


def test_a_large_constant_is_made_by_the_run_not_held_by_the_plan():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        big = paddle.full([1 << 20], 1.0, "float32")
        small = paddle.full([4], 2.0, "float32")
        total = paddle.sum(big) + paddle.sum(small)
    exe = static.Executor()
    (value,) = exe.run(main, fetch_list=[total])
    assert float(value) == (1 << 20) + 8.0
    plan = list(exe._plans.values())[-1]
    folded = [line for line in plan.source.splitlines() if "(folded)" in line]
    assert len(folded) == 1 and "fill_constant" in folded[0]   # the small one only
    assert all(getattr(v, "size", 0) <= 1 << 16 for v in plan.namespace.values())


def test_a_constant_that_fails_to_fold_is_reported_with_its_op(monkeypatch):
    from pyfluid.ops import get_op
    main = static.Program()
    with static.program_guard(main, static.Program()):
        out = paddle.full([2], 3.0, "float32") * 2.0
    line = __import__("sys")._getframe().f_lineno - 1

    def failing_kernel(*args, **kwargs):
        raise MemoryError("no room for the constant")
    opdef = get_op("fill_constant")
    monkeypatch.setattr(opdef, "kernel", failing_kernel)
    monkeypatch.setattr(opdef, "specialize", None)
    with pytest.raises(paddle.framework.ExecutionError,
                       match=r"MemoryError: no room for the constant\n  while folding the "
                             r"constant op #0 in block 0:\n  .*fill_constant") as info:
        static.Executor().run(main, fetch_list=[out])
    assert f"{__file__}:{line}" in str(info.value)


def test_threads_sharing_an_executor_get_their_own_programs_results(tmp_path):
    """The feed/fetch target cache held one program at a time: two threads running two
    loaded programs through one Executor could read each other's targets."""
    import sys
    import threading
    exe = static.Executor()
    programs = []
    for k in range(2):
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 2], "float32")
            out = paddle.scale(x, 10.0 ** k) if k else paddle.nn.functional.relu(x)
        static.save_inference_model(str(tmp_path / f"m{k}"), [x], [out], exe, program=main)
        programs.append(static.load_inference_model(str(tmp_path / f"m{k}"), exe))
    feed = np.array([[-1.0, 2.0]], "float32")
    expected = [np.maximum(feed, 0), feed * 10.0]
    errors = []

    def worker(k):
        program, feeds, fetches = programs[k]
        for _ in range(200):
            (value,) = exe.run(program, feed={feeds[0]: feed}, fetch_list=fetches)
            if not np.array_equal(value, expected[k]):
                errors.append((k, value))
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(i % 2,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []


def test_the_feed_fetch_target_cache_keeps_each_program(tmp_path, monkeypatch):
    """It held one program at a time, so threads alternating programs replaced each other's
    entry between its write and its read; each program now keeps its own entry (under the
    executor's lock)."""
    from pyfluid.executor import executor as executor_module
    exe = static.Executor()
    loaded = []
    for k in range(2):
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 2], "float32")
            out = paddle.scale(x, 2.0)
        static.save_inference_model(str(tmp_path / f"m{k}"), [x], [out], exe, program=main)
        loaded.append(static.load_inference_model(str(tmp_path / f"m{k}"), exe))
    scans = []
    original = executor_module.feed_op_targets
    monkeypatch.setattr(executor_module, "feed_op_targets",
                        lambda block: scans.append(block) or original(block))
    for program, feeds, fetches in loaded + loaded:
        exe.run(program, feed={feeds[0]: np.ones((1, 2), "float32")}, fetch_list=fetches)
    assert len(scans) == 2
