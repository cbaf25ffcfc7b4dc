"""Programs with sub-blocks as IR: the printout nests each block under its op, verify()
rejects malformed block references (naming the op, never recursing or hanging), clone(for_test)
and save_inference_model keep blocks consistent as Paddle does, and the plan agrees bit for
bit with the reference interpreter and with itself with the graph passes on and off."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
from control_flow_ref import (case_arrays, recorded_bytes, recorded_cases, recorded_program,
                              recorded_values, structure, structure_diff)
from pyfluid import static
from pyfluid.executor.interpreter import run_block
from pyfluid.framework import ProgramError, unique_name
from pyfluid.framework.errors import ExecutionError
from pyfluid.framework.program import program_from_bytes
from pyfluid.ops.types import to_numpy_dtype

nn = static.nn


def cond_and_loop(with_backward=False, unused_cond=False):
    """Paddle 2.6's c08 recipe: a cond, a while_loop and (optionally) SGD or an unused cond."""
    main, startup = static.Program(), static.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        x = static.data("x", [None, 2], "float32")
        w = static.create_parameter([2, 2], "float32", name="w",
                                    default_initializer=paddle.nn.initializer.Assign(
                                        np.array([[0.5, -0.2], [0.3, 0.8]], "float32")))
        if unused_cond:
            nn.cond(paddle.sum(x) > 100.0, lambda: x * 100.0, lambda: x * -100.0)
        h = paddle.matmul(x, w)
        h = nn.cond(paddle.mean(h) > 0, lambda: paddle.nn.functional.relu(h), lambda: h * 0.5)
        i, n = paddle.zeros([1], "int64"), paddle.full([1], 3, "int64")
        _, h = nn.while_loop(lambda i, h: i < n,
                             lambda i, h: [i + 1, paddle.tanh(paddle.matmul(h, w))], [i, h])
        out = paddle.mean(h, axis=1)
        if with_backward:
            paddle.optimizer.SGD(0.1).minimize(paddle.mean(out))
    return main, startup, x, out


def test_the_printout_nests_each_sub_block_under_its_op():
    main, _, _, _ = cond_and_loop()
    text = str(main)
    assert text.count("block ") == 4 and text.startswith("block 0:")
    cond_line = next(line for line in text.splitlines() if "conditional_block(" in line)
    following = text.splitlines()[text.splitlines().index(cond_line) + 1]
    assert cond_line.startswith("  (Out=") and following == "    block 1 (parent 0):"
    assert "\n    block 3 (parent 0):\n" in text       # the while body, under the while op
    assert "\n      tanh_0.tmp_0 = tanh(" in text


def _with_sub_block(program, op_index: int, block: int, value: int):
    op = program.block(block).ops[op_index]
    op._set_attr("sub_block", value)
    return program_from_bytes(program.desc.serialize_to_string())


# building the plan reports the malformed sub_block; with the debug checks on (PYFLUID_CHECKS=1)
# verify() after the graph passes reports it first
RUN_ERRORS = (ExecutionError, ProgramError)


@pytest.mark.parametrize("value,message", [
    (9, r"sub_block=9 names no sub-block of this 4-block program"),
    (0, r"sub_block=0 names no sub-block"),
    (3, r"names block 3, which block 0 op #4 \(conditional_block, .*\) already runs"),
])
def test_a_malformed_block_reference_is_a_clear_error(value, message):
    main, _, _, _ = cond_and_loop()
    loaded = _with_sub_block(main, 4, 0, value)      # the first conditional_block
    with pytest.raises(ProgramError, match=r"block 0 op #\d+ \((conditional_block|while).*" + message):
        loaded.verify()
    with pytest.raises(RUN_ERRORS, match=r"(conditional_block|while).*sub_block"):
        static.Executor().run(loaded, feed={"x": np.ones((1, 2), "float32")})


def test_a_block_naming_itself_or_its_parent_is_a_clear_error():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [1], "float32")
        nn.cond(x.sum() > 0, lambda: nn.cond(x.sum() > 1, lambda: x + 1, lambda: x - 1),
                lambda: x)
    nested = next(op for op in main.block(1).ops if op.type == "conditional_block")
    for target, what in ((1, "the op's own block"), (0, "no sub-block")):
        nested._set_attr("sub_block", target)
        loaded = program_from_bytes(main.desc.serialize_to_string())
        with pytest.raises(ProgramError, match=f"block 1 op #.* \\(conditional_block.*{what}"):
            loaded.verify()
        with pytest.raises(RUN_ERRORS, match=r"conditional_block.*sub_block"):
            static.Executor().run(loaded, feed={"x": np.ones(1, "float32")})


