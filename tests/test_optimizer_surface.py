"""Optimizer surface Paddle code relies on: parameter groups, L1Decay, the optimizer-state
names, Adam's refusal of weight decay with sparse gradients, ``set_gradient_clip``, and the
fluid-era optimizers that build static programs whatever the global mode."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import fluid


def _linear_pair():
    paddle.disable_static()
    paddle.seed(3)
    first, second = paddle.nn.Linear(3, 2), paddle.nn.Linear(2, 1)
    return first, second


def _step(optimizer, first, second):
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    second(first(x)).sum().backward()
    grads = {p.name: p.grad.numpy() for p in first.parameters() + second.parameters()}
    before = {p.name: p.numpy() for p in first.parameters() + second.parameters()}
    optimizer.step()
    return before, grads


def test_parameter_groups_set_learning_rate_weight_decay_and_momentum_per_group():
    first, second = _linear_pair()
    opt = paddle.optimizer.Momentum(
        learning_rate=0.1, momentum=0.9, weight_decay=0.01,
        parameters=[{"params": first.parameters()},
                    {"params": second.parameters(), "learning_rate": 0.5,
                     "weight_decay": 0.2, "momentum": 0.5}])
    before, grads = _step(opt, first, second)
    for p in first.parameters():           # first step: velocity = grad + decay * param
        np.testing.assert_allclose(p.numpy(), before[p.name] - 0.1 * (
            grads[p.name] + 0.01 * before[p.name]), rtol=1e-6)
    for p in second.parameters():
        np.testing.assert_allclose(p.numpy(), before[p.name] - 0.05 * (
            grads[p.name] + 0.2 * before[p.name]), rtol=1e-6)
    assert opt._momentum == 0.9            # the group's momentum applied to its step only
    with pytest.raises(ValueError, match="more than one parameter group"):
        paddle.optimizer.SGD(parameters=[{"params": first.parameters()},
                                         {"params": first.parameters()}])


def test_adam_groups_take_their_own_betas():
    first, second = _linear_pair()
    opt = paddle.optimizer.Adam(0.01, parameters=[
        {"params": first.parameters()},
        {"params": second.parameters(), "beta1": 0.1, "beta2": 0.99}])
    _step(opt, first, second)
    beta1_pows = {name: float(v[0]) for name, v in
                  opt._accumulators["beta1_pow_acc"].items()}
    assert beta1_pows[first.weight.name] == pytest.approx(0.9 * 0.9)
    assert beta1_pows[second.weight.name] == pytest.approx(0.1 * 0.1)
    assert f"{first.weight.name}_moment1_0" in opt.get_opti_var_name_list()


def test_l1_decay_adds_sign_then_scale_then_sum_before_the_update():
    x = paddle.static.data("x", [-1, 2])
    w_attr = paddle.ParamAttr(regularizer=paddle.regularizer.L1Decay(0.5))
    loss = paddle.mean(paddle.static.nn.fc(x, 1, weight_attr=w_attr, bias_attr=False))
    opt = paddle.optimizer.Momentum(0.1, momentum=0.0)
    opt.minimize(loss)
    ops = [op.type for op in paddle.static.default_main_program().global_block().ops]
    assert ops[-4:] == ["sign", "scale", "sum", "momentum"]
    names = opt.get_opti_var_name_list()
    assert any(n.startswith("fc_0.w_0_velocity") for n in names)
    assert str(paddle.regularizer.L1Decay(0.5)) == "L1Decay, coeff=0.500000"
    assert fluid.regularizer.L1DecayRegularizer is paddle.regularizer.L1Decay


def test_adam_refuses_weight_decay_with_a_sparse_embedding_at_step():
    paddle.disable_static()
    emb = paddle.nn.Embedding(10, 4, sparse=True)
    adam = paddle.optimizer.Adam(0.001, parameters=emb.parameters(), weight_decay=0.01)
    emb(paddle.to_tensor(np.arange(3).reshape(3, 1))).sum().backward()
    with pytest.raises(RuntimeError, match="weight_decay with sparse parameters"):
        adam.step()
    dense = paddle.nn.Embedding(10, 4)
    adam = paddle.optimizer.Adam(0.001, parameters=dense.parameters(), weight_decay=0.01)
    dense(paddle.to_tensor(np.arange(3).reshape(3, 1))).sum().backward()
    adam.step()
    with pytest.raises(TypeError):
        paddle.optimizer.Adam(paddle.to_tensor(np.array([0.01], "float32")),
                              parameters=dense.parameters())


def test_set_gradient_clip_applies_when_the_optimizer_has_no_clip():
    x = paddle.static.data("x", [2, 2])
    loss = paddle.sum(paddle.static.nn.fc(x, 1, bias_attr=False)) * 100.0
    with pytest.warns(UserWarning, match="set_gradient_clip"):
        paddle.nn.clip.set_gradient_clip(paddle.nn.ClipGradByValue(0.01))
    paddle.optimizer.SGD(1.0).minimize(loss)
    exe = paddle.static.Executor()
    exe.run(paddle.static.default_startup_program())
    before = np.array(paddle.static.global_scope().find_var("fc_0.w_0").get_tensor())
    exe.run(feed={"x": np.ones((2, 2), "float32")})
    after = np.array(paddle.static.global_scope().find_var("fc_0.w_0").get_tensor())
    np.testing.assert_allclose(before - after, 0.01, rtol=1e-6)     # every grad clipped
    with pytest.raises(TypeError):
        paddle.nn.clip.set_gradient_clip("clip")


def test_fluid_optimizers_build_static_programs_in_the_default_dygraph_mode():
    paddle.disable_static()
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3])
        loss = fluid.layers.mean(fluid.layers.fc(x, 2))
        ops, params_grads = fluid.optimizer.SGD(learning_rate=0.1).minimize(loss)
    assert [op.type for op in ops] == ["sgd", "sgd"] and len(params_grads) == 2
    assert paddle.in_dynamic_mode()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    out, = exe.run(main, feed={"x": np.ones((4, 3), "float32")}, fetch_list=[loss])
    assert np.isfinite(out)
    linear = paddle.nn.Linear(3, 1)                # with parameter_list: a dygraph optimizer
    adam = fluid.optimizer.AdamOptimizer(0.01, parameter_list=linear.parameters())
    linear(paddle.ones([2, 3])).sum().backward()
    adam.step()
    with pytest.raises(AttributeError, match="should not be None in dygraph mode"):
        paddle.optimizer.SGD(0.1)                  # the 2.x optimizer still insists


def test_adam_betas_given_as_variables_are_op_inputs_under_the_new_ir_guard():
    """Paddle's test_pir_adam_op: ``paddle.pir.core.create_parameter`` makes the betas, which
    reach the adam op as Beta1Tensor/Beta2Tensor; the beta powers start at Paddle's defaults
    (0.9, 0.999) and advance by the tensors' values."""
    with paddle.pir_utils.IrGuard():
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2, 3])
            w = paddle.static.create_parameter(
                [3], "float32", default_initializer=paddle.nn.initializer.Constant(1.0))
            loss = paddle.sum(x * w)
            beta1 = paddle.pir.core.create_parameter(
                "float32", [1], initializer=paddle.nn.initializer.Constant(0.85))
            beta2 = paddle.pir.core.create_parameter(
                "float32", [1], initializer=paddle.nn.initializer.Constant(0.95))
            assert (beta1.name, beta1.persistable) == ("parameter_0", True)
            paddle.optimizer.Adam(0.1, beta1=beta1, beta2=beta2).minimize(loss)
        adam = [op for op in main.global_block().ops if op.type == "adam"][0]
        assert adam.input("Beta1Tensor") == [beta1.name]
        exe = paddle.static.Executor()
        exe.run(startup)
        feed = np.arange(6, dtype="float32").reshape(2, 3)
        exe.run(main, feed={"x": feed})
        scope = paddle.static.global_scope()
        beta1_pow = np.array(scope.find_var(f"{w.name}_beta1_pow_acc_0").get_tensor())
    np.testing.assert_allclose(beta1_pow, [0.9 * 0.85], rtol=1e-6)
    g = feed.sum(0)
    m1, m2 = 0.15 * g, 0.05 * g * g
    lr_t = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
    expected = 1.0 - lr_t * m1 / (np.sqrt(m2) + 1e-8 * np.sqrt(1 - 0.999))
    np.testing.assert_allclose(np.array(scope.find_var(w.name).get_tensor()), expected,
                               rtol=1e-5)
    with pytest.raises(ValueError, match="initializer is None"):
        paddle.pir.core.create_parameter("float32", [1])


