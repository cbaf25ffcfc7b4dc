"""The compiled plan against the reference interpreter (executor/interpreter.py) on random
dataflow programs: elementwise chains (buffer reuse), views read late (reshape, transpose,
slice, split), folded constants, py_func results that are their input, a persistable
written from a view, and the gradient w.r.t. the input. Every fetch, over two runs, must
agree bit for bit with the interpreter's, with the passes on and off."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.executor.interpreter import run_block
from pyfluid.framework.op_append import append_simple_op

F = paddle.nn.functional


def _identity(a):
    return a                 # returns its input as is: the plan must treat it as "may alias"


def _first(outputs):
    return outputs[0] if isinstance(outputs, (list, tuple)) else outputs


def _width4(rng, a):
    """An op or short chain mapping a [N, 4] value to another [N, 4] value."""
    block = a.block
    pick = int(rng.integers(14))
    if pick == 0:
        return F.relu(a)
    if pick == 1:
        return paddle.tanh(a)
    if pick == 2:
        return paddle.scale(a, float(rng.uniform(-2, 2)), float(rng.uniform(-1, 1)))
    if pick == 3:
        return paddle.reshape(paddle.reshape(a, [-1, 2, 2]), [-1, 4])
    if pick == 4:
        return paddle.transpose(paddle.transpose(a, [1, 0]), [1, 0])
    if pick == 5:
        left, right = paddle.split(a, 2, axis=1)
        return paddle.concat([right, left], axis=1)
    if pick == 6:
        return a + paddle.sum(a, axis=1, keepdim=True)
    if pick == 7:
        return paddle.matmul(a, paddle.full([4, 4], float(rng.uniform(0.1, 0.5))))
    if pick == 8:
        out = block.create_var(name=f"same_{len(block.ops)}", dtype="float32", shape=[-1, 4])
        static.py_func(func=_identity, x=a, out=out)
        return out
    if pick == 9:
        return paddle.assign(a)
    if pick == 10:
        return paddle.squeeze(paddle.unsqueeze(a, [1]), [1])
    if pick == 11:
        return F.softmax(a)
    if pick == 12:
        return paddle.concat([paddle.slice(a, [1], [0], [2]), paddle.slice(a, [1], [2], [4])], 1)
    return paddle.square(a)


def random_dataflow_program(rng):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [-1, 4], "float32")
        x.stop_gradient = False
        pool = [x]
        for _ in range(int(rng.integers(3, 12))):
            a = pool[int(rng.integers(len(pool)))]
            if rng.random() < 0.35 and len(pool) > 1:
                b = pool[int(rng.integers(len(pool)))]
                combine = [lambda p, q: p + q, lambda p, q: p - q, lambda p, q: p * q][
                    int(rng.integers(3))]
                out = combine(a, b)
                if rng.random() < 0.5:
                    out = F.relu(out)
            else:
                out = _width4(rng, a)
            pool.append(out)
        if rng.random() < 0.5:                   # a persistable written from a view
            kept = main.global_block().create_var(name="kept", dtype="float32",
                                                  shape=[-1, 4], persistable=True)
            view = pool[int(rng.integers(1, len(pool)))]
            append_simple_op("reshape2", {"X": view}, {"shape": [-1, 4]},
                             outputs={"Out": kept})
        loss = paddle.mean(pool[-1] * pool[-1])
        (dx,) = static.gradients([loss], [x])
    picks = rng.integers(0, len(pool), int(rng.integers(1, 5)))
    fetch = [pool[i] for i in picks] + [loss] + ([dx] if dx is not None else [])
    return main, fetch


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("passes", [True, False])
@pytest.mark.parametrize("seed", range(20))
def test_random_programs_agree_with_the_interpreter(seed, passes):
    rng = np.random.default_rng(seed)
    main, fetch = random_dataflow_program(rng)
    feeds = [{"x": rng.standard_normal((int(rng.integers(1, 4)), 4)).astype("float32")}
             for _ in range(2)]
    strategy = static.BuildStrategy()
    strategy.enable_passes = passes
    exe, scope = static.Executor(), static.Scope()
    for feed in feeds:
        kept = {k: v.copy() for k, v in feed.items()}
        got = exe.run(static.CompiledProgram(main, build_strategy=strategy), feed=feed,
                      fetch_list=fetch, scope=scope)
        env = run_block(main.global_block(), dict(kept))
        want = [env[v.name] for v in fetch]
        assert all(same_bits(g, w) for g, w in zip(got, want)), main
        assert all(same_bits(feed[k], kept[k]) for k in feed)       # feeds left alone
        if "kept" in env:
            assert same_bits(scope.find_var("kept").get_tensor(), env["kept"])
