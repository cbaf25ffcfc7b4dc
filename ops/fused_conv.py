"""Paddle's inference op ``fused_conv2d`` (its oneDNN convolution with a bias, a residual
input and an activation fused in), which framework/passes/fuse_conv.py puts in place of
``conv2d``/``depthwise_conv2d`` -> ``elementwise_add`` (bias) [-> ``elementwise_add``
(residual)] [-> activation] chains.

``Output = act(conv(Input, Filter) + Bias + ResidualData)``, computed in the order of the
chain it replaces: the convolution's fresh result takes the bias add, the residual add and
the activation in place, so the values are those of the unfused ops, bit for bit.
"""
from __future__ import annotations

import numpy as np

from .activation import activate_into, relu_in_place
from .conv import CONV_ATTRS, _conv_shape
from .conv_grid import GridIm2col
from .conv_kernels import Im2col, Pointwise, forward, kernel_lookup
from .conv_products import FEW_ROWS
from .depthwise import LONG_ROWS, run_rows, unbuffered
from .registry import get_op, register_op
from .types import Meta
from .windows import check_layout
from .winograd import TILES, Winograd, tile_of, transform_filter

FUSED_CONV_ATTRS = {**CONV_ATTRS, "mkldnn_data_type": "float32", "fuse_activation": "",
                    "fuse_residual_connection": False, "force_fp32_output": False,
                    "use_mkldnn": True, "fuse_alpha": 0.0, "fuse_beta": 0.0}

fused_conv2d = register_op(
    "fused_conv2d", inputs=["Input", "Filter", "Bias?", "ResidualData?"], outputs=["Output"],
    attrs=FUSED_CONV_ATTRS, differentiable=False, fresh_outputs=True)


def activation(name: str, alpha: float, beta: float, op_type: str = "fused_conv2d"):
    """An in-place ``act(out)`` computing what the activation op computes (oneDNN's
    ``fuse_alpha``/``fuse_beta`` carry its parameter: relu6's threshold in beta (0: 6),
    leaky_relu's alpha in alpha); None for no activation."""
    if name == "":
        return None
    if name == "relu":
        return relu_in_place
    if name == "relu6":
        threshold = beta or 6.0
        return lambda out: np.clip(out, out.dtype.type(0), out.dtype.type(threshold), out=out)
    if name == "leaky_relu":
        kernel = get_op("leaky_relu").kernel
        return lambda out: kernel(out, alpha=alpha)
    if name == "hard_swish":
        kernel = get_op("hard_swish").kernel
        return lambda out: kernel(out, threshold=6.0, scale=6.0, offset=3.0)
    raise ValueError(f"op '{op_type}': fuse_activation {name!r} is not supported; expected "
                     f"'', 'relu', 'relu6', 'leaky_relu' or 'hard_swish'")


TILED_BIAS_FROM = 1 << 17      # channel-last output values from which the bias add is tiled


