"""A plan you can read: locals named after the variables, one commented line per op, feeds
and scope values marked, PYFLUID_SHOW_PLAN=1, and linecache entries that go with the plan."""
import gc
import linecache

import numpy as np

import pyfluid as paddle
from pyfluid import static
from pyfluid.executor.plan import Plan, _identifier


def plan_of(main, feed, fetch):
    exe = static.Executor()
    values = exe.run(main, feed=feed, fetch_list=fetch)
    return values, list(exe._plans.values())[-1]


def test_locals_are_named_after_variables_and_each_op_line_says_which_op():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [-1, 3], "float32")
        y = paddle.nn.functional.relu(static.nn.fc(x, 2))
    static.Executor().run(startup)
    _, plan = plan_of(main, {"x": np.ones((2, 3), "float32")}, [y])
    lines = plan.source.splitlines()
    assert lines[0] == "def run(H, W, F):"
    assert "    x = F[0]  # feed" in lines
    assert "    fc_0_w_0 = H[0]._array  # from the scope" in lines
    op_lines = [line for line in lines if "  # #" in line]
    assert [line.rsplit("# ", 1)[1] for line in op_lines] == [
        f"#{i} {op.type}" + (" (in place)" if i in plan._inplace else "")
        for i, op in enumerate(plan.ops)]
    assert op_lines[0].startswith("    relu_0_tmp_0 = k0(x, fc_0_w_0, fc_0_b_0")   # fused
    assert plan.source.endswith(f"    return ({plan._locals[y.name]},)\n")


def test_identifiers_are_sanitized_unique_and_clear_of_the_plans_globals():
    assert _identifier("fc_0.tmp_0") == "fc_0_tmp_0"
    assert _identifier("x@GRAD") == "x_GRAD"
    assert _identifier("0abc") == "v_0abc"
    assert _identifier("lambda") == "lambda_"
    assert [_identifier(n) for n in ("k0", "c3_1", "chk2", "folded7", "F", "run", "_own")] == [
        "k0_", "c3_1_", "chk2_", "folded7_", "F_", "run_", "_own_"]
    assert _identifier("k_0") == "k_0" and _identifier("é") == "__"   # "_" is taken
    main = static.Program()
    with static.program_guard(main, static.Program()):
        block = main.global_block()
        names = ["a.b", "a_b", "a@b", "k0", "F", "lambda"]
        for name in names:
            block.create_var(name=name, shape=[2], dtype="float32")
        prev = block.create_var(name="x0", shape=[2], dtype="float32")
        for name in names:
            block.append_op("scale", {"X": prev}, {"Out": block.var(name)}, {"scale": 2.0})
            prev = block.var(name)
    (value,), plan = plan_of(main, {"x0": np.ones(2, "float32")}, [prev])
    assert [plan._locals[n] for n in names] == ["a_b", "a_b_1", "a_b_2", "k0_", "F_", "lambda_"]
    np.testing.assert_array_equal(value, np.full(2, 64.0, "float32"))


def test_show_plan_prints_each_plan_when_built(monkeypatch, capsys):
    monkeypatch.setenv("PYFLUID_SHOW_PLAN", "1")
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = paddle.scale(x, 3.0)
    _, plan = plan_of(main, {"x": np.ones(2, "float32")}, [y])
    out = capsys.readouterr().out
    assert f"--- {plan.filename}: block 0 of" in out and plan.source in out


def test_linecache_keeps_only_the_entries_of_live_plans():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = paddle.scale(x, 3.0)

    def entries():
        return {k for k in linecache.cache if k.startswith("<pyfluid plan ")}
    gc.collect()
    before = entries()
    kept = []
    for i in range(200):
        plan = Plan(main, ("x",), (y.name,))
        if i % 50 == 0:
            kept.append(plan)
    del plan
    gc.collect()
    assert entries() - before == {p.filename for p in kept}
    assert linecache.getline(kept[0].filename, 2).strip() == "x = F[0]  # feed"
    kept.clear()
    gc.collect()
    assert entries() <= before
