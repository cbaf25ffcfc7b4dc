"""Sliding-window geometry shared by conv2d and pool2d: Paddle's padding rules, output sizes,
im2col as a strided view and its adjoint (col2im)."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

PADDING_ALGORITHMS = ("EXPLICIT", "SAME", "VALID")


def check_layout(op_type: str, data_format: str) -> bool:
    """True for channel-last (NHWC); ValueError for anything but NCHW/NHWC/AnyLayout."""
    if data_format not in ("NCHW", "NHWC", "AnyLayout"):
        raise ValueError(f"op '{op_type}': data_format must be 'NCHW' or 'NHWC', "
                         f"received {data_format!r}")
    return data_format == "NHWC"


def expand_paddings(op_type: str, paddings, n_dims: int = 2) -> list[int]:
    """Paddle's paddings attr -> [before_0, after_0, before_1, after_1]."""
    paddings = [int(p) for p in paddings]
    if len(paddings) == n_dims:
        return [p for p in paddings for _ in range(2)]
    if len(paddings) != 2 * n_dims:
        raise ValueError(f"op '{op_type}': Attr(paddings) must have {n_dims} or {2 * n_dims} "
                         f"values, received {paddings}")
    return paddings


def resolve_padding(op_type: str, in_size, ksize, strides, paddings, algorithm: str,
                    dilations=None) -> tuple[list[int], list[int]]:
    """Paddle's UpdatePaddingAndDilation: the 4 effective paddings and the dilations.
    SAME pads so that out = ceil(in / stride) and forces dilation 1; VALID pads nothing."""
    if algorithm not in PADDING_ALGORITHMS:
        raise ValueError(f"op '{op_type}': padding_algorithm must be one of "
                         f"{list(PADDING_ALGORITHMS)}, received {algorithm!r}")
    pads = expand_paddings(op_type, paddings, len(in_size))
    dilations = [int(d) for d in (dilations or [1] * len(in_size))]
    if algorithm == "SAME":
        for i, (size, k, s) in enumerate(zip(in_size, ksize, strides)):
            out = (size + s - 1) // s
            total = max((out - 1) * s + k - size, 0)
            pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
            dilations[i] = 1
    elif algorithm == "VALID":
        pads = [0] * len(pads)
    return pads, dilations


def conv_out_size(op_type: str, size: int, k: int, dilation: int, pad0: int, pad1: int,
                  stride: int) -> int:
    """Paddle's ConvOutputSize (-1 stays unknown)."""
    if size < 0:
        return -1
    extent = dilation * (k - 1) + 1
    out = (size + pad0 + pad1 - extent) // stride + 1
    if out <= 0:
        raise ValueError(
            f"op '{op_type}': the output size must be greater than 0, but it is {out}: "
            f"(input_size {size} + paddings ({pad0}, {pad1}) - (dilation {dilation} * "
            f"(filter_size {k} - 1) + 1)) / stride {stride} + 1. Use a smaller kernel or "
            f"dilation, or more padding")
    return out


def to_nchw(x: np.ndarray, channel_last: bool) -> np.ndarray:
    return x.transpose(0, 3, 1, 2) if channel_last else x


def from_nchw(x: np.ndarray, channel_last: bool) -> np.ndarray:
    return x.transpose(0, 2, 3, 1) if channel_last else x


def pad_hw(x: np.ndarray, pads, value=0) -> np.ndarray:
    """Pad the last two axes of an NCHW array by [top, bottom, left, right]."""
    if not any(pads):
        return x
    return np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])),
                  constant_values=value)


def im2col(xp: np.ndarray, ksize, strides, dilations, out_hw) -> np.ndarray:
    """A read-only view (C, KH, KW, N, OH, OW) of every window of padded NCHW ``xp``: reshaped
    to (C*KH*KW, N*OH*OW) it is the im2col matrix (each row a contiguous-ish image slice)."""
    n, c = xp.shape[:2]
    sn, sc, sh, sw = xp.strides
    return as_strided(xp, shape=(c, ksize[0], ksize[1], n, out_hw[0], out_hw[1]),
                      strides=(sc, sh * dilations[0], sw * dilations[1], sn,
                               sh * strides[0], sw * strides[1]), writeable=False)


