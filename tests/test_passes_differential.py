"""Randomized differential test of the graph passes and buffer reuse: random small training
programs (MLPs with views of their weights, elementwise add/sub/mul with and without relu,
several optimizers, random fetch lists including intermediates, and feeds) give bit-identical
fetches and scope state with the passes on (with and without fusion) and off."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.executor.interpreter import run_block
from pyfluid.framework.op_append import append_simple_op

OPTIMIZERS = [
    lambda: paddle.optimizer.SGD(learning_rate=0.1),
    lambda: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9),
    lambda: paddle.optimizer.Adam(learning_rate=0.01),
    lambda: paddle.optimizer.AdamW(learning_rate=0.01, weight_decay=0.02),
]
ACTIVATIONS = [None, "relu", "tanh", "sigmoid"]


def random_program(rng):
    """A random MLP, its loss, an optimizer, and the variables worth fetching."""
    main, startup = static.Program(), static.Program()
    width = int(rng.integers(2, 6))
    with static.program_guard(main, startup):
        x = static.data("x", [None, width], "float32")
        label = static.data("label", [None, 1], "int64")
        h, candidates = x, []
        for _ in range(int(rng.integers(1, 4))):
            h = static.nn.fc(h, int(rng.integers(2, 7)),
                             activation=ACTIVATIONS[int(rng.integers(len(ACTIVATIONS)))])
            candidates.append(h)
            if rng.random() < 0.3:                       # an elementwise_add + relu chain
                h = paddle.nn.functional.relu(h + h)
                candidates.append(h)
            if rng.random() < 0.5:                       # elementwise ops on temporaries
                size = int(rng.integers(2, 7))
                first = static.nn.fc(h, size) if rng.random() < 0.7 else static.nn.fc(h, 1)
                combine = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b][
                    int(rng.integers(3))]
                h = combine(first, static.nn.fc(h, size))    # [N, 1] op [N, size]: no reuse
                candidates.append(h)
                if rng.random() < 0.5:
                    h = paddle.nn.functional.relu(h)
                    candidates.append(h)
        logits = static.nn.fc(h, 3)
        loss = paddle.nn.functional.cross_entropy(logits, label)
        block = main.global_block()
        weights = [p for p in block.all_parameters() if p.name.endswith(".w_0")]
        if rng.random() < 0.5:                           # a view of a weight, read late
            w = weights[int(rng.integers(len(weights)))]
            wt = append_simple_op("transpose2", {"X": w}, {"axis": [1, 0]})
            wt = wt[0] if isinstance(wt, (list, tuple)) else wt
            loss = loss + paddle.mean(wt) * 0.0
            candidates.append(wt)
        OPTIMIZERS[int(rng.integers(len(OPTIMIZERS)))]().minimize(loss)
    temporaries = [block.var(n) for op in block.ops for n in op.output_arg_names
                   if op.type in ("mul", "matmul_v2", "elementwise_add", "elementwise_sub",
                                  "elementwise_mul", "scale", "relu")]
    fetchable = [loss, logits, x, *candidates, *weights, *temporaries]
    fetchable += [block.var(p.name + "@GRAD") for p in weights if block.has_var(p.name + "@GRAD")]
    picks = rng.integers(0, len(fetchable), int(rng.integers(0, 4)))   # repeats allowed
    return main, startup, width, [fetchable[i] for i in picks]


def run_steps(main, startup, feeds, fetch, passes, fuse=True):
    scope = static.Scope()
    exe = static.Executor()
    paddle.seed(7)
    exe.run(startup, scope=scope)
    strategy = static.BuildStrategy()
    strategy.enable_passes = passes
    strategy.fuse_elementwise_act = strategy.fuse_fc = fuse
    compiled = static.CompiledProgram(main, build_strategy=strategy)
    results = [exe.run(compiled, feed=feed, fetch_list=fetch, scope=scope) for feed in feeds]
    state = {n: np.array(scope.find_var(n).get_tensor()) for n in scope.local_var_names()}
    return results, state


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("seed", range(12))
def test_passes_do_not_change_any_result(seed, fuse):
    rng = np.random.default_rng(seed)
    main, startup, width, fetch = random_program(rng)
    rows = int(rng.integers(1, 5))
    feeds = [{"x": rng.standard_normal((rows, width)).astype("float32"),
              "label": rng.integers(0, 3, (rows, 1))} for _ in range(3)]
    on, state_on = run_steps(main, startup, feeds, fetch, passes=True, fuse=fuse)
    off, state_off = run_steps(main, startup, feeds, fetch, passes=False)
    for step_on, step_off in zip(on, off):
        assert all(same_bits(a, b) for a, b in zip(step_on, step_off))
    assert sorted(state_on) == sorted(state_off)
    assert all(same_bits(state_on[n], state_off[n]) for n in state_on)


def interpret_steps(main, startup, feeds, fetch):
    """The same steps through the reference interpreter (executor/interpreter.py): every op's
    pure kernel in block order, no passes, no folding, nothing in place."""
    scope = static.Scope()
    paddle.seed(7)
    static.Executor().run(startup, scope=scope)
    state = {n: np.array(scope.find_var(n).get_tensor()) for n in scope.local_var_names()}
    results = []
    for feed in feeds:
        env = run_block(main.global_block(), {**state, **feed})
        results.append([env[v.name] for v in fetch])
        state = {n: env[n] for n in state}
    return results, state


@pytest.mark.parametrize("passes", [True, False])
@pytest.mark.parametrize("seed", range(12))
def test_the_plan_agrees_with_the_reference_interpreter(seed, passes):
    rng = np.random.default_rng(100 + seed)
    main, startup, width, fetch = random_program(rng)
    rows = int(rng.integers(1, 5))
    feeds = [{"x": rng.standard_normal((rows, width)).astype("float32"),
              "label": rng.integers(0, 3, (rows, 1))} for _ in range(3)]
    compiled, state = run_steps(main, startup, feeds, fetch, passes=passes)
    oracle, oracle_state = interpret_steps(main, startup, feeds, fetch)
    for step_compiled, step_oracle in zip(compiled, oracle):
        assert all(same_bits(a, b) for a, b in zip(step_compiled, step_oracle))
    assert sorted(state) == sorted(oracle_state)
    assert all(same_bits(state[n], oracle_state[n]) for n in state)
