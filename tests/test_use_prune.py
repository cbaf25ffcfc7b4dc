"""``Executor.run(use_prune=True)`` runs only what the fetch list needs, as Paddle does: the
optimizer ops it names (naming them forces pruning), the ops behind fetched variables, none
of the producers of fed variables; what is pruned never reaches the scope."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import fluid
from pyfluid.executor import Executor, Scope, scope_guard

X = np.random.default_rng(0).random((10, 2)).astype("float32")
LABEL = np.zeros((10, 1), "int64")


def _net():
    x = paddle.static.data("x", [-1, 2])
    label = paddle.static.data("label", [-1, 1], "int64")
    w = paddle.ParamAttr(name="w", initializer=paddle.nn.initializer.Constant(1.0))
    y = paddle.static.nn.fc(x, 2, activation="softmax", weight_attr=w)
    losses = []
    for _ in range(2):
        loss = paddle.mean(paddle.nn.functional.cross_entropy(y, label, reduction="none",
                                                              use_softmax=False))
        loss.persistable = True
        losses.append(loss)
    return x, y, losses


def _weight(scope):
    return np.array(scope.find_var("w").get_tensor())


def _train(program, startup, fetch_list, use_prune=False):
    scope = Scope()
    with scope_guard(scope):
        exe = Executor()
        exe.run(startup)
        exe.run(program, feed={"x": X, "label": LABEL}, fetch_list=fetch_list,
                use_prune=use_prune)
    return scope


def test_fetching_one_optimizers_ops_runs_that_optimizer_only():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        _, _, (loss1, loss2) = _net()
        sgd = paddle.optimizer.SGD(learning_rate=0.5)
        train1, _ = sgd.minimize(loss1)
        only_first = main.clone()
        train2 = sgd.minimize(loss2)            # the (ops, params_grads) tuple
    both = _weight(_train(main, startup, [loss1]))
    expected = _weight(_train(only_first, startup, [loss1]))
    assert not np.array_equal(both, expected)
    np.testing.assert_array_equal(_weight(_train(main, startup, [loss1, train1],
                                                 use_prune=True)), expected)
    np.testing.assert_array_equal(_weight(_train(main, startup, [loss1, train1])),
                                  expected)      # naming optimizer ops implies pruning
    scope = _train(main, startup, [loss2.name, train2])
    assert scope.find_var(loss1.name) is None and scope.find_var(loss2.name) is not None
    with pytest.raises(TypeError, match="not an optimize_op"):
        _train(main, startup, [loss1, main.global_block().ops[0]])


def test_unfetched_results_are_not_computed_nor_created_in_the_scope():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        _, _, (loss1, loss2) = _net()
    pruned = _train(main, startup, [loss1], use_prune=True)
    assert pruned.find_var(loss1.name) is not None and pruned.find_var(loss2.name) is None
    unpruned = _train(main, startup, [loss1])
    assert unpruned.find_var(loss2.name) is not None


def test_plain_fetches_with_pruning_keep_every_optimizer_op():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        _, _, (loss1, loss2) = _net()
        fluid.optimizer.SGD(learning_rate=0.5).minimize(loss1)
    scope = _train(main, startup, [loss1], use_prune=True)
    assert not np.array_equal(_weight(scope), np.ones((2, 2)))
    assert scope.find_var(loss2.name) is None


def test_feeding_an_intermediate_variable_prunes_its_producers():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, y, (loss1, _) = _net()
    scope = Scope()
    probabilities = np.full((10, 2), 0.5, "float32")
    with scope_guard(scope):
        exe = Executor()
        exe.run(startup)
        fed_y, loss = exe.run(main, feed={y.name: probabilities, "label": LABEL},
                              fetch_list=[y, loss1], use_prune=True)
    np.testing.assert_array_equal(fed_y, probabilities)
    assert float(loss) == pytest.approx(-np.log(0.5))
    assert scope.find_var(x.name) is None                      # x was never needed
    with pytest.raises(Exception, match="not initialized"):    # without pruning fc needs x
        with scope_guard(scope):
            Executor().run(main, feed={y.name: probabilities, "label": LABEL},
                           fetch_list=[loss1])


def test_pruned_programs_are_cached_per_program_feed_and_fetch(monkeypatch):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        _, _, (loss1, loss2) = _net()
    calls = []
    original = Executor._prune_program

    def counting(self, program, feed, fetch_list, optimize_ops):
        calls.append(tuple(getattr(v, "name", v) for v in fetch_list))
        return original(program, feed, fetch_list, optimize_ops)

    monkeypatch.setattr(Executor, "_prune_program", counting)
    exe = Executor()
    exe.run(startup)
    for _ in range(3):
        exe.run(main, feed={"x": X, "label": LABEL}, fetch_list=[loss1], use_prune=True)
    exe.run(main, feed={"x": X, "label": LABEL}, fetch_list=[loss2], use_prune=True)
    assert calls == [(loss1.name,), (loss2.name,)]
