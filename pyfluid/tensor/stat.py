"""Statistics (``paddle.tensor.stat``): mean, var, std, numel."""
from __future__ import annotations

import numpy as np

from .._dispatch import apply_op, is_static
from ..framework.layer_helper import LayerHelper
from ..framework.variable import Variable
from .math import _axes, _sum_or_mean, sqrt, square, sum as total


def mean(x, axis=None, keepdim: bool = False, name: str | None = None):
    return _sum_or_mean("reduce_mean", x, axis, keepdim, name, "mean", flag_all=True)


def var(x, axis=None, unbiased: bool = True, keepdim: bool = False, name: str | None = None):
    """Variance along ``axis``, as Paddle composes it: mean, subtract, square, sum, divide."""
    axes = _axes(axis) or list(range(len(x.shape)))
    centered = x - mean(x, axes, keepdim=True)
    count = int(np.prod([x.shape[a] for a in axes]))
    return total(square(centered), axes, keepdim=keepdim) * (
        1.0 / (count - 1 if unbiased else count))


def std(x, axis=None, unbiased: bool = True, keepdim: bool = False, name: str | None = None):
    return sqrt(var(x, axis, unbiased, keepdim))


def numel(x, name: str | None = None):
    """The element count of ``x`` as an int64 0-D tensor (op ``size``)."""
    if not is_static({"Input": x}):
        return apply_op("size", {"Input": x})
    if not isinstance(x, Variable):
        raise TypeError("x must be a Tensor in numel")
    helper = LayerHelper("numel", name=name)
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(type="size", inputs={"Input": x}, outputs={"Out": out})
    return out