def _adagrad_reference(x: np.ndarray, steps: int, lr: float, initial: float) -> np.ndarray:
    """W [3, 2] from 0.5 after ``steps`` Adagrad steps on mean((x @ W)²), in NumPy."""
    w, moment = np.full((3, 2), 0.5, "float32"), np.full((3, 2), initial, "float32")
    for _ in range(steps):
        y = x @ w
        g = x.T @ (2 * y / y.size)
        moment += g * g
        w -= lr * g / (np.sqrt(moment) + np.float32(1e-6))
    return w


def test_adagrad_static_and_eager_follow_the_update_rule():
    """Adagrad (op adagrad, accumulator <p>_moment_0 from initial_accumulator_value): the
    same weights in both modes as the rule; Paddle 2.6.2 gives these digits too."""
    x = np.arange(12, dtype="float32").reshape(4, 3) / 10
    expected = _adagrad_reference(x, 3, 0.1, 0.2)
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        data = paddle.static.data("x", [4, 3])
        w = paddle.static.create_parameter(
            [3, 2], "float32", default_initializer=paddle.nn.initializer.Constant(0.5))
        paddle.optimizer.Adagrad(0.1, initial_accumulator_value=0.2).minimize(
            paddle.mean(paddle.matmul(data, w) ** 2))
    update = [op for op in main.global_block().ops if op.type == "adagrad"][0]
    assert update.input("Moment") == [f"{w.name}_moment_0"]
    exe = paddle.static.Executor()
    scope = paddle.static.Scope()
    exe.run(startup, scope=scope)
    for _ in range(3):
        exe.run(main, feed={"x": x}, scope=scope)
    np.testing.assert_allclose(np.array(scope.find_var(w.name).get_tensor()), expected,
                               rtol=1e-6)
    paddle.disable_static()
    linear = paddle.nn.Linear(3, 2, weight_attr=paddle.nn.initializer.Constant(0.5),
                              bias_attr=False)
    opt = paddle.optimizer.Adagrad(0.1, parameters=linear.parameters(),
                                   initial_accumulator_value=0.2)
    for _ in range(3):
        paddle.mean(linear(paddle.to_tensor(x)) ** 2).backward()
        opt.step()
        opt.clear_grad()
    np.testing.assert_allclose(linear.weight.numpy(), expected, rtol=1e-6)
