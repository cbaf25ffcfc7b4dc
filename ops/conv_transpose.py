"""conv2d_transpose, depthwise_conv2d_transpose and conv3d_transpose: the adjoint of
convolution. Per group, the transposed filter matrix (Cout/g*prod(K), Cin/g) times the input
gives the columns, which col2im sums into the (padded) output; the gradient reuses the im2col
view of the output gradient for both the input (filter matrix times columns) and the filter
(input times columns).

Filters are [Cin, Cout/groups, *kernel] (2 or 3 spatial dims, the same code). The output size
is Paddle's (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1, plus
output_padding, or output_size when given (which must lie in [that size, that size + stride)).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .conv import _batched_matmul
from .registry import register_op
from .types import AttrType, Meta
from .windows import (col2im_nd, crop_spatial, from_channel_first, im2col_nd,
                      pad_spatial, resolve_padding, to_channel_first)

CONV_TRANSPOSE_ATTRS = {
    "strides": (AttrType.INTS, [1, 1]),
    "paddings": (AttrType.INTS, [0, 0]),
    "output_padding": (AttrType.INTS, []),
    "output_size": (AttrType.INTS, []),
    "padding_algorithm": "EXPLICIT",
    "groups": 1,
    "dilations": (AttrType.INTS, [1, 1]),
    "data_format": "NCHW",
}
# Paddle declares conv3d_transpose's data_format default "NCHW" too, and paddle.nn.functional
# passes "NCHW" / "NHWC" for 5-D inputs.
CONV3D_TRANSPOSE_ATTRS = {**CONV_TRANSPOSE_ATTRS, "strides": (AttrType.INTS, [1, 1, 1]),
                          "paddings": (AttrType.INTS, [0, 0, 0]),
                          "dilations": (AttrType.INTS, [1, 1, 1])}
_LAYOUTS = ("NCHW", "NHWC", "NCDHW", "NDHWC", "AnyLayout")


def channel_last_layout(op_type: str, data_format: str) -> bool:
    """Paddle's transposed-conv kernels read NHWC and NDHWC as channel-last whatever the rank."""
    if data_format not in _LAYOUTS:
        raise ValueError(f"op '{op_type}': data_format must be one of {list(_LAYOUTS[:4])}, "
                         f"received {data_format!r}")
    return data_format in ("NHWC", "NDHWC")


class _Geometry(NamedTuple):
    pads: list
    dilations: list
    out_size: tuple


def transposed_geometry(op_type, in_size, ksize, *, strides, paddings, padding_algorithm,
                        dilations, output_padding, output_size, **_) -> _Geometry:
    """Paddle's ConvTransposeInferMeta for the spatial dims (-1 stays unknown)."""
    n = len(in_size)
    if len(strides) != n or min(strides) <= 0:
        raise ValueError(f"op '{op_type}': Attr(strides) must hold {n} positive values for a "
                         f"{n + 2}-D input, received {list(strides)}")
    for name, values in (("output_size", output_size), ("output_padding", output_padding)):
        if len(values) not in (0, n):
            raise ValueError(f"The Attr({name}) and Attr(stride) of Op({op_type}) should be "
                             f"the same (received {name}={list(values)}, "
                             f"strides={list(strides)}).")
    pads, dil = resolve_padding(op_type, in_size, ksize, strides, paddings, padding_algorithm,
                                dilations)
    out = []
    for i, size in enumerate(in_size):
        extent = dil[i] * (ksize[i] - 1) + 1
        infer = -1 if size < 0 else (size - 1) * strides[i] - pads[2 * i] - pads[2 * i + 1] \
            + extent
        if output_size:
            target = int(output_size[i])
            if infer != -1 and not infer <= target < infer + strides[i]:
                raise ValueError(
                    f"op '{op_type}': output_size {list(output_size)} dim {i} must lie in "
                    f"[{infer}, {infer + strides[i]}): at least the inferred output size "
                    f"{infer} and less than it plus the stride {strides[i]}")
            out.append(target)
        elif output_padding:
            extra = int(output_padding[i])
            if not 0 <= extra < max(strides[i], dil[i]):
                raise ValueError(
                    f"op '{op_type}': output_padding {list(output_padding)} dim {i} must be >= 0 "
                    f"and less than either stride ({strides[i]}) or dilation ({dil[i]})")
            out.append(-1 if infer == -1 else infer + extra)
        else:
            out.append(infer)
        if out[-1] == 0 or out[-1] < -1:
            raise ValueError(f"op '{op_type}': the output size {out} must be positive (input "
                             f"{list(in_size)}, kernel {list(ksize)}, strides {list(strides)}, "
                             f"paddings {pads}, dilations {dil})")
    return _Geometry(pads, dil, tuple(out))


