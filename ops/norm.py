"""batch_norm and layer_norm, with Paddle's outputs: batch_norm's SavedVariance holds the
inverse standard deviation 1/sqrt(var + eps), layer_norm's Variance the plain variance."""
from __future__ import annotations

import math

import numpy as np

from .registry import EMPTY_VAR, OpDef, grad_name, register, register_op
from .types import Meta

# -- batch_norm ------------------------------------------------------------------------------
BN_ATTRS = {"momentum": 0.9, "epsilon": 1e-5, "data_layout": "NCHW", "is_test": False,
            "use_global_stats": False, "trainable_statistics": False}

batch_norm = register_op(
    "batch_norm", inputs=["X", "Scale?", "Bias?", "Mean", "Variance", "MomentumTensor?"],
    outputs=["Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace"],
    extra_outputs=["ReserveSpace"], attrs=BN_ATTRS)


def _channel_axis(ndim: int, data_layout: str) -> int:
    if data_layout not in ("NCHW", "NHWC", "AnyLayout"):
        raise ValueError(f"op 'batch_norm': data_layout must be 'NCHW' or 'NHWC', received "
                         f"{data_layout!r}")
    return ndim - 1 if data_layout == "NHWC" or ndim == 2 else 1


@batch_norm.def_infer_shape
def batch_norm_shape(x: Meta, scale: Meta, bias: Meta, mean: Meta, variance: Meta,
                     momentum_tensor=None, *, data_layout, **_):
    if not 2 <= len(x.shape) <= 5:
        raise ValueError(f"ShapeError: the dimension of input X must greater than or equal to "
                         f"2 and less than or equal to 5. But received: the shape of input X = "
                         f"{list(x.shape)}, the dimension of input X = {len(x.shape)}")
    c = x.shape[_channel_axis(len(x.shape), data_layout)]
    for slot, m in (("Scale", scale), ("Bias", bias), ("Mean", mean), ("Variance", variance)):
        if m is None:
            continue
        if len(m.shape) != 1 or (c != -1 and m.shape[0] not in (c, -1)):
            raise ValueError(f"ShapeError: the shape of Input({slot}) must be [C] = [{c}] (the "
                             f"channels of X {list(x.shape)} with data_layout {data_layout}), "
                             f"but received {list(m.shape)}")
    stats = Meta((c if c != -1 else mean.shape[0],), mean.dtype)
    return x, stats, stats, stats, stats, None


def _affine_or_identity(scale, bias, like):
    """Scale and Bias are dispensable in Paddle: absent, they are ones and zeros."""
    return (np.ones_like(like) if scale is None else scale,
            np.zeros_like(like) if bias is None else bias)


def _stat_shape(x, axis):
    return tuple(x.shape[axis] if i == axis else 1 for i in range(x.ndim))


def _channel_sums(a, axis, reduce):
    """Per-channel sums; of NCHW-like arrays as one matrix-vector product per image
    (BLAS: one pass, three times NumPy's reduction over the outer axes)."""
    if axis != 1 or a.ndim < 3:
        return a.sum(axis=reduce)
    a3 = a.reshape(a.shape[0], a.shape[1], -1)
    return (a3 @ np.ones(a3.shape[2], a.dtype)).sum(axis=0)


def _channel_dots(a, b, axis, reduce):
    """Per-channel sums of ``a * b`` without the product array (batched dot products)."""
    if axis != 1 or a.ndim < 3:
        return (a * b).sum(axis=reduce)
    n, c = a.shape[:2]
    a4, b4 = a.reshape(n, c, 1, -1), b.reshape(n, c, -1, 1)
    return (a4 @ b4).reshape(n, c).sum(axis=0)


def _use_global_stats(is_test, use_global_stats, trainable_statistics):
    return (is_test and not trainable_statistics) or use_global_stats