def epilogue(out: np.ndarray, bias, residual, act, channel_last: bool) -> np.ndarray:
    """``act(out + bias + residual)`` into ``out`` (a fresh NCHW/NHWC convolution result)."""
    if bias is not None:
        if channel_last and out.size < TILED_BIAS_FROM:
            out += bias.reshape(-1)
        elif channel_last:
            # the channels tiled over rows of several positions, unbuffered: faster than
            # NumPy's buffered broadcast of a C-long row on large outputs (3136 x 144: 79 ->
            # 48 us), 6 us slower on small ones
            out = np.ascontiguousarray(out)
            k = run_rows(out.size // max(1, bias.size), bias.size)
            runs = out.reshape(-1, k * bias.size)
            with unbuffered():
                np.add(runs, np.tile(bias.reshape(-1), k), out=runs)
        elif out.shape[2] * out.shape[3] >= LONG_ROWS:
            with unbuffered():
                out += bias.reshape(-1, 1, 1)
        else:
            out += bias.reshape(-1, 1, 1)
    if residual is not None:
        out += residual
    return out if act is None else act(out)


@fused_conv2d.def_infer_shape
def fused_conv2d_shape(inp: Meta, filt: Meta, bias=None, residual=None, **attrs):
    check_layout("fused_conv2d", attrs["data_format"])
    activation(attrs["fuse_activation"], attrs["fuse_alpha"], attrs["fuse_beta"])
    return _conv_shape("fused_conv2d")(inp, filt, **attrs)


@fused_conv2d.def_specialize
def fused_conv2d_kernel(*, strides, paddings, padding_algorithm, groups, dilations,
                        data_format, fuse_activation, fuse_alpha, fuse_beta, **_):
    channel_last = check_layout("fused_conv2d", data_format)
    lookup = kernel_lookup("fused_conv2d", strides, paddings, padding_algorithm, groups,
                           dilations, channel_last)
    act = activation(fuse_activation, fuse_alpha, fuse_beta)

    def run(x, filt, bias, residual):
        kernel = lookup(x, filt.shape)
        if channel_last and residual is None and _finishes_in_product(kernel):
            return kernel.forward_to_channel_last(x.transpose(0, 3, 1, 2), filt, bias, act)
        return epilogue(forward(kernel, x, filt, channel_last), bias, residual, act,
                        channel_last)

    return run


def _finishes_in_product(kernel) -> bool:
    """An im2col kernel writing NHWC (a channel-last network's stem) adds the bias in its
    product and applies the activation itself: per image while its output is in cache, or
    on the flat grid's whole output before its garbage columns are dropped (no copy of the
    cropped view)."""
    if isinstance(kernel, GridIm2col):
        return kernel.writes_channel_last and kernel.geo.n * kernel.grid > FEW_ROWS
    return (isinstance(kernel, Im2col) and kernel.writes_channel_last and kernel.per_image
            and kernel.geo.positions > FEW_ROWS)


@fused_conv2d.def_kernel
def fused_conv2d_plain(x, filt, bias, residual, **attrs):
    """The same, for callers that pass attributes (``OpDef.run`` always specializes)."""
    return fused_conv2d_kernel(**attrs)(x, filt, bias, residual)


# -- Winograd F(m x m, 3x3): pyfluid's own inference ops (framework/passes/conv_winograd.py) ------
winograd_filter = register_op("winograd_filter", inputs=["Filter"], outputs=["Output"],
                              attrs={"tile": 2}, differentiable=False, fresh_outputs=True)


def _check_tile(op_type: str, tile: int) -> None:
    if tile not in TILES:
        raise ValueError(f"op '{op_type}': tile must be one of {list(TILES)} (Winograd "
                         f"F(m x m, 3 x 3) output tiles), received {tile}")


@winograd_filter.def_infer_shape
def winograd_filter_shape(filt: Meta, *, tile):
    _check_tile("winograd_filter", tile)
    if len(filt.shape) != 4 or tuple(filt.shape[2:]) != (3, 3):
        raise ValueError(f"op 'winograd_filter': Filter must be [OC, C, 3, 3], received "
                         f"{list(filt.shape)}")
    return Meta(((tile + 2) ** 2, filt.shape[1], filt.shape[0]), filt.dtype)


@winograd_filter.def_kernel
def winograd_filter_kernel(filt, *, tile):
    """The ((tile + 2)^2, C, OC) transformed filter ``G g G^T`` of an OIHW 3x3 filter."""
    _check_tile("winograd_filter", tile)
    return transform_filter(filt, tile)


def _with_prepared_filter(op_type: str, slot: str, attr_names: tuple):
    """A fused convolution that also reads its filter prepared once (pyfluid's own op)."""
    return register_op(op_type, inputs=["Input", "Filter", slot, "Bias?", "ResidualData?"],
                       outputs=["Output"], attrs={k: FUSED_CONV_ATTRS[k] for k in attr_names},
                       differentiable=False, fresh_outputs=True)


_EPILOGUE_ATTRS = ("data_format", "fuse_activation", "fuse_alpha", "fuse_beta")
fused_conv2d_winograd = _with_prepared_filter(
    "fused_conv2d_winograd", "Transformed", ("paddings", "padding_algorithm", *_EPILOGUE_ATTRS))


@fused_conv2d_winograd.def_infer_shape
def fused_conv2d_winograd_shape(inp: Meta, filt: Meta, transformed: Meta, bias=None,
                                residual=None, **attrs):
    if (len(transformed.shape) != 3
            or tuple(transformed.shape[1:]) != (filt.shape[1], filt.shape[0])
            or transformed.shape[0] not in [(m + 2) ** 2 for m in TILES]):
        raise ValueError(f"op 'fused_conv2d_winograd': Transformed must be a [(m + 2)^2, C, OC] "
                         f"transform of Filter {list(filt.shape)} (op winograd_filter), "
                         f"received {list(transformed.shape)}")
    return fused_conv2d_shape(inp, filt, bias, residual, strides=[1, 1], dilations=[1, 1],
                              groups=1, **attrs)


@fused_conv2d_winograd.def_specialize
def fused_conv2d_winograd_kernel(*, paddings, padding_algorithm, data_format, fuse_activation,
                                 fuse_alpha, fuse_beta):
    """``act(conv(Input, Filter) + Bias + ResidualData)``, by Winograd F(m x m, 3x3) from the
    transformed filter where that pays for the input's shape, else by Filter's kernel."""
    channel_last = check_layout("fused_conv2d_winograd", data_format)
    lookups = {m: kernel_lookup("fused_conv2d_winograd", (1, 1), paddings, padding_algorithm, 1,
                                (1, 1), channel_last, transformed=m) for m in TILES}
    act = activation(fuse_activation, fuse_alpha, fuse_beta, "fused_conv2d_winograd")

    def run(x, filt, transformed, bias, residual):
        kernel = lookups[tile_of(transformed)](x, filt.shape)
        out = forward(kernel, x, transformed if isinstance(kernel, Winograd) else filt,
                      channel_last)
        return epilogue(out, bias, residual, act, channel_last)

    return run


@fused_conv2d_winograd.def_kernel
def fused_conv2d_winograd_plain(x, filt, transformed, bias, residual, **attrs):
    return fused_conv2d_winograd_kernel(**attrs)(x, filt, transformed, bias, residual)


# -- NHWC pointwise with a hoisted filter transpose (framework/passes/pointwise_transposed.py) --
pointwise_filter_transpose = register_op(
    "pointwise_filter_transpose", inputs=["Filter"], outputs=["Output"],
    differentiable=False, fresh_outputs=True)


@pointwise_filter_transpose.def_infer_shape
def pointwise_filter_transpose_shape(filt: Meta):
    if len(filt.shape) != 4 or tuple(filt.shape[2:]) != (1, 1):
        raise ValueError(f"op 'pointwise_filter_transpose': Filter must be [OC, C, 1, 1], "
                         f"received {list(filt.shape)}")
    return Meta((filt.shape[1], filt.shape[0]), filt.dtype)


@pointwise_filter_transpose.def_kernel
def pointwise_filter_transpose_kernel(filt):
    """The (C, OC) contiguous transpose of a 1x1 filter."""
    return np.ascontiguousarray(filt.reshape(filt.shape[0], -1).T)


# NHWC expanding 1x1 layers (OC >= 2 C) with a bias, from this many positions: the bias is
# added by the product, in blocks of positions (see _expand_with_bias)
BIAS_COLUMN_ROWS, BIAS_COLUMN_BLOCK = 1024, 8192


def _adds_bias_by_product(kernel, x, bias, residual) -> bool:
    g = kernel.geo
    return (bias is not None and residual is None and g.strides == (1, 1)
            and g.oc >= 2 * g.c and g.n * g.positions >= BIAS_COLUMN_ROWS
            and x.flags.c_contiguous and x.dtype == bias.dtype == np.float32)


def _expand_with_bias(x, transposed, bias, act):
    """``act(rows @ transposed + bias)`` for the NHWC positions (rows) of an expanding 1x1
    layer: blocks of rows are copied next to a column of ones and multiplied by the filter
    with the bias as its last row, so the product adds the bias, and each block's activation
    runs while it is in cache. An expanding layer's output is several times its input: a
    separate bias pass over it costs more than the copy (measured: MobileNetV2's first
    expansion, 8 x 112 x 112 x 16 -> 96, 9.2 -> 6.9 ms; 6272 x 32 -> 192, 1.17 -> 1.05 ms;
    a projection, 6272 x 144 -> 32, 0.73 -> 0.78 ms, is left alone)."""
    rows = x.reshape(-1, x.shape[-1])
    c = rows.shape[1]
    weights = np.concatenate([transposed, bias.reshape(1, -1)])
    out = np.empty((len(rows), weights.shape[1]), np.float32)
    block = np.empty((min(BIAS_COLUMN_BLOCK, len(rows)), c + 1), np.float32)
    block[:, c] = 1
    for start in range(0, len(rows), len(block)):
        part = out[start:start + len(block)]
        block[:len(part), :c] = rows[start:start + len(part)]
        np.matmul(block[:len(part)], weights, out=part)
        if act is not None:
            activate_into(act, part)
    return out.reshape(*x.shape[:-1], -1)


fused_conv2d_pointwise = _with_prepared_filter(
    "fused_conv2d_pointwise", "Transposed",
    ("strides", "paddings", "padding_algorithm", "dilations", *_EPILOGUE_ATTRS))


@fused_conv2d_pointwise.def_infer_shape
def fused_conv2d_pointwise_shape(inp: Meta, filt: Meta, transposed: Meta, bias=None,
                                 residual=None, **attrs):
    if tuple(transposed.shape) != (filt.shape[1], filt.shape[0]):
        raise ValueError(f"op 'fused_conv2d_pointwise': Transposed must be the [C, OC] "
                         f"transpose of Filter {list(filt.shape)} (op "
                         f"pointwise_filter_transpose), received {list(transposed.shape)}")
    return fused_conv2d_shape(inp, filt, bias, residual, groups=1, **attrs)


@fused_conv2d_pointwise.def_specialize
def fused_conv2d_pointwise_kernel(*, strides, paddings, padding_algorithm, dilations,
                                  data_format, fuse_activation, fuse_alpha, fuse_beta):
    """``act(conv(Input, Filter) + Bias + ResidualData)`` for a 1x1 filter of one group:
    channel last, the positions times the transposed filter; else by Filter's kernel."""
    channel_last = check_layout("fused_conv2d_pointwise", data_format)
    lookup = kernel_lookup("fused_conv2d_pointwise", strides, paddings, padding_algorithm, 1,
                           dilations, channel_last)
    act = activation(fuse_activation, fuse_alpha, fuse_beta, "fused_conv2d_pointwise")

    def run(x, filt, transposed, bias, residual):
        kernel = lookup(x, filt.shape)
        if channel_last and isinstance(kernel, Pointwise) and kernel.channel_last_native:
            if _adds_bias_by_product(kernel, x, bias, residual):
                return _expand_with_bias(x, transposed, bias, act)
            out = kernel.forward_channel_last(x, filt, transposed)
        else:
            out = forward(kernel, x, filt, channel_last)
        return epilogue(out, bias, residual, act, channel_last)

    return run


@fused_conv2d_pointwise.def_kernel
def fused_conv2d_pointwise_plain(x, filt, transposed, bias, residual, **attrs):
    return fused_conv2d_pointwise_kernel(**attrs)(x, filt, transposed, bias, residual)
