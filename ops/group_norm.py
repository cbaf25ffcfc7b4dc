"""Normalization with statistics per sample: group_norm (over groups of channels and the
spatial dims, NCHW or NHWC) and instance_norm (over the spatial dims of each channel: the
one-channel-per-group case, NCHW only). As in Paddle, group_norm's Mean/Variance are
[N, groups] and hold the plain variance; instance_norm's SavedMean/SavedVariance are [N*C]
and hold the inverse standard deviation 1/sqrt(var + eps)."""
from __future__ import annotations

import numpy as np

from .registry import register_op
from .types import Meta


def _reduce_grad(dy, x_hat, inv_std, axes):
    """d loss / d x of x_hat = (x - mean(x)) * inv_std over ``axes``, given d loss / d x_hat."""
    return inv_std * (dy - dy.mean(axis=axes, keepdims=True)
                      - x_hat * (dy * x_hat).mean(axis=axes, keepdims=True))


# -- group_norm --------------------------------------------------------------------------------
group_norm = register_op("group_norm", inputs=["X", "Scale?", "Bias?"],
                         outputs=["Y", "Mean", "Variance"],
                         attrs={"epsilon": 1e-5, "groups": -1, "data_layout": "NCHW"})


def _channel_axis(op: str, ndim: int, data_layout: str) -> int:
    if data_layout not in ("NCHW", "NHWC", "AnyLayout"):
        raise ValueError(f"op '{op}': data_layout must be 'NCHW' or 'NHWC', received "
                         f"{data_layout!r}")
    return ndim - 1 if data_layout == "NHWC" else 1


@group_norm.def_infer_shape
def group_norm_shape(x: Meta, scale=None, bias=None, *, groups, data_layout, **_):
    if len(x.shape) < 2:
        raise ValueError(f"op 'group_norm': the input X must have at least 2 dims (N, C, ...), "
                         f"received {list(x.shape)}")
    c = x.shape[_channel_axis("group_norm", len(x.shape), data_layout)]
    if groups < 1:
        raise ValueError(f"The Attr(groups) of Op(group_norm) must be greater than or equal to "
                         f"1. But received: groups is [{groups}].")
    if c != -1:
        if groups > c:
            raise ValueError(f"The Attr(groups) of Op(group_norm) must be less than or equal to "
                             f"the number of channels. But received: groups is [{groups}], "
                             f"channels is [{c}], the Attr(data_layout) is [{data_layout}]. The "
                             f"error may come from wrong data_layout setting.")
        if c % groups:
            raise ValueError(f"Expected number of channels in input to be divisible by "
                             f"num_groups, but got input channel is {c} and num_groups is "
                             f"{groups}")
    for slot, m in (("Scale", scale), ("Bias", bias)):
        if m is not None and (len(m.shape) != 1 or -1 not in (c, m.shape[0]) and m.shape[0] != c):
            raise ValueError(f"op 'group_norm': Input({slot}) must be [C] = [{c}] (the channels "
                             f"of X {list(x.shape)}, {data_layout}), but received "
                             f"{list(m.shape)}")
    stats = Meta((x.shape[0], groups), x.dtype)
    return x, stats, stats


