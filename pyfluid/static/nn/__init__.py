"""``paddle.static.nn``: layers that create parameters (filled in by the autodiff work)."""
from __future__ import annotations

import copy
from functools import reduce
from typing import Any, Sequence

from ...framework.layer_helper import LayerHelper, check_dtype, check_type
from ...framework.variable import Parameter, Variable
from ...param_attr import ParamAttr
from ..py_func import py_func  # noqa: F401  (paddle.static.nn.py_func)


def fc(x: Variable | Sequence[Variable], size: int, num_flatten_dims: int = 1,
       weight_attr: Any = None, bias_attr: Any = None, activation: str | None = None,
       name: str | None = None) -> Variable:
    """Fully connected layer as Paddle 2.6 builds it: ``mul`` (x_num_col_dims=num_flatten_dims)
    per input, a ``sum`` when there are several inputs, ``elementwise_add`` of the bias
    (axis=num_flatten_dims) and the activation op. Weights ``<name>.w_<k>`` default to
    XavierUniform, the bias ``<name>.b_0`` to zeros."""
    check_type(x, "input", (list, tuple, Variable), "fc")
    inputs = list(x) if isinstance(x, (list, tuple)) else [x]
    for i, v in enumerate(inputs):
        check_type(v, f"input[{i}]", Variable, "fc")
    weight_attrs = ParamAttr._to_attr(weight_attr)
    if not isinstance(weight_attrs, list):
        # Paddle's LayerHelper.multiple_param_attr: every input gets a copy of the one attr
        weight_attrs = [weight_attrs] + [copy.deepcopy(weight_attrs) for _ in inputs[1:]]
    helper = LayerHelper("fc", input=inputs, size=size, param_attr=weight_attrs,
                         bias_attr=ParamAttr._to_attr(bias_attr), act=activation, name=name)
    dtype = helper.input_dtype()
    check_dtype(dtype, "input", ["float16", "uint16", "float32", "float64"], "fc")
    if len(weight_attrs) != len(inputs):
        raise ValueError(f"fc: {len(inputs)} inputs but {len(weight_attrs)} weight_attr entries; "
                         "give one ParamAttr per input")
    products = []
    for var, attr in zip(inputs, weight_attrs):
        flatten = len(var.shape) - 1 if num_flatten_dims == -1 else num_flatten_dims
        in_features = reduce(lambda a, b: a * b, var.shape[flatten:], 1)
        if in_features <= 0:
            raise ValueError(f"fc: the input '{var.name}' of shape {list(var.shape)} must have "
                             f"known dims after num_flatten_dims={flatten}")
        weight = helper.create_parameter(attr, [in_features, size], dtype, is_bias=False)
        out = helper.create_variable_for_type_inference(dtype)
        helper.append_op(type="mul", inputs={"X": var, "Y": weight}, outputs={"Out": out},
                         attrs={"x_num_col_dims": flatten, "y_num_col_dims": 1})
        products.append(out)
    if len(products) == 1:
        pre_bias = products[0]
    else:
        pre_bias = helper.create_variable_for_type_inference(dtype)
        helper.append_op(type="sum", inputs={"X": products}, outputs={"Out": pre_bias},
                         attrs={"use_mkldnn": False})
    flatten = len(inputs[0].shape) - 1 if num_flatten_dims == -1 else num_flatten_dims
    return helper.append_activation(helper.append_bias_op(pre_bias, dim_start=flatten))


def embedding(input: Variable, size: Sequence[int], is_sparse: bool = False,
              is_distributed: bool = False, padding_idx: int | None = None,
              param_attr: Any = None, dtype: Any = "float32") -> Variable:
    """Look rows of a ``size`` = [vocab, dim] table up by id (``lookup_table_v2``)."""
    check_type(input, "input", Variable, "fluid.layers.embedding")
    check_dtype(input.dtype, "input", ["int32", "int64"], "fluid.layers.embedding")
    check_dtype(dtype, "dtype", ["float16", "float32", "float64", "uint16"],
                "fluid.layers.embedding")
    helper = LayerHelper("embedding", param_attr=param_attr)
    weight = helper.create_parameter(ParamAttr._to_attr(param_attr), list(size), dtype)
    out = helper.create_variable_for_type_inference(dtype)
    padding_idx = -1 if padding_idx is None else (
        padding_idx if padding_idx >= 0 else size[0] + padding_idx)
    helper.append_op(type="lookup_table_v2", inputs={"Ids": input, "W": weight},
                     outputs={"Out": out},
                     attrs={"is_sparse": is_sparse, "is_distributed": is_distributed,
                            "remote_prefetch": is_sparse and not is_distributed,
                            "padding_idx": padding_idx})
    return out


def create_parameter(shape: Sequence[int], dtype: Any, name: str | None = None,
                     attr: Any = None, is_bias: bool = False,
                     default_initializer: Any = None) -> Parameter:
    """``paddle.create_parameter``: a parameter named ``create_parameter_<n>.w_0`` by default."""
    check_type(shape, "shape", (list, tuple), "create_parameter")
    for i, d in enumerate(shape):
        check_type(d, f"shape[{i}]", int, "create_parameter")
    helper = LayerHelper("create_parameter")
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        attr = ParamAttr()
    if name is not None:
        attr.name = name
    return helper.create_parameter(attr, list(shape), dtype, is_bias, default_initializer)

from ..cnn_layers import batch_norm, conv2d, layer_norm  # noqa: E402,F401  (CNN layers)

from . import control_flow  # noqa: E402  (paddle.static.nn.control_flow.While)
from .control_flow import case, cond, switch_case, while_loop  # noqa: E402,F401
