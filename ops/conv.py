"""conv2d, depthwise_conv2d and conv3d. The 2-D kernels (pointwise products, im2col, direct
depthwise, chosen per layer shape) live in ops/conv_kernels.py; conv3d is the filter matrix
times im2col (a strided view, copied once into a (C*KD*KH*KW, N*OD*OH*OW) matrix), batched
over groups, its gradient the transposed matmuls and col2im."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .conv_kernels import conv_kernel, forward, geometry, kernel_lookup
from .registry import register_op
from .types import AttrType, Meta
from .windows import (check_layout, check_layout_nd, col2im_nd, conv_out_size, crop_spatial,
                      from_channel_first, im2col_nd, pad_spatial, resolve_padding,
                      to_channel_first, to_nchw)

CONV_ATTRS = {
    "strides": (AttrType.INTS, [1, 1]),
    "paddings": (AttrType.INTS, [0, 0]),
    "padding_algorithm": "EXPLICIT",
    "groups": 1,
    "dilations": (AttrType.INTS, [1, 1]),
    "data_format": "NCHW",
}


def _conv_shape(op_type, n_spatial: int = 2):
    """Paddle's ConvInferMeta for ``n_spatial`` spatial dims (-1 dims stay unknown)."""
    rank = n_spatial + 2

    def infer(inp: Meta, filt: Meta, *, strides, paddings, padding_algorithm, groups, dilations,
              data_format, **_):
        channel_last = check_layout_nd(op_type, data_format, n_spatial)
        if len(inp.shape) != rank or len(filt.shape) != rank:
            raise ValueError(
                f"The input's dimension and filter's dimension of Op({op_type}) should be equal "
                f"({rank} for {op_type}). But received: the input's shape is {list(inp.shape)}, "
                f"the filter's shape is {list(filt.shape)}.")
        n, c = inp.shape[0], inp.shape[-1 if channel_last else 1]
        spatial = inp.shape[1:-1] if channel_last else inp.shape[2:]
        oc, cg = filt.shape[:2]
        if groups <= 0 or len(strides) != n_spatial or min(strides) <= 0:
            raise ValueError(f"Op({op_type}) needs groups > 0 and {n_spatial} positive strides, "
                             f"but received groups={groups}, strides={list(strides)}")
        if c != -1 and cg != -1 and c != cg * groups:
            raise ValueError(
                f"The number of input's channels should be equal to filter's channels * groups "
                f"for Op({op_type}). But received: the input's channels is {c}, the input's "
                f"shape is {list(inp.shape)}; the filter's channels is {cg}, the filter's shape "
                f"is {list(filt.shape)}; the groups is {groups}, the data_format is "
                f"{data_format}. The error may come from wrong data_format setting.")
        if oc != -1 and oc % groups:
            raise ValueError(
                f"The number of output's channels (filter's first dimension) of Op({op_type}) "
                f"should be divided by groups. But received: the output channels is {oc}, the "
                f"filter's shape is {list(filt.shape)}, the groups is {groups}.")
        pads, dil = resolve_padding(op_type, spatial, filt.shape[2:], strides, paddings,
                                    padding_algorithm, dilations)
        out = tuple(conv_out_size(op_type, spatial[i], filt.shape[2 + i], dil[i], pads[2 * i],
                                  pads[2 * i + 1], strides[i]) for i in range(n_spatial))
        return Meta((n, *out, oc) if channel_last else (n, oc, *out), inp.dtype)
    return infer


def _kernel_for(op_type, x, filt, strides, paddings, padding_algorithm, groups, dilations,
                data_format):
    """(channel_last, kernel object) for these shapes: ops/conv_kernels.py picks the kernel
    once per layer shape (pointwise product, im2col, or direct depthwise)."""
    channel_last = check_layout(op_type, data_format)
    shape = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if channel_last else x.shape
    geo = geometry(op_type, tuple(shape), filt.shape, tuple(strides), tuple(paddings),
                   padding_algorithm, tuple(dilations), groups)
    return channel_last, conv_kernel(geo)


