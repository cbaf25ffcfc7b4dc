"""paddle.jit.to_static converts Python control flow on Tensors: every function and Layer of
tests/dy2static_cases.py gives the same outputs eager and converted, on inputs that take
every branch, from ONE program per function (no branch frozen at trace time), and the same
gradients through that program."""
import numpy as np
import pytest

import pyfluid as paddle
from dy2static_cases import CASES, LAYERS
from pyfluid.static import InputSpec


@pytest.fixture(autouse=True)
def dygraph():
    paddle.disable_static()
    yield


def _tensors(values, grad):
    return [paddle.to_tensor(v, stop_gradient=not (grad and v.dtype == np.float32))
            if isinstance(v, np.ndarray) else v for v in values]


def _flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _run(fn, values, grad):
    """Outputs and the gradients of sum(outputs) w.r.t. the float inputs (and parameters)."""
    inputs = _tensors(values, grad)
    outs = _flat(fn(*inputs))
    grads = []
    if grad:
        loss = paddle.add_n([paddle.sum(o) for o in outs if o.dtype == paddle.float32])
        loss.backward()
        grads = [t.grad.numpy() if t.grad is not None else None for t in inputs
                 if isinstance(t, paddle.Tensor) and not t.stop_gradient]
    return [o.numpy() for o in outs], grads


def _compare(expected, got):
    for e, g in zip(expected, got):
        if e is None or g is None:        # no gradient: the output does not depend on it
            assert not np.any(g if e is None else e)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, inputs, grad", CASES, ids=[c[0].__name__ for c in CASES])
def test_function_matches_eager(fn, inputs, grad):
    static = paddle.jit.to_static(fn)
    for values in inputs:
        e_out, e_grad = _run(fn, values, grad)
        s_out, s_grad = _run(static, values, grad)
        _compare(e_out, s_out)
        _compare(e_grad, s_grad)
    # every case ran one traced program: the branches are in it, not chosen while tracing
    assert len(static._programs) == len({tuple(repr(v) for v in values if not isinstance(
        v, np.ndarray)) for values in inputs})


@pytest.mark.parametrize("layer_class, inputs", LAYERS, ids=[c[0].__name__ for c in LAYERS])
def test_layer_matches_eager_with_parameter_gradients(layer_class, inputs):
    paddle.seed(5)
    layer = layer_class()
    static = paddle.jit.to_static(layer_class(), input_spec=[InputSpec([None, 4], "float32")])
    static.set_state_dict(layer.state_dict())
    for values in inputs:
        for model in (layer, static):
            model.clear_gradients()
        e_out, e_grad = _run(layer, values, True)
        s_out, s_grad = _run(static, values, True)
        _compare(e_out, s_out)
        _compare(e_grad, s_grad)
        _compare([p.grad.numpy() for p in layer.parameters()],
                 [p.grad.numpy() for p in static.parameters()])
    assert len(static.forward._programs) == 1


def test_converted_program_holds_cond_and_while():
    static = paddle.jit.to_static(dy2static_cases_fn("while_counter"))
    static(paddle.ones([3, 4]), paddle.to_tensor([2]))
    program = next(iter(static._programs.values())).main_program
    assert "while" in [op.type for op in program.global_block().ops]
    static = paddle.jit.to_static(dy2static_cases_fn("if_else"))
    static(paddle.ones([3, 4]))
    types = [op.type for op in next(iter(static._programs.values())).main_program
             .global_block().ops]
    assert types.count("conditional_block") == 2 and "select_input" in types


def test_unknown_batch_dimension_gives_a_while_loop_over_rows():
    fn = dy2static_cases_fn("for_over_tensor")
    static = paddle.jit.to_static(fn, input_spec=[InputSpec([None, 4], "float32", "x")])
    for rows in (1, 3, 6):
        x = np.random.default_rng(rows).standard_normal((rows, 4)).astype("float32")
        np.testing.assert_allclose(static(paddle.to_tensor(x)).numpy(),
                                   fn(paddle.to_tensor(x)).numpy(), rtol=1e-5)
    assert len(static._programs) == 1


def dy2static_cases_fn(name):
    import dy2static_cases
    return getattr(dy2static_cases, name)
