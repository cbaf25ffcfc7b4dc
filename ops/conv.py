"""conv2d and depthwise_conv2d: the declarations; the kernels (pointwise products, im2col,
direct depthwise, chosen per layer shape) live in ops/conv_kernels.py."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .conv_kernels import conv_kernel, geometry, kernel_lookup
from .registry import register_op
from .types import AttrType, Meta
from .windows import check_layout, conv_out_size, resolve_padding, to_nchw

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
    out = kernel.forward(to_nchw(x, channel_last), filt)
    return np.ascontiguousarray(out.transpose(0, 2, 3, 1)) if channel_last else out


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
        if not channel_last:
            return lookup(x, filt.shape).forward(x, filt)
        out = lookup(x, filt.shape).forward(x.transpose(0, 3, 1, 2), filt)
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1))

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
