"""append_backward / gradients: Paddle's scenarios CG-1..CG-6 and BW-1..BW-8 (spec §9.2-9.3),
accumulation, pruning, zero fill, and failure atomicity."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.framework.backward import (append_backward, gradients, gradients_with_optimizer,
                                        strip_grad_suffix)


def _param(name, value):
    block = paddle.static.default_main_program().global_block()
    value = np.asarray(value, dtype="float32")
    p = block.create_parameter(name=name, shape=list(value.shape), dtype="float32")
    paddle.static.global_scope().var(name).get_tensor().set(value)
    return p


def _run(fetch, feed=None):
    exe = paddle.static.Executor(paddle.CPUPlace())
    return exe.run(paddle.static.default_main_program(), feed=feed or {}, fetch_list=fetch)


def test_cg1_gradients_of_intermediate_and_parameter():
    x = _param("x", np.random.rand(5, 10))
    y = _param("y", np.random.rand(10, 8))
    mul_out = paddle.matmul(x, y)
    mean_out = paddle.mean(mul_out)
    g_mul, = gradients(mean_out, mul_out)
    g_x, = gradients(mean_out, x)
    got_mul, got_x = _run([g_mul, g_x])
    np.testing.assert_allclose(got_mul, np.full((5, 8), 1 / 40), rtol=1e-6)
    np.testing.assert_allclose(got_x, np.full((5, 8), 1 / 40) @ np.asarray(
        paddle.static.global_scope().find_var("y").get_tensor()).T, rtol=1e-5)


def test_cg2_double_grad():
    x = _param("x", [3.0])
    g1, = gradients(x * x, x)
    z = (x - g1) * (x - g1)
    g2, = gradients(z, x)
    got1, got2 = _run([g1, g2])
    assert got1.tolist() == [6.0] and got2.tolist() == [6.0]


def test_cg3_double_grad_through_products():
    x = _param("x", [1.0])
    y = x * x
    dx1, = gradients(y, x)
    dx2, = gradients(dx1 * dx1 + y * y, x)
    got1, got2 = _run([dx1, dx2])
    assert got1.tolist() == [2.0] and got2.tolist() == [12.0]


def test_cg4_split_prunes_unused_pieces():
    x = paddle.static.data("x", [3], "float32")
    x.stop_gradient = False
    block = x.block
    parts = [block.create_var(name=f"part{i}", shape=[1], dtype="float32") for i in range(3)]
    block.append_op(type="split", inputs={"X": x}, outputs={"Out": parts},
                    attrs={"num": 3, "axis": 0})
    y = parts[0] * 2.0
    gx, = gradients(y, x)
    got, = _run([gx], {"x": np.array([1, 2, 3], "float32")})
    assert got.tolist() == [2.0, 0.0, 0.0]


def _jvp_setup():
    x = paddle.static.data("x", [2, 2], "float32")
    x.stop_gradient = False
    grad_y = paddle.static.data("grad_y", [2, 2], "float32")
    grad_y.stop_gradient = False
    v = paddle.static.data("v", [2, 2], "float32")
    feed = {"x": np.ones((2, 2), "float32"), "grad_y": np.zeros((2, 2), "float32"),
            "v": np.ones((2, 2), "float32")}
    return x, grad_y, v, feed


def test_cg5_jvp_by_double_backward():
    x, grad_y, v, feed = _jvp_setup()
    y = x * x
    grad_x, = gradients(y, x, grad_y)
    jvp, = gradients(grad_x, grad_y, v)
    got_gx, got_jvp = _run([grad_x, jvp], feed)
    assert np.all(got_gx == 0) and np.all(got_jvp == 2)


def test_cg6_multi_target_jvp():
    x, grad_y, v, feed = _jvp_setup()
    y = x * x
    y2 = y + x
    grad_x, = gradients(y, x, grad_y)
    grad_x2, = gradients(y2, x, grad_y)
    jvp, = gradients([grad_x, grad_x2], grad_y, [v, v])
    got, = _run([jvp], feed)
    assert np.all(got == 5)


def test_shared_input_gradients_are_summed_by_one_sum_op():
    w = _param("w", [[0.5, -1.0], [2.0, 0.25]])
    h = paddle.tanh(w)
    loss = paddle.mean(h * h + h)
    pairs = append_backward(loss)
    program = paddle.static.default_main_program()
    sums = [op for op in program.global_block().ops if op.type == "sum"]
    assert len(sums) == 1 and len(sums[0].input("X")) == 3
    assert [(p.name, g.name) for p, g in pairs] == [("w", "w@GRAD")]
    got, = _run([pairs[0][1]])
    t = np.tanh(np.array([[0.5, -1.0], [2.0, 0.25]]))
    np.testing.assert_allclose(got, (2 * t + 1) * (1 - t * t) / 4, rtol=1e-5)


def test_seed_and_roles_follow_paddle():
    w = _param("w", [1.0, 2.0])
    loss = paddle.mean(w * w)
    append_backward(loss)
    ops = paddle.static.default_main_program().global_block().ops
    assert loss.op.attr("op_role") == 256
    seed = next(op for op in ops if op.output_arg_names == [loss.name + "@GRAD"])
    assert seed.type == "fill_constant" and seed.attr("op_role") == 257
    assert seed.attr("shape") == []
    writer = next(op for op in ops if "w@GRAD" in op.output_arg_names)
    assert writer.attr("op_role_var")[:2] == ["w", "w@GRAD"]
    assert all(op.attr("op_role") == 1 for op in ops if op.type.endswith("_grad"))


def test_output_not_reaching_loss_gets_zero_gradient():
    x = paddle.static.data("x", [3], "float32")
    x.stop_gradient = False
    block = x.block
    a = block.create_var(name="a", shape=[2], dtype="float32")
    b = block.create_var(name="b", shape=[1], dtype="float32")
    block.append_op(type="split", inputs={"X": x}, outputs={"Out": [a, b]},
                    attrs={"sections": [2, 1], "axis": 0})
    gx, = gradients(paddle.sum(a * 3.0), x)
    fills = [op for op in block.ops if op.type == "fill_any_like"]
    assert any(op.output("Out") == ["b@GRAD"] for op in fills)
    got, = _run([gx], {"x": np.arange(3, dtype="float32")})
    assert got.tolist() == [3.0, 3.0, 0.0]


def test_no_grad_set_and_stop_gradient_cut_the_path():
    w = _param("w", [1.0, 2.0])
    u = _param("u", [3.0, 4.0])
    loss = paddle.mean(w * u)
    pairs = append_backward(loss, no_grad_set={"u"})
    assert [p.name for p, _ in pairs] == ["w"]
    assert "u@GRAD" not in paddle.static.default_main_program().global_block().vars


def test_gradients_returns_none_for_unrelated_input():
    x = _param("x", [1.0])
    unrelated = _param("z", [1.0])
    gx, gz = gradients(x * x, [x, unrelated])
    assert gx is not None and gz is None


def test_failing_call_appends_nothing():
    w = _param("w", [1.0, 2.0])
    loss = paddle.mean(w * w)
    program = paddle.static.default_main_program()
    before = program.desc.serialize_to_string()

    def failing_callback(block, context):
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        append_backward(loss, callbacks=[failing_callback])
    assert program.desc.serialize_to_string() == before
    assert loss.op.attr("op_role") == 0


def test_loss_without_parameters_still_gets_its_grad_ops():
    """Paddle 2.6 appends the grad ops and returns [] when no parameter is on the path
    (Paddle's test_array_read_write_op and test_case fetch `x@GRAD` of such a loss)."""
    x = paddle.static.data("x", [2], "float32")
    x.stop_gradient = False
    loss = paddle.mean(x * x)
    assert append_backward(loss) == []
    exe = paddle.static.Executor()
    (gx,) = exe.run(feed={"x": np.array([1.0, 3.0], "float32")}, fetch_list=[x.grad_name])
    np.testing.assert_allclose(gx, [1.0, 3.0])


@pytest.mark.parametrize("call", [
    lambda loss, x: append_backward(loss.name),                       # BW-5
    lambda loss, x: append_backward(loss, parameter_list="test"),     # BW-3
    lambda loss, x: append_backward(loss, parameter_list=[x, "w", 3]),
    lambda loss, x: append_backward(loss, parameter_list=[np.ones(2)]),
    lambda loss, x: append_backward(loss, no_grad_set="test"),        # BW-4
    lambda loss, x: append_backward(loss, no_grad_set=[x, "test", 3]),
    lambda loss, x: append_backward(loss, callbacks=lambda **kw: None),
    lambda loss, x: gradients(loss.name, x),                          # BW-2
    lambda loss, x: gradients(loss, x.name),
    lambda loss, x: gradients([loss], [x], target_gradients=x.name),
    lambda loss, x: gradients([loss], x, no_grad_set=x),
])
def test_bad_arguments_raise_type_error(call):
    x = _param("w", [1.0, 2.0])
    loss = paddle.mean(x * x)
    program = paddle.static.default_main_program()
    before = len(program.global_block().ops)
    with pytest.raises(TypeError):
        call(loss, x)
    assert len(program.global_block().ops) == before


def test_bw7_uninitialized_gradients_are_dropped():
    gt = paddle.static.data("gt", [4], "float32")
    x = paddle.static.data("x", [2], "float32")
    x.stop_gradient = False
    gt2 = paddle.reshape(paddle.reshape(gt, [2, 2]), [4])
    first, second = gt2 * 1.0, gt2 * 2.0
    loss = paddle.sum(x * x) + paddle.sum(first) + paddle.sum(second)
    gradients(loss, [])
    _run([loss], {"gt": np.ones(4, "float32"), "x": np.ones(2, "float32")})


@pytest.mark.parametrize("name, expected", [
    ("x@GRAD", "x"), ("x@GRAD@GRAD", "x"), ("x@GRAD@RENAME@1", "x"),
    ("x@GRAD_slice_0@GRAD", "x@GRAD_slice_0"), ("grad/grad/x@GRAD@RENAME@block0@1@GRAD", "x"),
])
def test_bw8_strip_grad_suffix(name, expected):
    assert strip_grad_suffix(name) == expected


def test_callbacks_see_each_new_op():
    w = _param("w", [1.0, 2.0])
    seen = []
    append_backward(paddle.mean(w * w),
                    callbacks=[lambda block, context: seen.append(context["__current_op_desc__"].type)])
    assert seen[0] == "fill_constant" and "elementwise_mul_grad" in seen


def test_grad_ops_carry_forward_creation_site():
    w = _param("w", [1.0, 2.0])
    loss = paddle.mean(w * w)
    append_backward(loss)
    grad_op = next(op for op in loss.block.ops if op.type == "elementwise_mul_grad")
    assert grad_op.site.startswith(__file__)


def test_gradients_with_optimizer_appends_grads_and_updates():
    from pyfluid.optimizer import Momentum
    w = _param("w", [[1.0, 2.0], [3.0, 4.0]])
    x = paddle.static.data("x", [1, 2], "float32")
    paddle.mean(paddle.nn.functional.relu(paddle.matmul(x, w)))
    program = paddle.static.default_main_program()
    forward_types = [op.type for op in program.global_block().ops]
    opt = Momentum(learning_rate=0.1, momentum=0.9)
    optimize_ops, pairs = gradients_with_optimizer(program, opt, inputs=[w])
    types = [op.type for op in program.global_block().ops]
    assert "momentum" in types and [p.name for p, _ in pairs] == ["w"]
    grad_types = [t + "_grad" for t in reversed(forward_types)]
    joined = " ".join(types)
    assert " ".join(grad_types) in joined


def _bw1_network():
    """Spec §9.2 BW-1: three embeddings share 'w2v'; one fc branch feeds the loss, one not."""
    from pyfluid.framework.backward import _no_grad_names
    from pyfluid.framework.grad_pass import GradPass as _Pass
    nn = paddle.static.nn
    x = paddle.static.data("x_no_grad", [16, 50], "int64")
    x2 = paddle.static.data("x2_no_grad", [16, 50], "int64")
    x3 = paddle.static.data("x3_no_grad", [16, 50], "int64")
    label = paddle.static.data("label_no_grad", [16, 50, 1], "float32")
    w2v = paddle.ParamAttr(name="w2v")
    e1, e2, e3 = (nn.embedding(v, size=[100, 64], param_attr=w2v) for v in (x, x2, x3))
    x_merge, x2_merge = paddle.add(e1, e2), paddle.add(e2, e3)
    predict = nn.fc(x_merge, 1, num_flatten_dims=2, weight_attr=paddle.ParamAttr(name="fc_w"),
                    activation="softmax", name="fc_predict")
    nn.fc(x2_merge, 1, num_flatten_dims=2, weight_attr=paddle.ParamAttr(name="fc_w"),
          activation="sigmoid", name="fc_no_use")
    cost = paddle.nn.functional.square_error_cost(predict, label)
    loss = paddle.mean(cost)
    return loss, _Pass, _no_grad_names


def test_bw1_shared_embedding_and_unused_branch():
    loss, _Pass, _no_grad_names = _bw1_network()
    block = loss.block
    no_grad = _no_grad_names(block, None)
    assert {"x_no_grad@GRAD", "x2_no_grad@GRAD", "x3_no_grad@GRAD",
            "label_no_grad@GRAD"} <= no_grad
    path = _Pass(block, [loss.name], [], no_grad, None, None)._op_path()
    assert [op.type for op in path] == [
        "lookup_table_v2", "lookup_table_v2", "elementwise_add", "mul", "elementwise_add",
        "softmax", "elementwise_sub", "square", "reduce_mean"]
    pairs = append_backward(loss)
    assert {p.name for p, _ in pairs} == {"w2v", "fc_predict.b_0", "fc_w"}
    sums = [op for op in block.ops if op.type == "sum" and op.output("Out") == ["w2v@GRAD"]]
    assert len(sums) == 1 and len(sums[0].input("X")) == 2
    paddle.optimizer.SGD(learning_rate=0.1).apply_gradients(pairs)
    exe = paddle.static.Executor(paddle.CPUPlace())
    startup = paddle.static.default_startup_program()
    exe.run(startup)
    rng = np.random.default_rng(0)
    feed = {n: rng.integers(0, 100, (16, 50)) for n in ("x_no_grad", "x2_no_grad", "x3_no_grad")}
    feed["label_no_grad"] = rng.random((16, 50, 1), dtype="float32")
    loss_value, w2v_grad = exe.run(feed=feed, fetch_list=[loss, "w2v@GRAD"])
    assert np.isfinite(loss_value) and w2v_grad.shape == (100, 64)
