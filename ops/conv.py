"""conv2d and depthwise_conv2d: the filter matrix times im2col (a strided view, copied once into
a (C*KH*KW, N*OH*OW) matrix), batched over groups; the gradient is the transposed matmuls and
col2im."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .registry import register_op
from .types import AttrType, Meta
from .windows import (check_layout, col2im, conv_out_size, crop_hw, im2col, pad_hw,
                      resolve_padding, to_nchw)

CONV_ATTRS = {
    "strides": (AttrType.INTS, [1, 1]),
    "paddings": (AttrType.INTS, [0, 0]),
    "padding_algorithm": "EXPLICIT",
    "groups": 1,
    "dilations": (AttrType.INTS, [1, 1]),
    "data_format": "NCHW",
}


class _Geometry(NamedTuple):
    channel_last: bool
    pads: list
    dilations: list
    out_hw: tuple


def _geometry(op_type, in_hw, filter_hw, strides, paddings, padding_algorithm, dilations,
              channel_last) -> _Geometry:
    pads, dil = resolve_padding(op_type, in_hw, filter_hw, strides, paddings, padding_algorithm,
                                dilations)
    out_hw = tuple(conv_out_size(op_type, in_hw[i], filter_hw[i], dil[i], pads[2 * i],
                                 pads[2 * i + 1], strides[i]) for i in range(2))
    return _Geometry(channel_last, pads, dil, out_hw)


def _conv_shape(op_type):
    def infer(inp: Meta, filt: Meta, *, strides, paddings, padding_algorithm, groups, dilations,
              data_format, **_):
        channel_last = check_layout(op_type, data_format)
        if len(inp.shape) != 4 or len(filt.shape) != 4:
            raise ValueError(
                f"The input's dimension and filter's dimension of Op({op_type}) should be equal "
                f"(4 for conv2d). But received: the input's shape is {list(inp.shape)}, the "
                f"filter's shape is {list(filt.shape)}.")
        n, c, h, w = (inp.shape[0], inp.shape[3], *inp.shape[1:3]) if channel_last else inp.shape
        oc, cg, kh, kw = filt.shape
        if groups <= 0 or len(strides) != 2 or min(strides) <= 0:
            raise ValueError(f"Op({op_type}) needs groups > 0 and 2 positive strides, but "
                             f"received groups={groups}, strides={list(strides)}")
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
        geo = _geometry(op_type, (h, w), (kh, kw), strides, paddings, padding_algorithm,
                        dilations, channel_last)
        oh, ow = geo.out_hw
        return Meta((n, oh, ow, oc) if channel_last else (n, oc, oh, ow), inp.dtype)
    return infer


def _columns(x, filter_hw, strides, geo, groups):
    """(groups, C/groups*KH*KW, N*OH*OW) im2col matrices of NCHW ``x``."""
    win = im2col(pad_hw(x, geo.pads), filter_hw, strides, geo.dilations, geo.out_hw)
    return win.reshape(groups, -1, x.shape[0] * geo.out_hw[0] * geo.out_hw[1])


def _setup(op_type, x, filt, strides, paddings, padding_algorithm, dilations, data_format):
    channel_last = check_layout(op_type, data_format)
    x = to_nchw(x, channel_last)
    geo = _geometry(op_type, x.shape[2:], filt.shape[2:], strides, paddings, padding_algorithm,
                    dilations, channel_last)
    return x, geo


def _batched_matmul(a, b):
    return (a[0] @ b[0])[None] if a.shape[0] == 1 else np.matmul(a, b)


def conv2d_forward(x, filt, *, strides, paddings, padding_algorithm, groups, dilations,
                   data_format, op_type="conv2d"):
    """Convolution of an NCHW/NHWC ``x`` with an OIHW ``filt``: per group, the filter matrix
    (OC/g, C/g*KH*KW) times the im2col matrix."""
    x, geo = _setup(op_type, x, filt, strides, paddings, padding_algorithm, dilations,
                    data_format)
    n, oc = x.shape[0], filt.shape[0]
    cols = _columns(x, filt.shape[2:], strides, geo, groups)
    out = _batched_matmul(filt.reshape(groups, oc // groups, -1), cols)
    out = out.reshape(oc, n, geo.out_hw[0], geo.out_hw[1])
    return np.ascontiguousarray(out.transpose((1, 2, 3, 0) if geo.channel_last else (1, 0, 2, 3)))


def conv2d_backward(x, filt, dout, *, strides, paddings, padding_algorithm, groups, dilations,
                    data_format, op_type="conv2d", wanted=(True, True)):
    """Gradients (d_input, d_filter) of :func:`conv2d_forward`; an unwanted one is None."""
    x, geo = _setup(op_type, x, filt, strides, paddings, padding_algorithm, dilations,
                    data_format)
    n, c, h, w = x.shape
    oc, kh, kw = filt.shape[0], filt.shape[2], filt.shape[3]
    cols = _columns(x, (kh, kw), strides, geo, groups)
    dmat = dout.transpose((3, 0, 1, 2) if geo.channel_last else (1, 0, 2, 3))
    dmat = dmat.reshape(groups, oc // groups, -1)
    wmat = filt.reshape(groups, oc // groups, -1)
    dfilt = (_batched_matmul(dmat, cols.transpose(0, 2, 1)).reshape(filt.shape).astype(
        filt.dtype, copy=False) if wanted[1] else None)
    if not wanted[0]:
        return None, dfilt
    dcols = _batched_matmul(wmat.transpose(0, 2, 1), dmat)
    dcols = dcols.reshape(c, kh, kw, n, geo.out_hw[0], geo.out_hw[1])
    padded_hw = (h + geo.pads[0] + geo.pads[1], w + geo.pads[2] + geo.pads[3])
    dx = crop_hw(col2im(dcols, padded_hw, strides, geo.dilations), geo.pads)   # C N H W
    dx = dx.transpose((1, 2, 3, 0) if geo.channel_last else (1, 0, 2, 3))
    return np.ascontiguousarray(dx), dfilt


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

    kernel.__name__, grad.__name__ = f"{op_type}_kernel", f"{op_type}_grad"
    return op


conv2d = _register("conv2d")
depthwise_conv2d = _register("depthwise_conv2d")
