"""dropout, with Paddle's two scaling conventions and its seeding rules."""
from __future__ import annotations

import numpy as np

from .registry import register_op
from .random import default_generator
from .types import Meta, VarType

DOWNGRADE, UPSCALE = "downgrade_in_infer", "upscale_in_train"

# Mask is an "extra" output in Paddle 2.6: saved inference programs omit it.
dropout = register_op(
    "dropout", inputs=["X", "Seed?"], outputs=["Out", "Mask"], extra_outputs=["Mask"],
    no_grad=["Seed"],
    attrs={"dropout_prob": 0.5, "is_test": False, "fix_seed": False, "seed": 0,
           "dropout_implementation": DOWNGRADE},
    infer_shape=lambda x, seed_tensor=None, **_: (x, Meta(x.shape, VarType.UINT8)))


def _check(dropout_prob, dropout_implementation):
    if not 0.0 <= dropout_prob <= 1.0:
        raise ValueError(f"dropout_prob must be in [0, 1], got {dropout_prob}")
    if dropout_implementation not in (DOWNGRADE, UPSCALE):
        raise ValueError(f"dropout_implementation must be '{DOWNGRADE}' or '{UPSCALE}', got "
                         f"'{dropout_implementation}'")


def _keep_scale(x, dropout_prob, dropout_implementation):
    """The factor kept elements are multiplied by in training."""
    if dropout_implementation == UPSCALE:
        return x.dtype.type(0 if dropout_prob == 1.0 else 1.0 / (1.0 - dropout_prob))
    return x.dtype.type(1)


@dropout.def_kernel
def dropout_kernel(x, seed_tensor=None, *, dropout_prob, is_test, fix_seed, seed,
                   dropout_implementation):
    _check(dropout_prob, dropout_implementation)
    if is_test:
        mask = np.ones(x.shape, dtype=np.uint8)
        if dropout_implementation == DOWNGRADE:
            return x * x.dtype.type(1.0 - dropout_prob), mask
        return x.copy(), mask
    if seed_tensor is not None:
        rng = np.random.default_rng(int(seed_tensor.reshape(())))
    else:
        rng = np.random.default_rng(seed) if fix_seed else default_generator.rng
    mask = (rng.random(x.shape) >= dropout_prob).astype(np.uint8)
    return x * mask * _keep_scale(x, dropout_prob, dropout_implementation), mask


@dropout.def_grad
def dropout_grad(mask, dout, *, dropout_prob, dropout_implementation):
    return dout * mask * _keep_scale(dout, dropout_prob, dropout_implementation), None
