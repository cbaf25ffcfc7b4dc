"""The eager step's fast paths give what the general paths give, bit for bit: the generated
per-op-type run_op (engine/fast_run.py), fc's 2-D specialization, the one-pass optimizer
step, and the loss kernels' shortcuts (full mean, flat hard-label indexing, range check)."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.engine import run as eager_run
from pyfluid.ops import get_op
from pyfluid.ops.fused import fc_kernel, fc_plain
from pyfluid.ops.reduce import reduce_mean_kernel

SWCE = {"soft_label": False, "ignore_index": -100, "numeric_stable_mode": True, "axis": -1,
        "use_softmax": True}


@pytest.fixture(autouse=True)
def dygraph():
    paddle.disable_static()
    yield


def _leaf(array, stop_gradient=False):
    t = paddle.to_tensor(np.asarray(array))
    t.stop_gradient = stop_gradient
    return t


def _forward_and_grads(generated: bool, monkeypatch):
    """A small net through fc, relu, elementwise_add, swce and reduce_mean; its loss and
    leaf gradients, with the generated runners or with the generic run_op."""
    monkeypatch.setattr(eager_run, "_INFO", {})
    if not generated:
        monkeypatch.setattr(eager_run, "compile_run", lambda info: None)
    rng = np.random.default_rng(0)
    x = _leaf(rng.standard_normal((5, 3)).astype("float32"), stop_gradient=True)
    w, b = _leaf(rng.standard_normal((3, 4)).astype("float32")), _leaf(np.ones(4, "float32"))
    shift = _leaf(rng.standard_normal((4,)).astype("float32"))
    label = paddle.to_tensor(rng.integers(0, 4, (5, 1)))
    h = eager_run.run_op("fc", {"Input": x, "W": w, "Bias": b}, {"in_num_col_dims": 1})
    h = eager_run.run_op("elementwise_add", {"X": paddle.nn.functional.relu(h), "Y": shift},
                         {"axis": -1})
    _, loss = eager_run.run_op("softmax_with_cross_entropy", {"Logits": h, "Label": label}, SWCE)
    loss = eager_run.run_op("reduce_mean", {"X": loss},
                            {"dim": [], "keep_dim": False, "reduce_all": True})
    loss.backward()
    return [loss.numpy(), w.grad.numpy(), b.grad.numpy(), shift.grad.numpy()]


def test_generated_runners_match_the_generic_run_op(monkeypatch):
    generated = _forward_and_grads(True, monkeypatch)
    assert eager_run._INFO["fc"].run is not None
    generic = _forward_and_grads(False, monkeypatch)
    assert eager_run._INFO["fc"].run is None
    for a, b in zip(generated, generic):
        assert a.tobytes() == b.tobytes() and a.shape == b.shape


def test_generated_runner_names_a_missing_input_as_run_op_does():
    x = paddle.ones([2, 3])
    with pytest.raises(ValueError, match=r"op 'fc': input 'W' is required but was not given "
                                         r"\(received slots \['Input'\]\)"):
        eager_run.run_op("fc", {"Input": x}, {"in_num_col_dims": 1})


def test_fc_specializes_only_the_plain_2d_product():
    assert fc_plain(in_num_col_dims=1, activation_type="", padding_weights=False) is not None
    assert fc_plain(in_num_col_dims=1, activation_type="relu", padding_weights=False) is None
    assert fc_plain(in_num_col_dims=2, activation_type="", padding_weights=False) is None
    rng = np.random.default_rng(1)
    fast = fc_plain(in_num_col_dims=1, activation_type="", padding_weights=False)
    w, b = rng.standard_normal((6, 5)).astype("float32"), rng.standard_normal(5).astype("float32")
    for x, bias in ((rng.standard_normal((4, 6)), b), (rng.standard_normal((4, 6)), None),
                    (rng.standard_normal((2, 3, 2)), b)):     # flattened to [2, 6]
        x = x.astype("float32")
        want = fc_kernel(x, w, bias, in_num_col_dims=1, activation_type="", padding_weights=False)
        assert fast(x, w, bias).tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_full_mean_is_numpy_mean_bit_for_bit(dtype):
    rng = np.random.default_rng(2)
    for shape in [(1,), (256, 1), (3, 5, 7), (10000,)]:
        x = (rng.standard_normal(shape) * 1e3).astype(dtype)
        got = reduce_mean_kernel(x, dim=[], keep_dim=False, reduce_all=True, out_dtype=-1)
        assert got.tobytes() == np.asarray(x.mean(), dtype=dtype).tobytes()
        assert got.shape == () and got.dtype == x.dtype


@pytest.mark.parametrize("order", ["C", "F"])
def test_hard_label_softmax_cross_entropy_and_its_gradient(order):
    rng = np.random.default_rng(3)
    logits = np.asarray(rng.standard_normal((6, 4)).astype("float32"), order=order)
    label = rng.integers(0, 4, (6, 1))
    softmax, loss = get_op("softmax_with_cross_entropy").run(logits, label, **SWCE)
    shifted = logits - logits.max(axis=1, keepdims=True)
    want_loss = np.log(np.exp(shifted).sum(axis=1, keepdims=True)) - \
        shifted[np.arange(6), label[:, 0]][:, None]
    assert loss.tobytes() == want_loss.astype("float32").tobytes()
    dloss = rng.standard_normal((6, 1)).astype("float32")
    grad = get_op("softmax_with_cross_entropy_grad").run(label, softmax, dloss,
                                                          **{k: v for k, v in SWCE.items()
                                                             if k != "numeric_stable_mode"})
    want = softmax * dloss
    want[np.arange(6), label[:, 0]] -= dloss[:, 0]
    assert np.asarray(grad).tobytes() == want.tobytes()


@pytest.mark.parametrize("bad", [-1, 4])
def test_a_label_out_of_range_is_refused(bad):
    logits, label = np.zeros((3, 4), "float32"), np.array([[0], [bad], [1]])
    with pytest.raises(ValueError, match=rf"label value {bad} is out of range \[0, 4\)"):
        get_op("softmax_with_cross_entropy").run(logits, label, **SWCE)


@pytest.mark.parametrize("make", [
    lambda ps: paddle.optimizer.SGD(0.1, parameters=ps, weight_decay=0.01),
    lambda ps: paddle.optimizer.Momentum(0.1, parameters=ps, use_nesterov=True),
    lambda ps: paddle.optimizer.Adam(0.01, parameters=ps),
    lambda ps: paddle.optimizer.AdamW(0.01, parameters=ps,
                                      apply_decay_param_fun=lambda name: "b" not in name)])
def test_eager_step_is_one_update_op_per_parameter(make):
    """Two steps, against the op's pure kernel run by hand on copies (lr multiplier 0.5 on
    the bias)."""
    paddle.seed(0)
    layer = paddle.nn.Linear(3, 2, bias_attr=paddle.ParamAttr(learning_rate=0.5))
    optimizer = make(layer.parameters())
    opdef = get_op(optimizer.type)
    values = {p.name: p.numpy() for p in layer.parameters()}
    state: dict = {}
    rng = np.random.default_rng(4)
    for _ in range(2):
        grads = {p.name: rng.standard_normal(p.shape).astype("float32")
                 for p in layer.parameters()}
        for p in layer.parameters():
            p.grad = paddle.to_tensor(grads[p.name])
        optimizer.step()
        for p in layer.parameters():
            grad = grads[p.name]
            regularizer = optimizer._regularizer_of(p)
            if regularizer is not None:
                grad = grad + regularizer._numpy(values[p.name])
            accs = state.setdefault(p.name, [np.full(p.shape if shape is None else shape, fill,
                                                     "float32")
                                             for _, fill, shape, _ in
                                             optimizer._accumulator_init(p)])
            slots = dict(zip(optimizer._accumulator_slots, accs))
            rate = np.array([0.1 * p.optimize_attr["learning_rate"] if optimizer.type in (
                "sgd", "momentum") else 0.01 * p.optimize_attr["learning_rate"]], "float32")
            inputs = {"Param": values[p.name], "Grad": grad, "LearningRate": rate, **slots}
            attrs = optimizer._op_attrs(p)
            kernel, kwargs = opdef.bound_kernel(attrs)
            out = kernel(*[inputs.get(s.name) for s in opdef.inputs], **kwargs)
            out = dict(zip([s.name for s in opdef.outputs], out if isinstance(out, tuple)
                           else (out,)))
            values[p.name] = out["ParamOut"]
            state[p.name] = [out[f"{slot}Out"] for slot in optimizer._accumulator_slots]
            assert p.numpy().tobytes() == values[p.name].tobytes()


def test_setting_a_parameter_replaces_a_plain_attribute_of_that_name():
    layer = paddle.nn.Linear(2, 2)
    bias = layer.bias
    layer.bias = None                      # a plain attribute now
    assert layer.bias is None
    layer.bias = bias                      # a parameter again: found, not the stale None
    assert layer.bias is bias and layer(paddle.ones([1, 2])).shape == [1, 2]


def test_trainable_sets_stop_gradient_and_an_update_bumps_the_version():
    layer = paddle.nn.Linear(2, 1)
    layer.weight.trainable = False
    assert layer.weight.stop_gradient and not layer.weight.trainable
    layer.weight.trainable = True
    assert not layer.weight.stop_gradient
    optimizer = paddle.optimizer.SGD(0.1, parameters=layer.parameters())
    layer(paddle.ones([3, 2])).sum().backward()
    before = layer.weight.inplace_version
    optimizer.step()
    assert layer.weight.inplace_version == before + 1


def test_a_linear_subclass_may_define_its_weight():
    class Doubled(paddle.nn.Linear):
        @property
        def weight(self):                    # the stored parameter, transformed
            return self._parameters["weight"] * 2.0

    layer = Doubled(2, 3)
    x = paddle.ones([1, 2])
    stored = layer._parameters["weight"].numpy()
    np.testing.assert_allclose(layer(x).numpy(), np.ones((1, 2)) @ (2 * stored) +
                               layer.bias.numpy(), rtol=1e-6)