def _shape(op_type: str):
    def infer(inp: Meta, filt: Meta, bias=None, *, groups, data_format, **attrs):
        if len(inp.shape) not in (4, 5):
            raise ValueError(f"Input of Op({op_type}) should be 4-D or 5-D Tensor. But "
                             f"received: {len(inp.shape)}-D Tensor, the shape of input is "
                             f"{list(inp.shape)}")
        if len(filt.shape) != len(inp.shape):
            raise ValueError(f"The input's dimension size and filter's dimension size of Op "
                             f"({op_type}) should be equal. But received: the shape of input is "
                             f"{list(inp.shape)}, the shape of filter is {list(filt.shape)}.")
        channel_last = channel_last_layout(op_type, data_format)
        c = inp.shape[-1 if channel_last else 1]
        if -1 not in (c, filt.shape[0]) and c != filt.shape[0]:
            raise ValueError(f"The number of input channels should be equal to filter channels "
                             f"for Op({op_type}). But received: the input's channels is [{c}], "
                             f"the shape of input is {list(inp.shape)}, the filter's channels "
                             f"is [{filt.shape[0]}], the shape of filter is "
                             f"{list(filt.shape)}. The data_format is {data_format}.The error "
                             f"may come from wrong data_format setting.")
        if groups <= 0 or (c > 0 and c % groups):
            raise ValueError(f"op '{op_type}': groups ({groups}) must be positive and divide "
                             f"the input channels ({c})")
        spatial = inp.shape[1:-1] if channel_last else inp.shape[2:]
        geo = transposed_geometry(op_type, spatial, filt.shape[2:], **attrs)
        oc = -1 if filt.shape[1] < 0 else filt.shape[1] * groups
        return Meta((inp.shape[0], *geo.out_size, oc) if channel_last
                    else (inp.shape[0], oc, *geo.out_size), inp.dtype)
    return infer


def _prepare(op_type, x, filt, attrs):
    channel_last = channel_last_layout(op_type, attrs["data_format"])
    x = to_channel_first(x, channel_last)
    geo = transposed_geometry(op_type, x.shape[2:], filt.shape[2:], **attrs)
    return x, geo, channel_last


def _group_input(x, groups):
    """(groups, Cin/g, N*prod(S)) matrices of a channel-first input."""
    return np.moveaxis(x, 1, 0).reshape(groups, x.shape[1] // groups, -1)


def conv_transpose_forward(op_type, x, filt, *, groups, **attrs):
    x, geo, channel_last = _prepare(op_type, x, filt, attrs)
    ksize, strides, oc = filt.shape[2:], attrs["strides"], filt.shape[1] * groups
    wmat = filt.reshape(groups, filt.shape[0] // groups, -1)
    cols = _batched_matmul(wmat.transpose(0, 2, 1), _group_input(x, groups))
    cols = cols.reshape((oc,) + ksize + (x.shape[0],) + x.shape[2:])
    padded = tuple(max((s - 1) * t + d * (k - 1) + 1, geo.pads[2 * i] + o)
                   for i, (s, t, d, k, o) in enumerate(zip(x.shape[2:], strides, geo.dilations,
                                                           ksize, geo.out_size)))
    out = crop_spatial(col2im_nd(cols, padded, strides, geo.dilations), geo.pads, geo.out_size)
    return np.ascontiguousarray(from_channel_first(np.moveaxis(out, 0, 1), channel_last))


def conv_transpose_backward(op_type, x, filt, dout, *, groups, wanted=(True, True), **attrs):
    x, geo, channel_last = _prepare(op_type, x, filt, attrs)
    dout = to_channel_first(dout, channel_last)
    ksize, strides = filt.shape[2:], attrs["strides"]
    cols = im2col_nd(pad_spatial(dout, geo.pads), ksize, strides, geo.dilations, x.shape[2:])
    cols = cols.reshape(groups, -1, x.shape[0] * int(np.prod(x.shape[2:])))
    wmat = filt.reshape(groups, filt.shape[0] // groups, -1)
    dx = dfilt = None
    if wanted[0]:
        dx = _batched_matmul(wmat, cols).reshape((x.shape[1], x.shape[0]) + x.shape[2:])
        dx = np.ascontiguousarray(from_channel_first(np.moveaxis(dx, 0, 1), channel_last))
    if wanted[1]:
        dfilt = _batched_matmul(_group_input(x, groups), cols.transpose(0, 2, 1))
        dfilt = dfilt.reshape(filt.shape).astype(filt.dtype, copy=False)
    return dx, dfilt


def _register(op_type: str, attrs: dict = CONV_TRANSPOSE_ATTRS, bias_slot: bool = True):
    # Bias is Paddle's extra (oneDNN-only) input of the 2-D ops (conv3d_transpose has none):
    # accepted, unused on CPU as in Paddle.
    extra = ["Bias?"] if bias_slot else []
    op = register_op(op_type, inputs=["Input", "Filter", *extra], outputs=["Output"],
                     attrs=attrs, infer_shape=_shape(op_type), no_grad=["Bias"][:len(extra)],
                     fresh_outputs=True)

    @op.def_kernel
    def kernel(x, filt, bias=None, **attrs):
        return conv_transpose_forward(op_type, x, filt, **attrs)

    @op.def_grad
    def grad(input, filter, doutput, *, strides, paddings, output_padding, output_size,
             padding_algorithm, groups, dilations, data_format, wanted=(True, True)):
        dx, dfilt = conv_transpose_backward(
            op_type, input, filter, doutput, strides=strides, paddings=paddings,
            output_padding=output_padding, output_size=output_size,
            padding_algorithm=padding_algorithm, groups=groups, dilations=dilations,
            data_format=data_format, wanted=wanted[:2])
        return (dx, dfilt, None)[:2 + len(extra)]

    kernel.__name__, grad.__name__ = f"{op_type}_kernel", f"{op_type}_grad"
    return op


conv2d_transpose = _register("conv2d_transpose")
depthwise_conv2d_transpose = _register("depthwise_conv2d_transpose")
conv3d_transpose = _register("conv3d_transpose", CONV3D_TRANSPOSE_ATTRS, bias_slot=False)