@batch_norm.def_kernel
def batch_norm_kernel(x, scale, bias, mean, variance, momentum_tensor=None, *, momentum, epsilon,
                      data_layout, is_test, use_global_stats, trainable_statistics):
    axis = _channel_axis(x.ndim, data_layout)
    shape = _stat_shape(x, axis)
    reduce = tuple(i for i in range(x.ndim) if i != axis)
    eps = x.dtype.type(epsilon)
    scale, bias = _affine_or_identity(scale, bias, mean)
    if _use_global_stats(is_test, use_global_stats, trainable_statistics):
        inv_std = 1 / np.sqrt(variance + eps)
        y = (x - mean.reshape(shape)) * (scale * inv_std).reshape(shape) + bias.reshape(shape)
        zeros = np.zeros_like(mean)
        return y, mean.copy(), variance.copy(), zeros, zeros.copy(), None
    if x.size == x.shape[axis]:  # one value per channel: Paddle passes x through
        zeros = np.zeros_like(mean)
        return x.copy(), mean.copy(), variance.copy(), zeros, zeros.copy(), None
    m = x.dtype.type(x.size // x.shape[axis])
    saved_mean = _channel_sums(x, axis, reduce) / m
    centered = x - saved_mean.reshape(shape)
    saved_var = _channel_dots(centered, centered, axis, reduce) / m
    mom = (momentum_tensor.reshape(()) if momentum_tensor is not None else momentum)
    mom = mean.dtype.type(mom)
    mean_out = mean * mom + saved_mean * (1 - mom)
    variance_out = variance * mom + saved_var * (1 - mom)
    inv_std = 1 / np.sqrt(saved_var + eps)
    y = np.multiply(centered, (scale * inv_std).reshape(shape), out=centered)
    y += bias.reshape(shape)
    return y, mean_out, variance_out, saved_mean, inv_std, None


batch_norm_grad = register(OpDef(
    "batch_norm_grad",
    inputs=["X", "Scale?", "Bias?", "Mean?", "Variance?", "SavedMean", "SavedVariance",
            "ReserveSpace?", "Y@GRAD"],
    outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"], attrs=BN_ATTRS, differentiable=False))
batch_norm_grad.forward = batch_norm


@batch_norm_grad.def_kernel
def batch_norm_grad_kernel(x, scale, bias, mean, variance, saved_mean, saved_inv_std,
                           reserve_space, dy, *, epsilon, data_layout, is_test,
                           use_global_stats):
    axis = _channel_axis(x.ndim, data_layout)
    shape = _stat_shape(x, axis)
    reduce = tuple(i for i in range(x.ndim) if i != axis)
    global_stats = is_test or use_global_stats
    if global_stats:
        mu, inv_std = mean, 1 / np.sqrt(variance + x.dtype.type(epsilon))
    else:
        mu, inv_std = saved_mean, saved_inv_std
    x_hat = np.subtract(x, mu.reshape(shape))
    x_hat *= inv_std.reshape(shape)
    scale, _ = _affine_or_identity(scale, bias, saved_mean)
    dbias = _channel_sums(dy, axis, reduce)
    dscale = _channel_dots(dy, x_hat, axis, reduce)
    gain = (scale * inv_std).reshape(shape)
    if global_stats:
        dx = dy * gain
    else:   # gain * (dy - dbias / m - x_hat * dscale / m), in x_hat's buffer
        m = x.dtype.type(x.size // x.shape[axis])
        dx = np.multiply(x_hat, (dscale / m).reshape(shape), out=x_hat)
        np.subtract(dy, dx, out=dx)
        dx -= (dbias / m).reshape(shape)
        dx *= gain
    return dx, dscale, dbias


@batch_norm.def_grad_maker
def batch_norm_grad_maker(op, no_grad_names: set) -> list[dict]:
    """Paddle's BatchNormGradMaker: Mean/Variance feed the grad op only with global stats."""
    inputs = {"X": op.input("X"), "Scale": op.input("Scale"), "Bias": op.input("Bias"),
              "SavedMean": op.output("SavedMean"), "SavedVariance": op.output("SavedVariance"),
              "Y@GRAD": [grad_name(n) for n in op.output("Y")]}
    if op.output("ReserveSpace"):
        inputs["ReserveSpace"] = op.output("ReserveSpace")
    if op.attrs.get("use_global_stats") or op.attrs.get("is_test"):
        inputs["Mean"] = op.output("MeanOut")
        inputs["Variance"] = op.output("VarianceOut")
    outputs = {f"{slot}@GRAD": [EMPTY_VAR if grad_name(n) in no_grad_names else grad_name(n)
                                for n in op.input(slot)] for slot in ("X", "Scale", "Bias")}
    attrs = {k: v for k, v in op.attrs.items() if k in BN_ATTRS}
    return [{"type": "batch_norm_grad", "inputs": inputs, "outputs": outputs, "attrs": attrs}]


# -- layer_norm ------------------------------------------------------------------------------
layer_norm = register_op("layer_norm", inputs=["X", "Scale?", "Bias?"],
                         outputs=["Y", "Mean", "Variance"],
                         attrs={"epsilon": 1e-5, "begin_norm_axis": 1})


@layer_norm.def_infer_shape
def layer_norm_shape(x: Meta, scale=None, bias=None, *, begin_norm_axis, **_):
    if not 0 <= begin_norm_axis < len(x.shape):
        raise ValueError(f"'begin_norm_axis' in Op(LayerNorm) should be less than input "
                         f"dimension and not negative. But received: begin_norm_axis = "
                         f"{begin_norm_axis}, input dimension = {len(x.shape)} (X "
                         f"{list(x.shape)})")
    left, right = x.shape[:begin_norm_axis], x.shape[begin_norm_axis:]
    rows = -1 if -1 in left else int(np.prod(left))
    cols = -1 if -1 in right else int(np.prod(right))
    for slot, m in (("Scale", scale), ("Bias", bias)):
        if m is not None and cols != -1 and m.shape not in ((cols,), (-1,)):
            raise ValueError(f"ShapeError: Input({slot}) of layer_norm must have shape "
                             f"[{cols}] (the product of X's dims from begin_norm_axis="
                             f"{begin_norm_axis}, X {list(x.shape)}), but received "
                             f"{list(m.shape)}")
    stats = Meta((rows,), x.dtype)
    return x, stats, stats


@layer_norm.def_kernel
def layer_norm_kernel(x, scale=None, bias=None, *, epsilon, begin_norm_axis):
    rows = math.prod(x.shape[:begin_norm_axis])
    x2 = x.reshape(rows, -1)
    mean = x2.mean(axis=1)
    centered = x2 - mean[:, None]
    variance = np.square(centered).mean(axis=1)
    y = centered / np.sqrt(variance + x.dtype.type(epsilon))[:, None]
    if scale is not None:
        y = y * scale.reshape(1, -1)
    if bias is not None:
        y = y + bias.reshape(1, -1)
    return y.reshape(x.shape), mean, variance


@layer_norm.def_grad
def layer_norm_grad(x, scale, bias, mean, variance, dy, *, epsilon, begin_norm_axis):
    rows = math.prod(x.shape[:begin_norm_axis])
    x2, dy2 = x.reshape(rows, -1), dy.reshape(rows, -1)
    inv_std = (1 / np.sqrt(variance + x.dtype.type(epsilon)))[:, None]
    x_hat = (x2 - mean[:, None]) * inv_std
    dscale = (dy2 * x_hat).sum(axis=0) if scale is not None else None
    dbias = dy2.sum(axis=0) if bias is not None else None
    g = dy2 * scale.reshape(1, -1) if scale is not None else dy2
    dx = inv_std * (g - g.mean(axis=1, keepdims=True)
                    - x_hat * (g * x_hat).mean(axis=1, keepdims=True))
    return dx.reshape(x.shape), dscale, dbias
