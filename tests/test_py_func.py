"""py_func behaviours (spec §3): argument binding, return rules, runtime shapes, backward
construction, skip vars, no-grad inputs, errors, and the layer's checks."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyfluid
import pyfluid.fluid
from pyfluid.framework import ExecutionError, Program
from pyfluid.static import py_func

CALLS: list = []


# -- functions the programs below call (module level: importable, so names are plain) ----------
def tanh(x):
    return np.tanh(x)


def tanh_grad(y, dy):
    return np.array(dy) * (1 - np.square(np.array(y)))


def one_constant():
    return np.array([3.0], dtype="float32")


def record(*args):
    CALLS.append([np.array(a) for a in args])


def no_parameters():
    CALLS.append("called")


def swap(x, y):
    return np.array(y), np.array(x)


def swap_list(x, y):
    return [np.array(y), np.array(x)]


def two_outputs_grad(a, d, dc, dd):
    CALLS.append((np.array(a), np.array(d), np.array(dc), np.array(dd)))
    return np.array(dd), np.array(dc)


def first_input_grad_only(dy):
    return np.array(dy), None


def add_pair(x, y):
    return np.asarray(x) + np.asarray(y)


def two_values(x):
    return np.asarray(x), np.asarray(x)


def text(x):
    return "not an array"


def divide_by_zero(x):
    return 1 // 0


def modify_in_place(x):
    x += 1
    return x


def identity(x):
    return x


def _exe() -> pyfluid.static.Executor:
    return pyfluid.static.Executor(pyfluid.CPUPlace())


def _var(name, shape, dtype="float32"):
    return pyfluid.static.default_main_program().current_block().create_var(
        name=name, shape=shape, dtype=dtype)


def _data(name, shape, trainable=True):
    v = pyfluid.static.data(name, shape, "float32")
    v.stop_gradient = not trainable
    return v


@pytest.fixture(autouse=True)
def clear_calls():
    CALLS.clear()


# -- forward ---------------------------------------------------------------------------------
def test_zero_input_py_func_makes_a_stop_gradient_constant():
    out = _var("const", [1])
    assert py_func(one_constant, None, out) is out
    assert out.stop_gradient
    got, = _exe().run(fetch_list=[out])
    np.testing.assert_array_equal(got, [3.0])


def test_zero_output_py_func_returning_none_runs_every_time():
    x = _data("x", [2])
    assert py_func(record, x, None) is None
    for step in range(3):
        _exe().run(feed={"x": np.full(2, step, "float32")})
    assert [c[0].tolist() for c in CALLS] == [[0, 0], [1, 1], [2, 2]]


def test_function_without_parameters_is_called_without_arguments():
    py_func(no_parameters, _data("x", [2]), None)
    _exe().run(feed={"x": np.zeros(2, "float32")})
    assert CALLS == ["called"]


@pytest.mark.parametrize("container, func", [(tuple, swap), (list, swap_list)])
def test_tuple_and_list_inputs_and_outputs(container, func):
    x, y = _data("x", [2]), _data("y", [3])
    outs = container([_var("a", [3]), _var("b", [2])])
    assert py_func(func, container([x, y]), outs) is outs
    a, b = _exe().run(feed={"x": np.ones(2, "float32"), "y": np.zeros(3, "float32")},
                      fetch_list=list(outs))
    assert a.tolist() == [0, 0, 0] and b.tolist() == [1, 1]


def test_inputs_are_read_only_arrays_usable_by_numpy():
    x = _data("x", [2, 2])
    py_func(record, x, None)
    _exe().run(feed={"x": np.eye(2, dtype="float32")})
    py_func(modify_in_place, x, _var("y", [2, 2]))
    with pytest.raises(ExecutionError, match="read-only arrays: copy one with np.array"):
        _exe().run(feed={"x": np.eye(2, dtype="float32")})


def test_runtime_shape_and_dtype_are_the_functions_with_one_warning_per_op():
    x, y = pyfluid.static.data("x", [2, 3], "int32"), pyfluid.static.data("y", [2, 3], "int32")
    out = _var("sum", [3, 1], "int32")
    py_func(add_pair, [x, y], out)
    a = np.arange(6, dtype="int32").reshape(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            got, = _exe().run(feed={"x": a, "y": a}, fetch_list=[out])
            np.testing.assert_array_equal(got, 2 * a)
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1
    assert "'sum' was declared as [3, 1] int32" in messages[0] and "[2, 3]" in messages[0]
    assert "test_py_func:add_pair" in messages[0]


def test_returned_tensors_lists_and_float64_are_accepted_as_paddle_does():
    x = _data("x", [2])
    outs = [_var("t", [2]), _var("n", [2])]
    py_func(lambda v: (pyfluid.LoDTensor(np.asarray(v) + 1), [1.5, 2.5]), x, outs)
    with pytest.warns(RuntimeWarning, match="'n' was declared as \\[2\\] float32 but the "
                                            "function returned \\[2\\] float64"):
        t, n = _exe().run(feed={"x": np.zeros(2, "float32")}, fetch_list=outs)
    assert t.tolist() == [1, 1] and n.tolist() == [1.5, 2.5] and n.dtype == np.float64


# -- backward --------------------------------------------------------------------------------
def test_tanh_backward_skipping_the_input():
    x = _data("x", [2, 3])
    h = py_func(tanh, x, _var("h", [-1, 3]), backward_func=tanh_grad,
                skip_vars_in_backward_input=x)
    dx, = pyfluid.static.gradients([pyfluid.mean(h)], [x])
    v = np.random.rand(2, 3).astype("float32")
    got, = _exe().run(feed={"x": v}, fetch_list=[dx])
    np.testing.assert_allclose(got, (1 - np.tanh(v) ** 2) / 6, rtol=1e-5)


def test_backward_inputs_are_kept_x_kept_out_then_all_out_grads():
    a, b = _data("a", [2]), _data("b", [2])
    c, d = _var("c", [2]), _var("d", [2])
    py_func(swap, [a, b], [c, d], backward_func=two_outputs_grad,
            skip_vars_in_backward_input=[b, c])
    op = pyfluid.static.default_main_program().global_block().ops[-1]
    assert op.attr("backward_skip_vars") == ["b", "c"]
    loss = pyfluid.mean(c * 2.0 + d)
    da, db = pyfluid.static.gradients([loss], [a, b])
    grad_op = [o for o in op.block.ops if o.type == "py_func"][-1]
    assert grad_op.input("X") == ["a", "d", "c@GRAD", "d@GRAD"]
    assert grad_op.output("Out") == ["a@GRAD", "b@GRAD"]
    ga, gb = _exe().run(feed={"a": np.array([1, 2], "float32"), "b": np.array([3, 4], "float32")},
                        fetch_list=[da, db])
    (fa, fd, dc, dd), = CALLS
    assert fa.tolist() == [1, 2] and fd.tolist() == [1, 2]
    assert dc.tolist() == [1, 1] and dd.tolist() == [0.5, 0.5]
    assert ga.tolist() == [0.5, 0.5] and gb.tolist() == [1, 1]


def test_input_without_gradient_gets_empty_slot_and_may_return_none():
    a, b = _data("a", [2]), _data("b", [2], trainable=False)
    y = _var("y", [2])
    py_func(add_pair, [a, b], y, first_input_grad_only, skip_vars_in_backward_input=[a, b, y])
    da, = pyfluid.static.gradients([pyfluid.mean(y)], [a])
    grad_op = pyfluid.static.default_main_program().global_block().ops[-1]
    assert grad_op.type == "py_func" and grad_op.output("Out") == ["a@GRAD", "@EMPTY@"]
    got, = _exe().run(feed={"a": np.ones(2, "float32"), "b": np.ones(2, "float32")},
                      fetch_list=[da])
    assert got.tolist() == [0.5, 0.5]


def test_none_for_a_needed_gradient_is_an_error():
    a, b = _data("a", [2]), _data("b", [2])
    y = _var("y", [2])
    py_func(add_pair, [a, b], y, first_input_grad_only, skip_vars_in_backward_input=[a, b, y])
    grads = pyfluid.static.gradients([pyfluid.mean(y)], [a, b])
    with pytest.raises(ExecutionError) as info:
        _exe().run(feed={"a": np.ones(2, "float32"), "b": np.ones(2, "float32")},
                   fetch_list=grads)
    text = str(info.value)
    assert "returned None for output #1 (b@GRAD is a gradient the backward pass needs)" in text
    assert "test_py_func:first_input_grad_only" in text and "Output tensor 1 should not" in text


def test_output_grad_that_does_not_reach_the_loss_is_zeros():
    a, b = _data("a", [2]), _data("b", [3])
    c, d = _var("c", [3]), _var("d", [2])
    py_func(swap, [a, b], [c, d], backward_func=two_outputs_grad,
            skip_vars_in_backward_input=[b, c])
    da, = pyfluid.static.gradients([pyfluid.mean(c)], [a])
    _exe().run(feed={"a": np.ones(2, "float32"), "b": np.ones(3, "float32")}, fetch_list=[da])
    (_, _, dc, dd), = CALLS
    assert dd.tolist() == [0, 0]
    np.testing.assert_allclose(dc, [1 / 3] * 3, rtol=1e-6)


def test_without_backward_func_gradients_stop_at_the_op():
    x = _data("x", [2, 4], trainable=False)
    h = pyfluid.static.nn.fc(x, 3)
    y = py_func(tanh, h, _var("y", [-1, 3]))
    z = pyfluid.static.nn.fc(x, 3)
    _, params_grads = pyfluid.optimizer.SGD(0.1).minimize(pyfluid.mean(y) + pyfluid.mean(z))
    names = {p.name for p, _ in params_grads}
    assert names == {"fc_1.w_0", "fc_1.b_0"}
    assert sum(op.type == "py_func" for op in y.block.ops) == 1


def test_debug_py_func_prints_at_each_training_step(capsys):
    x = _data("x", [-1, 4], trainable=False)
    hidden = pyfluid.static.nn.fc(x, 3)
    py_func(lambda h: print("step", np.array(h).shape), hidden, None)
    loss = pyfluid.mean(pyfluid.static.nn.fc(hidden, 1))
    pyfluid.optimizer.SGD(0.1).minimize(loss)
    exe = _exe()
    exe.run(pyfluid.static.default_startup_program())
    losses = [exe.run(feed={"x": np.ones((5, 4), "float32")}, fetch_list=[loss])[0]
              for _ in range(3)]
    assert capsys.readouterr().out == "step (5, 3)\n" * 3
    assert losses[0] != losses[2]


# -- errors ----------------------------------------------------------------------------------
def test_wrong_number_of_returned_values():
    py_func(two_values, _data("x", [2]), _var("y", [2]))
    with pytest.raises(ExecutionError) as info:
        _exe().run(feed={"x": np.ones(2, "float32")}, fetch_list=["y"])
    text = str(info.value)
    assert "'test_py_func:two_values' returned 2 value(s) but the op has 1 output(s)" in text
    assert "But ret_num is 2" in text and "y = py_func(X=[x])" in text
    assert "test_py_func.py" in text                   # the creation site


def test_non_array_return():
    py_func(text, _data("x", [2]), _var("y", [2]))
    with pytest.raises(ExecutionError, match="returned str for output #0 \\(y\\), which is not"):
        _exe().run(feed={"x": np.ones(2, "float32")}, fetch_list=["y"])


def test_exception_inside_the_function_is_chained():
    py_func(divide_by_zero, _data("x", [2]), _var("y", [2]))
    with pytest.raises(ExecutionError) as info:
        _exe().run(feed={"x": np.ones(2, "float32")}, fetch_list=["y"])
    assert "'test_py_func:divide_by_zero' raised ZeroDivisionError" in str(info.value)
    assert isinstance(info.value.__cause__.__cause__, ZeroDivisionError)


def test_layer_argument_checks():
    x, block = _data("x", [2]), pyfluid.static.default_main_program().current_block()
    with pytest.raises(TypeError, match="The type of 'X' in py_func must be .*, but received "
                                        "<class 'int'>"):
        py_func(tanh, 1, None)
    with pytest.raises(TypeError, match="The type of 'Out' in py_func must be"):
        py_func(tanh, x, np.zeros(2))
    with pytest.raises(TypeError, match="'Out\\[0\\]' in py_func .* Create each output"):
        py_func(tanh, x, [np.zeros(2)])
    with pytest.raises(TypeError, match="func must be a Python function"):
        py_func(None, x, None)
    with pytest.raises(ValueError, match="Output shapes of py_func should be provided"):
        py_func(tanh, x, block.create_var(name="no_shape", dtype="float32"))
    with pytest.raises(ValueError, match="Tensor other is not found in forward inputs and"):
        py_func(tanh, x, _var("y", [2]), tanh_grad, _data("other", [2]))
    pyfluid.disable_static()
    with pytest.raises(AssertionError, match="'py_func\\(\\)' is only supported in static"):
        py_func(tanh, x, None)


def test_skip_vars_are_ignored_without_backward_func_and_ids_follow_paddle():
    x = _data("x", [2])
    py_func(tanh, x, _var("y", [2]), skip_vars_in_backward_input=_data("unrelated", [2]))
    first = x.block.ops[-1]
    assert first.attr("backward_skip_vars") == [] and first.attr("backward_callable_id") == -1
    py_func(tanh, x, _var("z", [2]), backward_func=tanh_grad)
    second = x.block.ops[-1]
    assert second.attr("forward_callable_id") == first.attr("forward_callable_id") + 1
    assert second.attr("backward_callable_id") == second.attr("forward_callable_id") + 1
    assert pyfluid.ops.py_func_registry.registered_func(second.attr("backward_callable_id")) \
        is tanh_grad


def test_one_function_under_every_paddle_name():
    assert pyfluid.static.nn.py_func is py_func
    # fluid 1.x's py_func is static by nature: the same op, without 2.x's static-mode check
    assert pyfluid.fluid.layers.py_func is pyfluid.static.py_func.__globals__["append_py_func"]


def test_fluid_py_func_appends_in_dygraph_mode_too():
    pyfluid.disable_static()
    x = _data("x", [2])
    with pytest.raises(AssertionError, match="only supported in static graph mode"):
        py_func(identity, x, _var("y", [2]))
    pyfluid.fluid.layers.py_func(identity, x, _var("z", [2]))
    assert [op.type for op in pyfluid.static.default_main_program().global_block().ops] == \
        ["py_func"]


def test_program_prints_readable_names_and_round_trips():
    x = _data("x", [2])
    py_func(identity, x, _var("y", [2]), backward_func=tanh_grad)
    program = pyfluid.static.default_main_program()
    text = str(program)
    assert "forward_callable_name='test_py_func:identity'" in text
    assert "backward_callable_name='test_py_func:tanh_grad'" in text
    loaded = Program.parse_from_string(program.desc.serialize_to_string())
    op = loaded.global_block().ops[0]
    assert op.attr("forward_callable_name") == "test_py_func:identity"
    got, = _exe().run(loaded, feed={"x": np.array([1, 2], "float32")}, fetch_list=["y"])
    assert got.tolist() == [1, 2]
