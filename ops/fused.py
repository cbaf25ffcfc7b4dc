"""Fused ops that the graph passes (``framework/passes``) put in place of op chains: Paddle's
inference ``fc`` (mul/matmul + bias add + optional relu) and ``fused_elemwise_activation``.

Their kernels compute exactly what the chains compute, in the same order, but write the
bias add and the activation into the product's fresh buffer instead of new arrays; the
results are bit-identical. The passes run after backward is built; ``fc`` also has a
gradient (Paddle's has none) because eager ``F.linear`` runs it, as Paddle's dygraph runs
its fused ``linear`` kernel: one op and one backward step per layer.
"""
from __future__ import annotations

import math

import numpy as np

from .activation import relu_in_place
from .common import broadcast_pair, elementwise_shape, fits_into_x
from .registry import register_op
from .small_products import rows_times_transposed
from .types import AttrType, Meta

_FC_ACTIVATIONS = ("", "relu")

fc = register_op(
    "fc", inputs=["Input", "W", "Bias?"], outputs=["Out"],
    attrs={"in_num_col_dims": 1, "activation_type": "", "padding_weights": False},
    extra_attrs={"use_mkldnn": False, "ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE": True,
                 "use_quantizer": False, "mkldnn_data_type": "float32", "Scale_in": 1.0,
                 "Scale_weights": (AttrType.FLOATS, [1.0]), "Scale_out": 1.0,
                 "force_fp32_output": False},
    fresh_outputs=True)


def _check_activation(activation_type: str) -> None:
    if activation_type not in _FC_ACTIVATIONS:
        raise ValueError(f"Activation {activation_type} is not supportetd in fc now. "
                         "(op 'fc' supports activation_type '' or 'relu')")


@fc.def_infer_shape
def fc_shape(x: Meta, w: Meta, bias: Meta | None, *, in_num_col_dims, activation_type,
             padding_weights):
    _check_activation(activation_type)
    if len(w.shape) != 2:
        raise ValueError(f"op 'fc': W must be 2-D, got shape {list(w.shape)}")
    if len(x.shape) <= in_num_col_dims:
        raise ValueError(f"The input tensor Input's rank of FCOp should be larger than "
                         f"in_num_col_dims (Input {list(x.shape)}, in_num_col_dims "
                         f"{in_num_col_dims})")
    cols = w.shape[1] - 4 if padding_weights else w.shape[1]
    return Meta(tuple(x.shape[:in_num_col_dims]) + (cols,), x.dtype)


@fc.def_kernel
def fc_kernel(x, w, bias, *, in_num_col_dims, activation_type, padding_weights):
    """``Out = act(flatten(Input, in_num_col_dims) @ W + Bias)``; with ``padding_weights``
    W carries 4 padding rows and columns (Paddle's fc_fuse_pass layout) that are ignored."""
    _check_activation(activation_type)
    if padding_weights:
        w = w[:-4, :-4]
    return _fc(x, lambda x2: x2 @ w, w.shape[1], bias, in_num_col_dims, activation_type)


def _fc(x, product, cols: int, bias, in_num_col_dims: int, activation_type: str):
    """``act(product(flatten(x)) + Bias)``, the bias add and activation in place."""
    lead = x.shape[:in_num_col_dims]
    x2 = x if x.ndim == 2 and in_num_col_dims == 1 else x.reshape(math.prod(lead), -1)
    out = product(x2)
    if bias is not None:
        out += bias.reshape(-1)
    if activation_type == "relu":
        relu_in_place(out)
    return out if x.ndim == 2 and in_num_col_dims == 1 else out.reshape(lead + (cols,))


@fc.def_specialize
def fc_plain(*, in_num_col_dims, activation_type, padding_weights):
    """``Input @ W + Bias`` for a 2-D Input (``nn.Linear`` run eagerly): fc_kernel's
    arithmetic without its attribute checks on every call."""
    if in_num_col_dims != 1 or activation_type or padding_weights:
        return None
    return _fc_2d


def _fc_2d(x, w, bias):
    if x.ndim != 2:
        return fc_kernel(x, w, bias, in_num_col_dims=1, activation_type="",
                         padding_weights=False)
    out = x @ w
    if bias is not None:
        out += bias.reshape(-1)
    return out


@fc.def_grad(exact=True)
def fc_grad(input, w, out, dout, *, in_num_col_dims, activation_type, padding_weights,
            wanted=(True, True, True)):
    """(dInput, dW, dBias) of ``act(flatten(Input) @ W + Bias)``."""
    if in_num_col_dims == 1 and not activation_type and not padding_weights and input.ndim == 2:
        return (dout @ w.T if wanted[0] else None,         # nn.Linear's: the general path's
                input.T @ dout if wanted[1] else None,     # products without its reshapes
                np.add.reduce(dout, axis=0) if wanted[2] else None)
    _check_activation(activation_type)
    weights = w[:-4, :-4] if padding_weights else w
    rows, cols = weights.shape
    if activation_type == "relu":
        dout = dout * (out > 0)
    flat = input.ndim != 2 or in_num_col_dims != 1
    d2 = dout.reshape(-1, cols) if flat else dout
    dx = (d2 @ weights.T).reshape(input.shape) if wanted[0] else None
    dw = None
    if wanted[1]:
        dw = (input.reshape(-1, rows) if flat else input).T @ d2
        if padding_weights:
            dw = np.pad(dw, ((0, 4), (0, 4)))
    db = np.add.reduce(d2, axis=0) if wanted[2] else None     # d2.sum(axis=0), sans wrapper
    return dx, dw, db