def col2im(cols: np.ndarray, padded_hw, strides, dilations) -> np.ndarray:
    """Adjoint of :func:`im2col`: sum (C, KH, KW, N, OH, OW) window values into a zero
    (C, N, H_padded, W_padded) array. Loops over the KH*KW kernel taps only."""
    c, kh, kw, n, oh, ow = cols.shape
    out = np.zeros((c, n) + tuple(padded_hw), dtype=cols.dtype)
    for i in range(kh):
        h0 = i * dilations[0]
        rows = slice(h0, h0 + strides[0] * (oh - 1) + 1, strides[0])
        for j in range(kw):
            w0 = j * dilations[1]
            out[:, :, rows, w0:w0 + strides[1] * (ow - 1) + 1:strides[1]] += cols[:, i, j]
    return out


def crop_hw(xp: np.ndarray, pads) -> np.ndarray:
    """Undo :func:`pad_hw`."""
    h, w = xp.shape[2:]
    return xp[:, :, pads[0]:h - pads[1], pads[2]:w - pads[3]]


# -- any number of spatial dims (conv3d, the transposed convolutions) ---------------------------
def check_layout_nd(op_type: str, data_format: str, n_spatial: int) -> bool:
    """True for channel-last; accepts NCHW/NHWC (2-D) or NCDHW/NDHWC (3-D) and AnyLayout."""
    first, last = ("NCHW", "NHWC") if n_spatial == 2 else ("NCDHW", "NDHWC")
    if data_format not in (first, last, "AnyLayout"):
        raise ValueError(f"op '{op_type}': data_format must be '{first}' or '{last}', "
                         f"received {data_format!r}")
    return data_format == last


def to_channel_first(x: np.ndarray, channel_last: bool) -> np.ndarray:
    return np.moveaxis(x, -1, 1) if channel_last else x


def from_channel_first(x: np.ndarray, channel_last: bool) -> np.ndarray:
    return np.moveaxis(x, 1, -1) if channel_last else x


def pad_spatial(x: np.ndarray, pads) -> np.ndarray:
    """Zero-pad the spatial axes of an (N, C, *S) array by [before_0, after_0, ...]."""
    if not any(pads):
        return x
    return np.pad(x, [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1])
                                         for i in range(x.ndim - 2)])


def crop_spatial(x: np.ndarray, pads, size) -> np.ndarray:
    """The window [before_i, before_i + size_i) of each spatial axis (undoes pad_spatial)."""
    return x[(slice(None), slice(None)) + tuple(slice(pads[2 * i], pads[2 * i] + s)
                                                for i, s in enumerate(size))]


def im2col_nd(xp: np.ndarray, ksize, strides, dilations, out_size) -> np.ndarray:
    """:func:`im2col` for any number of spatial dims: a read-only (C, *K, N, *O) view."""
    n, c = xp.shape[:2]
    sn, sc, *ss = xp.strides
    return as_strided(xp, shape=(c, *ksize, n, *out_size),
                      strides=(sc, *(s * d for s, d in zip(ss, dilations)), sn,
                               *(s * t for s, t in zip(ss, strides))), writeable=False)


def col2im_nd(cols: np.ndarray, padded_size, strides, dilations) -> np.ndarray:
    """Adjoint of :func:`im2col_nd`: sum (C, *K, N, *O) into a zero (C, N, *padded_size)
    array, one kernel tap at a time."""
    nd = len(padded_size)
    c, ksize, n, out_size = cols.shape[0], cols.shape[1:1 + nd], cols.shape[1 + nd], \
        cols.shape[2 + nd:]
    out = np.zeros((c, n) + tuple(padded_size), dtype=cols.dtype)
    for tap in np.ndindex(*ksize):
        window = tuple(slice(k * d, k * d + s * (o - 1) + 1, s)
                       for k, d, s, o in zip(tap, dilations, strides, out_size))
        out[(slice(None), slice(None)) + window] += cols[(slice(None),) + tap]
    return out