def test_load_inference_model_rejects_a_loop_over_its_own_block(tmp_path):
    main, startup, x, out = cond_and_loop()
    exe = static.Executor()
    exe.run(startup)
    static.save_inference_model(str(tmp_path / "m"), [x], [out], exe, program=main)
    program = program_from_bytes((tmp_path / "m.pdmodel").read_bytes())
    loop = next(op for op in program.global_block().ops if op.type == "while")
    loop._set_attr("sub_block", 0)           # the while would run the block holding it
    (tmp_path / "m.pdmodel").write_bytes(program.desc.serialize_to_string())
    (tmp_path / "m.pdsha256").unlink(missing_ok=True)     # the file no longer is pyfluid's save
    with pytest.raises(Exception, match=r"op #\d+ \(while.*sub_block=0"):
        static.load_inference_model(str(tmp_path / "m"), exe)


def test_clone_for_test_sets_is_test_and_drops_the_grad_blocks():
    main, startup, x, out = cond_and_loop(with_backward=True)
    assert len(main.blocks) == 7
    test = main.clone(for_test=True)
    assert [(b.idx, b.parent_idx) for b in test.blocks] == [(0, -1), (1, 0), (2, 0), (3, 0)]
    ops = {op.type: op for op in test.global_block().ops}
    assert ops["while"].attr("is_test") is True and "while_grad" not in ops
    assert [op.attr("sub_block") for op in test.global_block().ops if op.has_attr("sub_block")
            ] == [1, 2, 3]
    test.verify()
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": np.array([[1.0, 2.0], [0.5, -1.0]], "float32")}
    np.testing.assert_allclose(exe.run(test, feed=feed, fetch_list=[out])[0],
                               case_arrays("c08_A_plain")["out"], rtol=1e-6)


@pytest.mark.parametrize("case,kw", [("A_plain", {}), ("B_unused_cond", {"unused_cond": True}),
                                     ("C_trained", {"with_backward": True})])
def test_save_inference_model_drops_unused_control_flow_and_renumbers(case, kw, tmp_path):
    main, startup, x, out = cond_and_loop(**kw)
    exe = static.Executor()
    exe.run(startup)
    static.save_inference_model(str(tmp_path / "m"), [x], [out], exe, program=main)
    saved = program_from_bytes((tmp_path / "m.pdmodel").read_bytes())
    theirs = recorded_program(f"c08_{case}")
    # Paddle named its fetch target scale_0.tmp_<k> with k counting the models it had saved
    fetch = theirs.global_block().ops[-1].input("X")[0]
    saved.global_block()._rename_var(saved.global_block().ops[-1].input("X")[0], fetch)
    assert structure_diff(structure(saved), structure(theirs)) == []
    assert (tmp_path / "m.pdiparams").read_bytes() == recorded_bytes(f"c08_{case}", ".pdiparams")
    program, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), exe)
    io = case_arrays(f"c08_{case}")
    np.testing.assert_allclose(exe.run(program, feed={"x": io["x"]}, fetch_list=fetches)[0],
                               io["out"], rtol=1e-6)


def test_paddles_saved_models_run():
    for case in recorded_cases("c08_"):
        program = recorded_program(case)
        scope, exe = static.Scope(), static.Executor()
        scope.var("w").get_tensor().set(np.array([[0.5, -0.2], [0.3, 0.8]], "float32"), None)
        io = case_arrays(case)
        got = exe.run(program, feed={"x": io["x"]}, scope=scope)   # what its fetch ops name
        np.testing.assert_allclose(got[0], io["out"], rtol=1e-6)


