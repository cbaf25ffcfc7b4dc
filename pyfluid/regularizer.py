"""``paddle.regularizer``: weight decay added to a parameter's gradient before its update."""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["L1Decay", "L1DecayRegularizer", "L2Decay", "L2DecayRegularizer",
           "WeightDecayRegularizer"]


class WeightDecayRegularizer:
    """Base class. ``regularizer(param, grad, block)`` appends the ops computing the decay term
    and returns it; ``_numpy(param)`` gives the same term for eager updates."""

    _coeff: float

    def __call__(self, param: Any, grad: Any, block: Any):
        raise NotImplementedError

    def _numpy(self, param):
        raise NotImplementedError


class L1Decay(WeightDecayRegularizer):
    """Adds ``coeff * sign(param)`` to the gradient (``sign`` then ``scale``)."""

    def __init__(self, coeff: float = 0.0):
        if coeff is None:
            raise ValueError("coeff of L1Decay must not be None")
        self._coeff = float(coeff)

    def __call__(self, param, grad, block):
        sign = block.create_var(dtype=param.dtype, shape=param.shape, lod_level=param._lod_level)
        decay = block.create_var(dtype=param.dtype, shape=param.shape, lod_level=param._lod_level)
        block.append_op(type="sign", inputs={"X": param}, outputs={"Out": sign})
        block.append_op(type="scale", inputs={"X": sign}, outputs={"Out": decay},
                        attrs={"scale": self._coeff})
        return decay

    def _numpy(self, param):
        return (self._coeff * np.sign(param)).astype(param.dtype)

    def __str__(self) -> str:
        return f"L1Decay, coeff={self._coeff:f}"


class L2Decay(WeightDecayRegularizer):
    """Adds ``coeff * param`` to the gradient (one ``scale`` op)."""

    def __init__(self, coeff: float = 0.0):
        if coeff is None:
            raise ValueError("coeff of L2Decay must not be None")
        self._coeff = float(coeff)

    def __call__(self, param, grad, block):
        decay = block.create_var(dtype=param.dtype, shape=param.shape, lod_level=param._lod_level)
        block.append_op(type="scale", inputs={"X": param}, outputs={"Out": decay},
                        attrs={"scale": self._coeff})
        return decay

    def _numpy(self, param):
        return (self._coeff * param).astype(param.dtype)

    def __str__(self) -> str:
        return f"L2Decay, coeff={self._coeff:f}"



L1DecayRegularizer, L2DecayRegularizer = L1Decay, L2Decay     # the fluid-era names