def conv2d_forward(x, filt, *, strides, paddings, padding_algorithm, groups, dilations,
                   data_format, op_type="conv2d"):
    """Convolution of an NCHW/NHWC ``x`` with an OIHW ``filt``."""
    channel_last, kernel = _kernel_for(op_type, x, filt, strides, paddings, padding_algorithm,
                                       groups, dilations, data_format)
    return forward(kernel, x, filt, channel_last)


def conv2d_backward(x, filt, dout, *, strides, paddings, padding_algorithm, groups, dilations,
                    data_format, op_type="conv2d", wanted=(True, True)):
    """Gradients (d_input, d_filter) of :func:`conv2d_forward`; an unwanted one is None."""
    channel_last, kernel = _kernel_for(op_type, x, filt, strides, paddings, padding_algorithm,
                                       groups, dilations, data_format)
    dx, dfilt = kernel.backward(to_nchw(x, channel_last), filt, to_nchw(dout, channel_last),
                                wanted)
    if dx is not None and channel_last:
        dx = np.ascontiguousarray(dx.transpose(0, 2, 3, 1))
    return dx, None if dfilt is None else dfilt.astype(filt.dtype, copy=False)


def _specialized(op_type, strides, paddings, padding_algorithm, groups, dilations,
                 data_format):
    """The forward kernel for one op's attributes, its kernel object memoized per shape."""
    channel_last = check_layout(op_type, data_format)
    lookup = kernel_lookup(op_type, strides, paddings, padding_algorithm, groups, dilations,
                           channel_last)

    def run(x, filt):
        return forward(lookup(x, filt.shape), x, filt, channel_last)

    run.__name__ = f"{op_type}_kernel"
    return run


def _register(op_type: str):
    op = register_op(op_type, inputs=["Input", "Filter"], outputs=["Output"], attrs=CONV_ATTRS,
                     infer_shape=_conv_shape(op_type), fresh_outputs=True)

    @op.def_kernel
    def kernel(x, filt, *, strides, paddings, padding_algorithm, groups, dilations, data_format):
        return conv2d_forward(x, filt, strides=strides, paddings=paddings,
                              padding_algorithm=padding_algorithm, groups=groups,
                              dilations=dilations, data_format=data_format, op_type=op_type)

    @op.def_grad
    def grad(input, filter, doutput, *, strides, paddings, padding_algorithm, groups, dilations,
             data_format, wanted=(True, True)):
        return conv2d_backward(input, filter, doutput, strides=strides, paddings=paddings,
                               padding_algorithm=padding_algorithm, groups=groups,
                               dilations=dilations, data_format=data_format, op_type=op_type,
                               wanted=wanted)

    @op.def_specialize
    def specialize(*, strides, paddings, padding_algorithm, groups, dilations, data_format):
        return _specialized(op_type, strides, paddings, padding_algorithm, groups, dilations,
                            data_format)

    kernel.__name__, grad.__name__ = f"{op_type}_kernel", f"{op_type}_grad"
    return op


conv2d = _register("conv2d")
depthwise_conv2d = _register("depthwise_conv2d")


# -- conv3d: the same scheme over three spatial dims --------------------------------------------
CONV3D_ATTRS = {
    "strides": (AttrType.INTS, [1, 1, 1]),
    "paddings": (AttrType.INTS, [0, 0, 0]),
    "padding_algorithm": "EXPLICIT",
    "groups": 1,
    "dilations": (AttrType.INTS, [1, 1, 1]),
    "data_format": "NCDHW",
}


class _GeometryNd(NamedTuple):
    channel_last: bool
    pads: list
    dilations: list
    out_size: tuple