def _grouped(x, groups, data_layout):
    """x as (N, G, C/G, rest) for NCHW or (N, rest, G, C/G) for NHWC, and the reduced axes."""
    n = x.shape[0]
    if _channel_axis("group_norm", x.ndim, data_layout) == 1:
        return x.reshape(n, groups, -1), (2,)
    return x.reshape(n, -1, groups, x.shape[-1] // groups), (1, 3)


def _stat_view(stat, grouped):
    """[N, G] statistics shaped to broadcast against the grouped x."""
    return stat[:, :, None] if grouped.ndim == 3 else stat[:, None, :, None]


@group_norm.def_kernel
def group_norm_kernel(x, scale=None, bias=None, *, epsilon, groups, data_layout):
    g, axes = _grouped(x, groups, data_layout)
    mean = g.mean(axis=axes)
    centered = g - _stat_view(mean, g)
    variance = np.square(centered).mean(axis=axes)
    inv_std = 1 / np.sqrt(variance + x.dtype.type(epsilon))
    y = (centered * _stat_view(inv_std, g)).reshape(x.shape)
    y = _affine(y, scale, bias, _channel_axis("group_norm", x.ndim, data_layout))
    return y, mean, variance


def _affine(y, scale, bias, axis):
    shape = [1] * y.ndim
    shape[axis] = -1
    if scale is not None:
        y = y * scale.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


@group_norm.def_grad
def group_norm_grad(x, scale, bias, y, mean, variance, dy, *, epsilon, groups, data_layout):
    axis = _channel_axis("group_norm", x.ndim, data_layout)
    others = tuple(i for i in range(x.ndim) if i != axis)
    inv_std = 1 / np.sqrt(variance + x.dtype.type(epsilon))
    g, axes = _grouped(x, groups, data_layout)
    x_hat = (g - _stat_view(mean, g)) * _stat_view(inv_std, g)
    x_hat = x_hat.reshape(x.shape)
    dscale = (dy * x_hat).sum(axis=others) if scale is not None else None
    dbias = dy.sum(axis=others) if bias is not None else None
    dxhat = _affine(dy, scale, None, axis)
    dx = _reduce_grad(_grouped(dxhat, groups, data_layout)[0],
                      _grouped(x_hat, groups, data_layout)[0],
                      _stat_view(inv_std, g), axes)
    return dx.reshape(x.shape), dscale, dbias


# -- instance_norm -----------------------------------------------------------------------------
instance_norm = register_op("instance_norm", inputs=["X", "Scale?", "Bias?"],
                            outputs=["Y", "SavedMean", "SavedVariance"],
                            extra_outputs=["SavedMean", "SavedVariance"],
                            attrs={"epsilon": 1e-5})


@instance_norm.def_infer_shape
def instance_norm_shape(x: Meta, scale=None, bias=None, **_):
    if not 2 <= len(x.shape) <= 5:
        raise ValueError(f"ShapeError: the dimension of input X must greater than or equal to 2 "
                         f"and less than or equal to 5. But received: the shape of input X = "
                         f"{list(x.shape)}, the dimension of input X = {len(x.shape)}")
    n, c = x.shape[:2]
    for slot, m in (("Scale", scale), ("Bias", bias)):
        if m is not None and (len(m.shape) != 1 or -1 not in (c, m.shape[0]) and m.shape[0] != c):
            raise ValueError(f"ShapeError: the shape of Input({slot}) of instance_norm must be "
                             f"[C] = [{c}] (X {list(x.shape)}), but received {list(m.shape)}")
    stats = Meta((-1 if -1 in (n, c) else n * c,), x.dtype)
    return x, stats, stats


@instance_norm.def_kernel
def instance_norm_kernel(x, scale=None, bias=None, *, epsilon):
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    inv_std = 1 / np.sqrt(np.square(centered).mean(axis=axes, keepdims=True)
                          + x.dtype.type(epsilon))
    y = _affine(centered * inv_std, scale, bias, 1)
    return y, mean.reshape(-1), inv_std.reshape(-1)


@instance_norm.def_grad
def instance_norm_grad(x, scale, savedmean, savedvariance, dy, *, epsilon):
    axes = tuple(range(2, x.ndim))
    stat_shape = x.shape[:2] + (1,) * (x.ndim - 2)
    inv_std = savedvariance.reshape(stat_shape)
    x_hat = (x - savedmean.reshape(stat_shape)) * inv_std
    others = (0,) + axes
    dscale = (dy * x_hat).sum(axis=others)
    dbias = dy.sum(axis=others)
    dx = _reduce_grad(_affine(dy, scale, None, 1), x_hat, inv_std, axes)
    return dx, dscale, dbias
