"""Indexing as Paddle 2.6 lowers it, in static programs and eagerly: the ops each kind of
index emits, the values against NumPy, assignment (``paddle.static.setitem``, eager
``x[i] = v``) and gradients; and the forward results of the index ops it uses."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.ops import get_op

DATA = np.arange(24, dtype="float32").reshape(2, 3, 4)
INDICES = [
    (1, ["slice"]),
    ((slice(None), slice(None, None, 2)), ["strided_slice"]),
    ((None, slice(1, None)), ["slice", "unsqueeze2"]),
    ((Ellipsis, None, slice(None), None), ["unsqueeze2"]),
    ([1, 0], ["assign_value", "unsqueeze2", "gather_nd"]),
    (([1, 0], [0, 2]), ["assign_value", "assign_value", "broadcast_tensors", "stack",
                        "gather_nd"]),
    (np.array([True, False]), ["assign_value", "where_index", "gather_nd"]),
    ([False, True, 1], ["assign_value", "unsqueeze2", "gather_nd"]),
    ((slice(None), [2, 0]), ["assign_value", "transpose2", "unsqueeze2", "gather_nd",
                             "transpose2"]),
]


def _static(fn):
    program = paddle.static.Program()
    with paddle.static.program_guard(program):
        x = paddle.assign(DATA)
        start = len(program.global_block().ops)
        out = fn(x)
    ops = [op.type for op in program.global_block().ops[start:]]
    value, = paddle.static.Executor().run(program, fetch_list=[out])
    return ops, value


@pytest.mark.parametrize("index,ops", INDICES)
def test_static_getitem_emits_paddles_ops_and_numpys_values(index, ops):
    emitted, value = _static(lambda x: x[index])
    assert emitted == ops
    np.testing.assert_array_equal(value, DATA[index])


def test_static_getitem_with_masks_and_tensors():
    _, masked = _static(lambda x: x[x > 10.5])
    np.testing.assert_array_equal(masked, DATA[DATA > 10.5])
    _, picked = _static(lambda x: x[paddle.assign(np.array([1, 0])),
                                    paddle.assign(np.array([2, 2]))])
    np.testing.assert_array_equal(picked, DATA[[1, 0], [2, 2]])
    with pytest.raises(IndexError, match="boolean index 3 did not match"):
        _static(lambda x: x[[True, False, True]])


def test_static_setitem_returns_a_new_variable_through_set_value():
    ops, value = _static(lambda x: paddle.static.setitem(x, (0, slice(1, 3)), 7.0))
    assert ops == ["set_value"]
    expected = DATA.copy()
    expected[0, 1:3] = 7.0
    np.testing.assert_array_equal(value, expected)
    ops, value = _static(lambda x: paddle.static.setitem(x, [1, 0], paddle.full([4], 2.5)))
    assert ops[-3:] == ["index_put", "transpose2", "set_value"]
    expected = DATA.copy()
    expected[[1, 0]] = 2.5
    np.testing.assert_array_equal(value, expected)
    _, value = _static(lambda x: paddle.static.setitem(x, np.array([False, True]), 0.0))
    np.testing.assert_array_equal(value[1], np.zeros((3, 4)))


def test_static_item_assignment_is_refused_as_in_paddle():
    x = paddle.static.data("x", [2, 3])
    with pytest.raises(RuntimeError, match="paddle.static.setitem"):
        x[0] = 1.0


def test_static_setitem_gradients_reach_the_input_and_the_value():
    x = paddle.static.data("x", [3, 4])
    v = paddle.static.data("v", [4])
    x.stop_gradient = v.stop_gradient = False
    y = paddle.static.setitem(x, 1, v)
    loss = paddle.sum(y * y)
    gx, gv = paddle.static.gradients([loss], [x, v])
    xv, vv = np.ones((3, 4), "float32"), np.full(4, 3.0, "float32")
    dx, dv = paddle.static.Executor().run(feed={"x": xv, "v": vv}, fetch_list=[gx, gv])
    expected = 2 * xv
    expected[1] = 0
    np.testing.assert_allclose(dx, expected)
    np.testing.assert_allclose(dv, 2 * vv)


def test_eager_indexing_and_in_place_assignment_with_gradients():
    paddle.disable_static()
    x = paddle.to_tensor(DATA, stop_gradient=False)
    picked = x[[1, 0], :, 2]
    np.testing.assert_array_equal(picked.numpy(), DATA[[1, 0], :, 2])
    picked.sum().backward()
    expected = np.zeros_like(DATA)
    expected[:, :, 2] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    y = x * 1.0
    y[0, 1] = paddle.to_tensor(np.zeros(4, "float32"))
    y[paddle.to_tensor([1])] = 5.0
    expected = DATA.copy()
    expected[0, 1] = 0
    expected[1] = 5
    np.testing.assert_array_equal(y.numpy(), expected)
    x.clear_gradient()
    y.sum().backward()                       # the overwritten elements get no gradient
    expected_grad = np.ones_like(DATA)
    expected_grad[0, 1] = 0
    expected_grad[1] = 0
    np.testing.assert_array_equal(x.grad.numpy(), expected_grad)
    with pytest.raises(ValueError, match="Leaf Tensor"):
        x[0] = 1.0


def test_index_op_kernels_against_numpy():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(get_op("gather_nd").kernel(x, np.array([[2, 1], [0, 3]])),
                                  x[[2, 0], [1, 3]])
    np.testing.assert_array_equal(get_op("where_index").kernel(x > 8), np.argwhere(x > 8))
    a, b = get_op("broadcast_tensors").kernel([np.ones((2, 1)), np.arange(3)])
    assert a.shape == b.shape == (2, 3)
    put = get_op("index_put").kernel(x, [np.array([0, 2]), np.array([1, 1])], np.array([9.0]),
                                     accumulate=True)
    assert put[0, 1] == x[0, 1] + 9 and put[2, 1] == x[2, 1] + 9 and put[1, 1] == x[1, 1]
    kernel = get_op("unique_consecutive").kernel
    out, inverse, counts = kernel(np.array([1, 1, 2, 1]), return_inverse=True,
                                  return_counts=True, axis=[], dtype=3)
    assert (out.tolist(), inverse.tolist(), counts.tolist()) == ([1, 2, 1], [0, 0, 1, 2],
                                                                 [2, 1, 1])
    set_value = get_op("set_value").kernel(x, None, None, None, None, dtype=6, axes=[1],
                                           starts=[0], ends=[4], steps=[2], decrease_axes=[],
                                           none_axes=[], values=[-1.0], shape=[1])
    assert (set_value[:, ::2] == -1).all() and (set_value[:, 1::2] == x[:, 1::2]).all()


def test_numel_size_shape_and_detach():
    x = paddle.assign(DATA)
    detached = x.detach()
    assert detached.stop_gradient and detached.shape == x.shape
    size, shape, numel, same = paddle.static.Executor().run(
        fetch_list=[x.size(), paddle.shape(x), paddle.numel(x), detached])
    assert int(size) == int(numel) == 24 and shape.tolist() == [2, 3, 4]
    np.testing.assert_array_equal(same, DATA)
    assert x.size().name.startswith(x.name + "_size_")
