"""``Program.clone(for_test=True)`` taken before and after ``minimize`` (Paddle's
test_program_prune_backward): same blocks, op types and vars, the same loss when run, and the
test program shares the trained parameters through the scope."""
import numpy as np

import pyfluid as paddle

ROLE_BACKWARD, ROLE_OPTIMIZE = 0x0001, 0x0002


def _net():
    x = paddle.static.data("x", [None, 6], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    hidden = paddle.static.nn.fc(x, 8, activation="relu")
    hidden = paddle.static.nn.batch_norm(hidden)
    logits = paddle.static.nn.fc(hidden, 3)
    return paddle.mean(paddle.nn.functional.cross_entropy(logits, y))


def _feed():
    rng = np.random.default_rng(3)
    return {"x": rng.normal(size=(5, 6)).astype(np.float32),
            "y": rng.integers(0, 3, size=(5, 1)).astype(np.int64)}


def _summary(program):
    return [([op.type for op in block.ops], sorted(block.vars)) for block in program.blocks]


def test_clone_for_test_before_and_after_minimize_agree():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        loss = _net()
        test_before = main.clone(for_test=True)
        paddle.optimizer.Adam(0.01).minimize(loss)
        test_after = main.clone(for_test=True)
    assert _summary(test_before) == _summary(test_after)
    assert len(test_after.global_block().ops) < len(main.global_block().ops)
    for op in test_after.global_block().ops:
        assert not op.attr("op_role") & (ROLE_BACKWARD | ROLE_OPTIMIZE)
    bn = [op for op in test_after.global_block().ops if op.type == "batch_norm"][0]
    assert bn.attr("is_test") is True and "ReserveSpace" not in bn.outputs
    assert [p.name for p in test_after.all_parameters()] == [
        p.name for p in main.all_parameters()]

    exe = paddle.static.Executor()
    exe.run(startup)
    feed, scope = _feed(), paddle.static.global_scope()
    weights = np.array(scope.find_var("fc_0.w_0").get_tensor())
    before, = exe.run(test_before, feed=feed, fetch_list=[loss.name])
    after, = exe.run(test_after, feed=feed, fetch_list=[loss.name])
    np.testing.assert_array_equal(before, after)
    np.testing.assert_array_equal(scope.find_var("fc_0.w_0").get_tensor(), weights)

    exe.run(main, feed=feed, fetch_list=[loss])            # one training step
    trained, = exe.run(test_after, feed=feed, fetch_list=[loss.name])
    assert not np.array_equal(np.array(scope.find_var("fc_0.w_0").get_tensor()), weights)
    assert float(trained) != float(after)


def test_clone_keeps_parameters_and_training_ops():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        loss = paddle.mean(paddle.static.nn.fc(paddle.static.nn.fc(x, 5), 2))
        paddle.optimizer.SGD(0.1).minimize(loss)
    copy = main.clone()
    assert [op.type for op in copy.global_block().ops] == [
        op.type for op in main.global_block().ops]
    assert [p.name for p in copy.all_parameters()] == [
        "fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"]
    assert all(p.trainable for p in main.clone(for_test=True).all_parameters())