# -- fc from a transposed weight: pyfluid's own inference ops (framework/passes/fc_transposed.py) -
# a few rows run in blocks of the weight (ops/small_products.py)
fc_weight_transpose = register_op("fc_weight_transpose", inputs=["W"], outputs=["Out"],
                                  differentiable=False, fresh_outputs=True)
fc_transposed = register_op(
    "fc_transposed", inputs=["Input", "WT", "Bias?"], outputs=["Out"],
    attrs={"in_num_col_dims": 1, "activation_type": ""}, differentiable=False,
    fresh_outputs=True)


@fc_weight_transpose.def_infer_shape
def fc_weight_transpose_shape(w: Meta):
    if len(w.shape) != 2:
        raise ValueError(f"op 'fc_weight_transpose': W must be 2-D, got shape {list(w.shape)}")
    return Meta(tuple(reversed(w.shape)), w.dtype)


@fc_weight_transpose.def_kernel
def fc_weight_transpose_kernel(w):
    """The (out_features, in_features) contiguous transpose of fc's W."""
    return np.ascontiguousarray(w.T)


@fc_transposed.def_infer_shape
def fc_transposed_shape(x: Meta, wt: Meta, bias: Meta | None, *, in_num_col_dims,
                        activation_type):
    w = Meta(tuple(reversed(wt.shape)), wt.dtype)
    return fc_shape(x, w, bias, in_num_col_dims=in_num_col_dims,
                    activation_type=activation_type, padding_weights=False)


@fc_transposed.def_kernel
def fc_transposed_kernel(x, wt, bias, *, in_num_col_dims, activation_type):
    """fc's ``act(flatten(Input) @ W + Bias)`` from ``WT = W^T``: a few float32 rows run in
    blocks of weight rows small enough for OpenBLAS's unpacked kernels."""
    _check_activation(activation_type)
    return _fc(x, lambda x2: rows_times_transposed(x2, wt), wt.shape[0], bias,
               in_num_col_dims, activation_type)


# Unary(Binary(X, Y)) compounds pyfluid fuses: functor_list = [unary, binary].
_BINARY = {"elementwise_add": np.add, "elementwise_mul": np.multiply}
_UNARY = ("relu",)

fused_elemwise_activation = register_op(
    "fused_elemwise_activation", inputs=["X", "Y"], outputs=["Out", "IntermediateOut?"],
    attrs={"axis": -1, "scale": 0.0, "save_intermediate_out": False,
           "functor_list": (AttrType.STRINGS, [])},
    differentiable=False, fresh_outputs=True)


def _compound(functor_list) -> tuple:
    functors = list(functor_list)
    if len(functors) != 2 or functors[0] not in _UNARY or functors[1] not in _BINARY:
        raise ValueError(f"op 'fused_elemwise_activation': functor_list {functors} is not "
                         f"supported; expected [unary, binary] with unary in {list(_UNARY)} "
                         f"and binary in {sorted(_BINARY)}")
    return functors[0], _BINARY[functors[1]]


@fused_elemwise_activation.def_infer_shape
def fused_elemwise_activation_shape(x: Meta, y: Meta, *, axis, scale, save_intermediate_out,
                                    functor_list):
    _compound(functor_list)
    out = elementwise_shape(x, y, axis=axis)
    return out, out


@fused_elemwise_activation.def_kernel
def fused_elemwise_activation_kernel(x, y, *, axis, save_intermediate_out, functor_list):
    """``Out = relu(binary(X, Y))`` computed in the binary op's fresh result buffer."""
    _, binary = _compound(functor_list)
    out = binary(*broadcast_pair(x, y, axis))
    if save_intermediate_out or not isinstance(out, np.ndarray):   # 0-d inputs give scalars
        return np.maximum(out, out.dtype.type(0)), out
    relu_in_place(out)
    return out, None


@fused_elemwise_activation.def_inplace_kernel(Out="X")
def fused_elemwise_activation_into_x(x, y, *, axis, save_intermediate_out, functor_list):
    """The same, written into X's buffer when Out has X's shape and dtype (X is a temporary
    the Executor lets this op overwrite); otherwise the pure kernel."""
    if save_intermediate_out or not fits_into_x(x, y, axis):
        return fused_elemwise_activation_kernel(x, y, axis=axis, functor_list=functor_list,
                                                save_intermediate_out=save_intermediate_out)
    _compound(functor_list)[1](x, y, out=x)
    relu_in_place(x)
    return x, None
