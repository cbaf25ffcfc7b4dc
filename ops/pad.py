"""Padding: ``pad`` (constant padding of every axis) and ``pad3d`` (the last three spatial axes
of a 5-D tensor; constant, reflect, replicate or circular).

pad3d gathers along each padded axis through an index map (input position of every output
position), so all modes share one forward and one backward; the backward adds the border
positions back one at a time (a loop over the padding width only)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .registry import OpDef, default_grad_op_spec, register, register_op
from .types import Meta

# -- pad ---------------------------------------------------------------------------------------
pad = register_op("pad", inputs=["X"], outputs=["Out"],
                  attrs={"paddings": ([]), "pad_value": 0.0}, fresh_outputs=True)


@pad.def_infer_shape
def pad_shape(x: Meta, *, paddings, **_):
    rank = len(x.shape)
    if len(paddings) != 2 * rank:
        raise ValueError(f"op 'pad': size of 'paddings' dimension should be equal to 2 * size of "
                         f"Input(X)'s dimension, but received (size of 'paddings' dimension is) "
                         f"{len(paddings)} vs (2 * size of Input(X)'s dimension is) {2 * rank} "
                         f"(X {list(x.shape)})")
    for i, p in enumerate(paddings):
        if p < 0:
            raise ValueError(f"op 'pad': the element of 'paddings' should >= 0, but received {p} "
                             f"for index {i}.")
    return Meta(tuple(-1 if d < 0 else d + paddings[2 * i] + paddings[2 * i + 1]
                      for i, d in enumerate(x.shape)), x.dtype)


@pad.def_kernel
def pad_kernel(x, *, paddings, pad_value):
    widths = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(x.ndim)]
    return np.pad(x, widths, constant_values=x.dtype.type(pad_value))


@pad.def_grad
def pad_grad(dout, *, paddings):
    """Paddle's pad_grad reads only Out@GRAD: the gradient is its interior."""
    return dout[tuple(slice(paddings[2 * i], dout.shape[i] - paddings[2 * i + 1])
                      for i in range(dout.ndim))].copy()


# -- pad3d -------------------------------------------------------------------------------------
PAD3D_MODES = ("constant", "reflect", "replicate", "circular")

pad3d = register_op("pad3d", inputs=["X", "Paddings?"], outputs=["Out"],
                    attrs={"paddings": ([]), "mode": "constant", "value": 0.0,
                           "data_format": "NCDHW"},
                    extra_attrs={"use_mkldnn": False}, no_grad=["Paddings"], fresh_outputs=True)


def _spatial_axes(op: str, data_format: str) -> tuple[int, int, int]:
    """Axes of (D, H, W); Paddle's paddings list them as W, H, D pairs."""
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"op '{op}': data_format must be 'NCDHW' or 'NDHWC', received "
                         f"{data_format!r}")
    return (2, 3, 4) if data_format == "NCDHW" else (1, 2, 3)


def _check_pad3d(paddings, mode: str) -> None:
    if len(paddings) != 6:
        raise ValueError(f"op 'pad3d': size of paddings should be equal to 6, but received "
                         f"{len(paddings)} ({list(paddings)})")
    if mode not in PAD3D_MODES:
        raise ValueError(f"op 'pad3d': mode must be one of {list(PAD3D_MODES)}, received "
                         f"{mode!r}")


@pad3d.def_infer_shape
def pad3d_shape(x: Meta, paddings_tensor=None, *, paddings, mode, data_format, **_):
    if len(x.shape) != 5:
        raise ValueError(f"op 'pad3d': the size of Input(X)'s dimension should be equal to 5, "
                         f"but received {len(x.shape)} (X {list(x.shape)})")
    axes = _spatial_axes("pad3d", data_format)
    shape = list(x.shape)
    if paddings_tensor is not None:          # known only when the program runs
        for axis in axes:
            shape[axis] = -1
        return Meta(tuple(shape), x.dtype)
    _check_pad3d(paddings, mode)
    for k, axis in enumerate(reversed(axes)):     # W, H, D
        if shape[axis] >= 0:
            shape[axis] += paddings[2 * k] + paddings[2 * k + 1]
    return Meta(tuple(shape), x.dtype)


