"""Optimizers (SGD, Momentum, Adam, AdamW), regularization and LR schedulers: the programs
minimize builds, updates against a NumPy reference (static and eager), and Paddle's errors.

The test model is ``loss = sum(w * c)`` with ``c`` fed, so the gradient of ``w`` is exactly ``c``.
"""
import math

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.nn.initializer import Assign
from pyfluid.optimizer import lr as sched
from pyfluid.regularizer import L2Decay

RNG = np.random.default_rng(0)
W0 = RNG.normal(size=(3, 4)).astype(np.float32)
GRADS = [RNG.normal(size=(3, 4)).astype(np.float32) for _ in range(4)]


def _build(optimizer, regularizer=None, lr_scale=1.0, extra_param=False):
    """The static model; returns (main, startup, loss, minimize result)."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        w = paddle.create_parameter([3, 4], "float32", attr=paddle.ParamAttr(
            name="w", initializer=Assign(W0), regularizer=regularizer, learning_rate=lr_scale))
        c = paddle.static.data("c", [3, 4], "float32")
        loss = paddle.sum(paddle.multiply(w, c))
        if extra_param:
            a = paddle.create_parameter([4], "float32", attr=paddle.ParamAttr(name="a_bias"))
            loss = loss + paddle.sum(a)
        result = optimizer.minimize(loss)
    return main, startup, loss, result


def _train_static(optimizer, steps=len(GRADS), scheduler=None, **build):
    main, startup, loss, _ = _build(optimizer, **build)
    exe = paddle.static.Executor()
    exe.run(startup)
    scope = paddle.static.global_scope()
    trace = []
    for g in GRADS[:steps]:
        exe.run(main, feed={"c": g}, fetch_list=[loss])
        trace.append(np.array(scope.find_var("w").get_tensor()))
        if scheduler is not None:
            scheduler.step()
    return trace


def _train_eager(make_optimizer, steps=len(GRADS)):
    paddle.disable_static()
    try:
        w = paddle.engine.EagerParameter(W0.copy(), name="w")
        optimizer = make_optimizer([w])
        trace = []
        for g in GRADS[:steps]:
            loss = paddle.sum(paddle.multiply(w, paddle.to_tensor(g)))
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            trace.append(w.numpy().copy())
        return trace
    finally:
        paddle.enable_static()


# -- NumPy references ----------------------------------------------------------------------------
def ref_sgd(lr, decay=0.0):
    w, out = W0.astype(np.float64), []
    for g in GRADS:
        w = w - lr * (g + decay * w)
        out.append(w)
    return out


def ref_momentum(lr, mu, nesterov, decay):
    w, v, out = W0.astype(np.float64), np.zeros_like(W0, np.float64), []
    for g in GRADS:
        g = g + decay * w
        v = mu * v + g
        w = w - (g + mu * v) * lr if nesterov else w - lr * v
        out.append(w)
    return out


def ref_adam(lr, b1=0.9, b2=0.999, eps=1e-8, coeff=0.0):
    w, m, v, out = W0.astype(np.float64), 0.0, 0.0, []
    for t, g in enumerate(GRADS, start=1):
        w = w * (1 - lr * coeff)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * m / (np.sqrt(v) + eps * math.sqrt(1 - b2 ** t))
        out.append(w)
    return out


def _close(trace, reference):
    for ours, ref in zip(trace, reference, strict=True):
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6)


CASES = {
    "sgd": (lambda p=None: paddle.optimizer.SGD(0.1, parameters=p), ref_sgd(0.1)),
    "sgd_l2": (lambda p=None: paddle.optimizer.SGD(0.1, parameters=p, weight_decay=0.05),
               ref_sgd(0.1, 0.05)),
    "momentum": (lambda p=None: paddle.optimizer.Momentum(0.1, 0.8, parameters=p),
                 ref_momentum(0.1, 0.8, False, 0.0)),
    "momentum_nesterov_decay": (
        lambda p=None: paddle.optimizer.Momentum(0.1, 0.8, parameters=p, use_nesterov=True,
                                                 weight_decay=L2Decay(0.01)),
        ref_momentum(0.1, 0.8, True, 0.01)),
    "adam": (lambda p=None: paddle.optimizer.Adam(0.01, parameters=p), ref_adam(0.01)),
    "adamw": (lambda p=None: paddle.optimizer.AdamW(0.01, parameters=p, weight_decay=0.1),
              ref_adam(0.01, coeff=0.1)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_updates_match_numpy_static_and_eager(case):
    make, reference = CASES[case]
    _close(_train_static(make()), reference)
    _close(_train_eager(make), reference)


# -- program structure ---------------------------------------------------------------------------
def test_sgd_program_structure_and_all_parameters():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        loss = paddle.mean(paddle.static.nn.fc(x, 2))
        optimize_ops, params_grads = paddle.optimizer.SGD(0.2).minimize(loss)
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]
    assert [(p.name, g.name) for p, g in params_grads] == [
        ("fc_0.w_0", "fc_0.w_0@GRAD"), ("fc_0.b_0", "fc_0.b_0@GRAD")]
    assert [op.type for op in optimize_ops] == ["sgd", "sgd"]
    assert optimize_ops == main.global_block().ops[-2:]
    for op, param in zip(optimize_ops, ["fc_0.b_0", "fc_0.w_0"]):   # sorted by name
        assert op.input("Param") == [param] and op.output("ParamOut") == [param]
        assert op.input("LearningRate") == ["learning_rate_0"]
        assert op.attr("op_role") == 2 and op.attr("op_role_var") == [param, param + "@GRAD"]
    lr_var = main.global_block().var("learning_rate_0")
    assert lr_var.persistable and lr_var.shape == (1,)
    init = startup.global_block().ops[-1]
    assert init.type == "fill_constant" and init.output("Out") == ["learning_rate_0"]
    assert init.attr("value") == pytest.approx(0.2) and init.attr("shape") == [1]


def test_adam_accumulators_and_attrs():
    main, startup, _, (ops, _) = _build(paddle.optimizer.Adam(0.01, beta1=0.8), extra_param=True)
    assert [op.input("Param") for op in ops] == [["a_bias"], ["w"]]
    op = ops[1]
    assert op.type == "adam" and op.attr("beta1") == pytest.approx(0.8)
    assert op.attr("lazy_mode") is False and op.attr("min_row_size_to_use_multithread") == 1000
    assert op.input("Moment1") == ["w_moment1_0"] and op.output("Moment1Out") == ["w_moment1_0"]
    assert op.input("Beta2Pow") == ["w_beta2_pow_acc_0"]
    block = main.global_block()
    for name, shape in [("w_moment2_0", (3, 4)), ("w_beta1_pow_acc_0", (1,))]:
        var = block.var(name)
        assert var.persistable and var.belong_to_optimizer and var.shape == shape
    inits = {op.output("Out")[0]: op for op in startup.global_block().ops}
    assert inits["w_beta1_pow_acc_0"].attr("value") == pytest.approx(0.8)
    assert inits["w_beta1_pow_acc_0"].attr("op_device") == "cpu"
    assert inits["w_moment1_0"].attr("value") == 0.0
    assert "learning_rate_0" in inits


def test_momentum_fuses_l2_decay_and_sgd_appends_regularization_ops():
    _, _, _, (ops, _) = _build(paddle.optimizer.Momentum(0.1, weight_decay=0.01))
    main = ops[0].block.program
    assert "scale" not in [op.type for op in main.global_block().ops]
    assert ops[0].attr("regularization_method") == "l2_decay"
    assert ops[0].attr("regularization_coeff") == pytest.approx(0.01)
    paddle.framework.context.reset_default_programs()
    _, _, _, (ops, _) = _build(paddle.optimizer.SGD(0.1, weight_decay=0.01))
    tail = ops[0].block.ops[-3:]
    assert [op.type for op in tail] == ["scale", "sum", "sgd"]
    assert tail[1].output("Out") == ["w@GRAD"] and tail[1].attr("op_role") == 2


def test_parameter_regularizer_overrides_optimizer_weight_decay():
    trace = _train_static(paddle.optimizer.SGD(0.1, weight_decay=0.5), regularizer=L2Decay(0.02))
    _close(trace, ref_sgd(0.1, 0.02))


def test_parameter_learning_rate_scale():
    _close(_train_static(paddle.optimizer.SGD(0.1), lr_scale=0.5), ref_sgd(0.05))
    with paddle.framework.unique_name.guard():
        _, _, _, (ops, _) = _build(paddle.optimizer.SGD(0.1), lr_scale=0.5)
    scale, sgd = ops
    assert scale.type == "scale" and scale.input("X") == ["learning_rate_0"]
    assert scale.attr("scale") == pytest.approx(0.5) and scale.attr("op_role") == 0x12
    assert sgd.input("LearningRate") == scale.output("Out")


def test_adamw_apply_decay_param_fun():
    opt = paddle.optimizer.AdamW(0.01, weight_decay=0.1, apply_decay_param_fun=lambda n: n != "w")
    _close(_train_static(opt), ref_adam(0.01))


# -- learning-rate schedulers --------------------------------------------------------------------
def test_scheduler_values():
    step = sched.StepDecay(0.5, step_size=2, gamma=0.1)
    piece = sched.PiecewiseDecay([2, 4], [1.0, 0.5, 0.1])
    cosine = sched.CosineAnnealingDecay(1.0, T_max=4, eta_min=0.1)
    expo = sched.ExponentialDecay(2.0, gamma=0.5)
    seen = {s: [] for s in (step, piece, cosine, expo)}
    for _ in range(6):
        for s, values in seen.items():
            values.append(s())
            s.step()
    np.testing.assert_allclose(seen[step], [0.5, 0.5, 0.05, 0.05, 0.005, 0.005])
    assert seen[piece] == [1.0, 1.0, 0.5, 0.5, 0.1, 0.1]
    closed = [0.1 + 0.9 * (1 + math.cos(math.pi * e / 4)) / 2 for e in range(5)]
    np.testing.assert_allclose(seen[cosine][:5], closed)
    np.testing.assert_allclose(seen[expo], [2.0 * 0.5 ** e for e in range(6)])


def test_scheduler_refreshes_learning_rate_each_run():
    scheduler = sched.StepDecay(0.5, step_size=2, gamma=0.1)
    trace = _train_static(paddle.optimizer.SGD(scheduler), scheduler=scheduler)
    w, expected = W0.astype(np.float64), []
    for g, lr in zip(GRADS, [0.5, 0.5, 0.05, 0.05]):
        w = w - lr * g
        expected.append(w)
    _close(trace, expected)
    lr_value = np.array(paddle.static.global_scope().find_var("learning_rate_0").get_tensor())
    np.testing.assert_allclose(lr_value, [0.05])


def test_scheduler_is_recorded_on_the_program():
    scheduler = sched.CosineAnnealingDecay(0.1, T_max=3)
    main, _, _, _ = _build(paddle.optimizer.Adam(scheduler))
    assert main.lr_scheduler is scheduler and scheduler._var_name == "learning_rate_0"
    assert main.clone().lr_scheduler is scheduler


def test_eager_optimizer_with_scheduler_and_get_lr():
    scheduler = sched.PiecewiseDecay([1], [0.1, 0.01])

    def make(params):
        opt = paddle.optimizer.SGD(scheduler, parameters=params)
        assert opt.get_lr() == pytest.approx(0.1)
        return opt

    trace = _train_eager(make, steps=1)
    scheduler.step()
    _close(trace, ref_sgd(0.1)[:1])
    assert scheduler() == pytest.approx(0.01)


def test_eager_state_dict_round_trip():
    paddle.disable_static()
    try:
        w = paddle.engine.EagerParameter(W0.copy(), name="w")
        first = paddle.optimizer.Adam(0.01, parameters=[w])
        for g in GRADS[:2]:
            w.grad = paddle.to_tensor(g)
            first.step()
        state = first.state_dict()
        assert sorted(state) == ["w_beta1_pow_acc_0", "w_beta2_pow_acc_0", "w_moment1_0",
                                 "w_moment2_0"]
        second = paddle.optimizer.Adam(0.01, parameters=[w])
        second.set_state_dict(state)
        for g in GRADS[2:]:
            w.grad = paddle.to_tensor(g)
            second.step()
        _close([w.numpy()], ref_adam(0.01)[-1:])
    finally:
        paddle.enable_static()


# -- errors --------------------------------------------------------------------------------------
def test_constructor_errors():
    with pytest.raises(ValueError, match="learning_rate is not set"):
        paddle.optimizer.SGD(learning_rate=None)
    with pytest.raises(TypeError, match="learning rate should be float or LRScheduler"):
        paddle.optimizer.SGD(learning_rate="0.1")
    with pytest.raises(ValueError, match="momentum is not set"):
        paddle.optimizer.Momentum(0.1, momentum=None)
    with pytest.raises(ValueError, match="Invaild value of beta1"):
        paddle.optimizer.Adam(0.1, beta1=1.0)
    with pytest.raises(ValueError, match="Invaild value of epsilon"):
        paddle.optimizer.Adam(0.1, epsilon=-1.0)
    with pytest.raises(TypeError, match="`parameters` argument given to the optimizer"):
        paddle.optimizer.SGD(0.1, parameters=paddle.static.data("x", [2], "float32"))
    with pytest.raises(TypeError, match="The type of 'step_size' must be 'int'"):
        sched.StepDecay(0.1, step_size=1.5)
    paddle.disable_static()
    try:
        with pytest.raises(AttributeError, match="should not be None in dygraph mode"):
            paddle.optimizer.Adam(0.1)
    finally:
        paddle.enable_static()


@pytest.mark.parametrize("kwargs, message", [
    ({"parameters": "test"}, "parameter_list"),
    ({"no_grad_set": "test"}, "no_grad_set should be set or list or tuple"),
    ({"no_grad_set": ["w", 3]}, "no_grad_set's member must be"),
])
def test_minimize_argument_errors_append_nothing(kwargs, message):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        loss = paddle.mean(paddle.static.nn.fc(x, 2))
        n_ops = len(main.global_block().ops)
        with pytest.raises(TypeError, match=message):
            paddle.optimizer.SGD(0.1).minimize(loss, **kwargs)
        with pytest.raises(TypeError, match="The loss should be an Tensor"):
            paddle.optimizer.SGD(0.1).minimize(loss.name)
    assert len(main.global_block().ops) == n_ops
