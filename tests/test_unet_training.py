"""examples/unet_segmentation.py: its UNet's logits, loss and gradients equal Paddle 2.6's for
one step from the same weights (tests/paddle_grads/unet_26.npz, recorded by
tools/paddle_references/record_unet_grads.py), in eager and in static mode; and it trains (the
loss goes down, pixels get classified) in both modes."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import pyfluid as paddle

HERE = Path(__file__).resolve().parent
RECORD = HERE / "paddle_grads" / "unet_26.npz"
_spec = importlib.util.spec_from_file_location(
    "unet_segmentation", HERE.parent / "examples" / "unet_segmentation.py")
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)
WIDTH = 4         # the recorded model's


@pytest.fixture(scope="module")
def recorded():
    with np.load(RECORD) as npz:
        return {k: npz[k] for k in npz.files}


def _names(recorded, prefix):
    return sorted(k[len(prefix):] for k in recorded if k.startswith(prefix))


def _check(recorded, logits, loss, grads: dict):
    np.testing.assert_allclose(logits, recorded["logits"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(loss, recorded["loss"], rtol=1e-5)
    assert sorted(grads) == _names(recorded, "g:")
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, recorded[f"g:{name}"], rtol=1e-3, atol=1e-6,
                                   err_msg=name)


def test_eager_gradients_match_paddle(recorded):
    paddle.disable_static()
    try:
        model = example.UNet(width=WIDTH)
        params = dict(model.named_parameters())
        assert sorted(params) == _names(recorded, "w:")
        for name, param in params.items():
            param.set_value(recorded[f"w:{name}"])
        logits = model(paddle.to_tensor(recorded["images"]))
        loss = example.loss_of(logits, paddle.to_tensor(recorded["labels"]))
        loss.backward()
        _check(recorded, logits.numpy(), float(loss),
               {n: p.grad.numpy() for n, p in params.items() if p.grad is not None})
    finally:
        paddle.enable_static()


def test_static_gradients_match_paddle(recorded):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        side = recorded["images"].shape[-1]
        images = paddle.static.data("images", [None, 3, side, side], "float32")
        labels = paddle.static.data("labels", [None, 1, side, side], "int64")
        model = example.UNet(width=WIDTH)
        logits = model(images)
        loss = example.loss_of(logits, labels)
        params = dict(model.named_parameters())
        trainable = {n: p for n, p in params.items() if not p.stop_gradient}
        grads = paddle.static.gradients([loss], list(trainable.values()))
    types = {op.type for op in main.global_block().ops}
    assert {"conv2d_transpose", "group_norm", "bilinear_interp_v2", "concat"} <= types
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    for name, param in params.items():
        scope.var(param.name).get_tensor().set(recorded[f"w:{name}"], paddle.CPUPlace())
    values = exe.run(main, feed={"images": recorded["images"], "labels": recorded["labels"]},
                     fetch_list=[logits, loss] + grads)
    _check(recorded, values[0], float(values[1]), dict(zip(trainable, values[2:])))


@pytest.mark.parametrize("mode", ["eager", "static"])
def test_the_example_trains(mode):
    train = example.train_eager if mode == "eager" else example.train_static
    try:
        losses = train(steps=15, batch=4, seed=3, log_every=0)
    finally:
        paddle.enable_static()
    assert np.isfinite(losses).all()
    assert np.mean(losses[-5:]) < 0.7 * np.mean(losses[:5]), losses