def _setup_nd(op_type, x, filt, strides, paddings, padding_algorithm, dilations, data_format):
    n_spatial = filt.ndim - 2
    channel_last = check_layout_nd(op_type, data_format, n_spatial)
    x = to_channel_first(x, channel_last)
    pads, dil = resolve_padding(op_type, x.shape[2:], filt.shape[2:], strides, paddings,
                                padding_algorithm, dilations)
    out = tuple(conv_out_size(op_type, x.shape[2 + i], filt.shape[2 + i], dil[i], pads[2 * i],
                              pads[2 * i + 1], strides[i]) for i in range(n_spatial))
    return x, _GeometryNd(channel_last, pads, dil, out)


def _batched_matmul(a, b):
    return (a[0] @ b[0])[None] if a.shape[0] == 1 else np.matmul(a, b)


def _columns_nd(x, ksize, strides, geo, groups):
    win = im2col_nd(pad_spatial(x, geo.pads), ksize, strides, geo.dilations, geo.out_size)
    return win.reshape(groups, -1, x.shape[0] * int(np.prod(geo.out_size)))


def conv_nd_forward(x, filt, *, strides, paddings, padding_algorithm, groups, dilations,
                    data_format, op_type):
    x, geo = _setup_nd(op_type, x, filt, strides, paddings, padding_algorithm, dilations,
                       data_format)
    oc = filt.shape[0]
    cols = _columns_nd(x, filt.shape[2:], strides, geo, groups)
    out = _batched_matmul(filt.reshape(groups, oc // groups, -1), cols)
    out = np.moveaxis(out.reshape((oc, x.shape[0]) + geo.out_size), 0, 1)
    return np.ascontiguousarray(from_channel_first(out, geo.channel_last))


def conv_nd_backward(x, filt, dout, *, strides, paddings, padding_algorithm, groups, dilations,
                     data_format, op_type, wanted=(True, True)):
    x, geo = _setup_nd(op_type, x, filt, strides, paddings, padding_algorithm, dilations,
                       data_format)
    oc, ksize = filt.shape[0], filt.shape[2:]
    dmat = np.moveaxis(to_channel_first(dout, geo.channel_last), 1, 0).reshape(
        groups, oc // groups, -1)
    dfilt = None
    if wanted[1]:
        cols = _columns_nd(x, ksize, strides, geo, groups)
        dfilt = _batched_matmul(dmat, cols.transpose(0, 2, 1)).reshape(filt.shape).astype(
            filt.dtype, copy=False)
    if not wanted[0]:
        return None, dfilt
    dcols = _batched_matmul(filt.reshape(groups, oc // groups, -1).transpose(0, 2, 1), dmat)
    dcols = dcols.reshape((x.shape[1],) + ksize + (x.shape[0],) + geo.out_size)
    padded = tuple(s + geo.pads[2 * i] + geo.pads[2 * i + 1] for i, s in enumerate(x.shape[2:]))
    dx = crop_spatial(col2im_nd(dcols, padded, strides, geo.dilations), geo.pads, x.shape[2:])
    return np.ascontiguousarray(from_channel_first(np.moveaxis(dx, 0, 1), geo.channel_last)), \
        dfilt


conv3d = register_op("conv3d", inputs=["Input", "Filter"], outputs=["Output"],
                     attrs=CONV3D_ATTRS, infer_shape=_conv_shape("conv3d", 3), fresh_outputs=True)


@conv3d.def_kernel
def conv3d_kernel(x, filt, *, strides, paddings, padding_algorithm, groups, dilations,
                  data_format):
    return conv_nd_forward(x, filt, strides=strides, paddings=paddings,
                           padding_algorithm=padding_algorithm, groups=groups,
                           dilations=dilations, data_format=data_format, op_type="conv3d")


@conv3d.def_grad
def conv3d_grad(input, filter, doutput, *, strides, paddings, padding_algorithm, groups,
                dilations, data_format, wanted=(True, True)):
    return conv_nd_backward(input, filter, doutput, strides=strides, paddings=paddings,
                            padding_algorithm=padding_algorithm, groups=groups,
                            dilations=dilations, data_format=data_format, op_type="conv3d",
                            wanted=wanted)