def _same_bits(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _programs_to_compare():
    """(program, feeds, fetch names, scope values) for the differential tests."""
    cases = []
    for case, entry in sorted(recorded_values().items()):
        program = recorded_program(case)
        block = program.global_block()
        feeds = [{k: np.array(v, dtype=to_numpy_dtype(block.vars[k].dtype))
                  for k, v in run["feed"].items()} for run in entry["runs"]
                 if not isinstance(run["values"], dict)]
        cases.append((case, program, feeds, entry["fetch"], {}))
    for case in recorded_cases("c03_") + recorded_cases("c04_"):
        values = case_arrays(case)
        params = {k[6:]: v for k, v in values.items() if k.startswith("param:")}
        feeds, k = [], 0
        while f"feed{k}:loss" in values:
            feeds.append({key.split(":")[1]: v for key, v in values.items()
                          if key.startswith(f"feed{k}:") and key.count(":") == 1
                          and not key.endswith(":loss")})
            k += 1
        fetch = [n + "@GRAD" for n in params] + [f"{n}@GRAD" for n in feeds[0]
                                                  if f"feed0:grad:{n}" in values]
        cases.append((case, recorded_program(case), feeds, fetch, params))
    return cases


@pytest.mark.parametrize("case,program,feeds,fetch,params", _programs_to_compare(),
                         ids=[c[0] for c in _programs_to_compare()])
def test_the_plan_agrees_with_the_interpreter_with_passes_on_and_off(case, program, feeds, fetch,
                                                                     params):
    outputs = {}
    for config in ("passes on", "passes off", "debug checks"):   # the checks accept arrays,
        strategy = static.BuildStrategy()                      # and branches of two dtypes
        strategy.enable_passes = config != "passes off"
        strategy.debug_checks = config == "debug checks"
        scope, exe = static.Scope(), static.Executor()
        for name, value in params.items():
            scope.var(name).get_tensor().set(value, None)
        outputs[config] = [exe.run(static.CompiledProgram(program, build_strategy=strategy),
                                   feed=feed, fetch_list=fetch, scope=scope) for feed in feeds]
    for k, feed in enumerate(feeds):
        env = run_block(program.global_block(), {**params, **{k: v.copy() for k, v in
                                                               feed.items()}})
        on = outputs["passes on"][k]
        for other in (outputs["passes off"][k], outputs["debug checks"][k],
                      [env.get(name) for name in fetch]):
            assert all(_same_bits(a, b) for a, b in zip(on, other)), case


def _training_program():
    """fc -> cond (parameters in both branches) -> a while_loop cell -> loss, with Adam."""
    main, startup = static.Program(), static.Program()
    main.random_seed = startup.random_seed = 11
    with unique_name.guard(), static.program_guard(main, startup):
        x = static.data("x", [64, 3], "float32")
        y = static.data("y", [64, 1], "float32")
        h = static.nn.fc(x, 64, activation="relu")        # [64, 64]: big enough to reuse
        h = nn.cond(paddle.mean(h) > 0.5, lambda: static.nn.fc(h, 64, activation="tanh") + h,
                    lambda: paddle.nn.functional.relu(static.nn.fc(h * 2.0, 64)))
        w = static.create_parameter([64, 64], "float32", name="cell_w")
        _, h = nn.while_loop(lambda i, h: i < 3,
                             lambda i, h: [i + 1, paddle.tanh(paddle.matmul(h, w) + h)],
                             [paddle.zeros([1], "int64"), h])
        loss = paddle.mean((static.nn.fc(h, 1) - y) ** 2)
        paddle.optimizer.Adam(0.01).minimize(loss)
    return main, startup, loss


def test_training_with_control_flow_is_the_same_with_every_pass_on_or_off():
    main, startup, loss = _training_program()
    rng = np.random.default_rng(0)
    batches = [{"x": rng.normal(s, 1, (64, 3)).astype("float32"),
                "y": rng.normal(0, 1, (64, 1)).astype("float32")} for s in (1, -1, 1, -1, 2)]
    results = {}
    for passes in (True, False):
        strategy = static.BuildStrategy()
        strategy.enable_passes = passes
        scope, exe = static.Scope(), static.Executor()
        paddle.seed(3)
        exe.run(startup, scope=scope)
        if not passes:
            state = {n: np.array(scope.find_var(n).get_tensor())
                     for n in scope.local_var_names()}
        losses = [exe.run(static.CompiledProgram(main, build_strategy=strategy), feed=feed,
                          fetch_list=[loss], scope=scope)[0] for feed in batches]
        params = {n: np.array(scope.find_var(n).get_tensor()) for n in scope.local_var_names()}
        results[passes] = losses, params
        plan = list(exe._plans.values())[-1]
        reused = [plan.ops[i].type for i in plan._inplace if plan.ops[i].type != "adam"]
        assert bool(reused) == passes            # buffer reuse runs beside the control flow
    for on, off in zip(results[True][0], results[False][0]):
        assert _same_bits(on, off)
    assert all(_same_bits(results[True][1][n], results[False][1][n]) for n in results[False][1])
    oracle = []
    for feed in batches:                         # the reference interpreter, step by step
        env = run_block(main.global_block(), {**state, **{k: v.copy() for k, v in feed.items()}})
        oracle.append(env[loss.name])
        state = {n: env[n] for n in state}
    assert all(_same_bits(a, b) for a, b in zip(results[False][0], oracle))
    assert all(_same_bits(results[False][1][n], state[n]) for n in state)