class _AxisMap(NamedTuple):
    axis: int
    before: int                # padding before the input (negative: cropped, constant mode)
    index: np.ndarray          # input position read by each output position (clipped)
    inside: np.ndarray | None  # constant mode: which output positions read the input


def _axis_map(size: int, before: int, after: int, mode: str, axis: int, name: str) -> _AxisMap:
    pos = np.arange(-before, size + after)
    if mode == "constant":
        inside = (pos >= 0) & (pos < size)
        return _AxisMap(axis, before, np.clip(pos, 0, size - 1), inside)
    if mode == "reflect":
        if before >= size or after >= size:
            raise ValueError(f"op 'pad3d': the {name} of Input(X)'s dimension should be greater "
                             f"than its paddings in reflect mode, but received {name}({size}) "
                             f"and paddings ({before}, {after})")
        pos = np.abs(pos)
        pos = np.where(pos > size - 1, 2 * (size - 1) - pos, pos)
    elif mode == "replicate":
        pos = np.clip(pos, 0, size - 1)
    else:
        pos = np.mod(pos, size)
    return _AxisMap(axis, before, pos, None)


def _maps(x_shape, paddings, mode, data_format) -> list[_AxisMap]:
    _check_pad3d(paddings, mode)
    axes = _spatial_axes("pad3d", data_format)
    names = ("width", "height", "depth")
    maps = []
    for k, axis in enumerate(reversed(axes)):     # W, H, D
        before, after = int(paddings[2 * k]), int(paddings[2 * k + 1])
        if before or after:
            maps.append(_axis_map(x_shape[axis], before, after, mode, axis, names[k]))
    return maps


def _resolve(paddings_tensor, paddings):
    return [int(p) for p in paddings_tensor.reshape(-1)] if paddings_tensor is not None \
        else paddings


def _along(mask: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    shape = [1] * ndim
    shape[axis] = -1
    return mask.reshape(shape)


@pad3d.def_kernel
def pad3d_kernel(x, paddings_tensor=None, *, paddings, mode, value, data_format):
    out, fill = x, None
    for m in _maps(x.shape, _resolve(paddings_tensor, paddings), mode, data_format):
        out = out.take(m.index, axis=m.axis)
        if m.inside is not None and not m.inside.all():
            mask = _along(m.inside, m.axis, x.ndim)
            fill = mask if fill is None else fill & mask
    if fill is not None:
        out = np.where(fill, out, x.dtype.type(value))
    return out if out is not x else x.copy()


# The grad op is declared by hand: its Paddings input and its paddings attribute share a name,
# which a grad rule's parameter names cannot tell apart. X is read for its shape only.
pad3d_grad = register(OpDef("pad3d_grad", inputs=["X", "Paddings?", "Out@GRAD"],
                            outputs=["X@GRAD?"], attrs=dict(pad3d.attrs), differentiable=False))
pad3d_grad.forward = pad3d
pad3d_grad.shape_only = frozenset({"X"})


@pad3d_grad.def_kernel
def pad3d_grad_kernel(x, paddings_tensor, dout, *, paddings, mode, data_format):
    g = dout
    for m in reversed(_maps(x.shape, _resolve(paddings_tensor, paddings), mode, data_format)):
        g = _scatter_axis(g, m, x.shape[m.axis])
    return g if g is not dout else dout.copy()


@pad3d.def_grad_maker
def pad3d_grad_maker(op, no_grad_names: set) -> list[dict]:
    return [default_grad_op_spec(pad3d, op, no_grad_names)]


def _scatter_axis(g, m: _AxisMap, size: int):
    """Adjoint of ``take(m.index, axis)``: the stretch that copies the input is one slice; the
    border positions (reflected, replicated or wrapped) are added one by one, and in constant
    mode they read no input at all."""
    g = np.moveaxis(g, m.axis, -1)
    out = np.zeros(g.shape[:-1] + (size,), dtype=g.dtype)
    lo, hi = max(m.before, 0), min(m.before + size, g.shape[-1])
    out[..., lo - m.before:hi - m.before] = g[..., lo:hi]
    if m.inside is None:
        for j in (*range(lo), *range(hi, g.shape[-1])):
            out[..., m.index[j]] += g[..., j]
    return np.moveaxis(out, -1, m.axis)
