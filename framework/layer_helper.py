"""LayerHelper: how layer functions (fc, embedding, create_parameter, optimizers) name and create
their parameters and temporaries, as Paddle's ``layer_helper.py`` does.

* The layer name is ``name`` or a fresh ``<layer_type>_<n>`` (global unique-name generator).
* A parameter is ``<layer>.w_<k>`` / ``<layer>.b_<k>`` unless its ParamAttr names it. It is
  created twice: in the startup program's global block with its initializer (the init op goes
  there) and in the main program's global block without.
* Temporaries are ``<layer>.tmp_<k>``.

Parameter attributes are duck-typed (``pyfluid.ParamAttr`` lives above the framework layer):
the caller converts user input with ``ParamAttr._to_attr`` and passes the result (or False).
"""
from __future__ import annotations

import copy
from typing import Any, Sequence

from ..ops.types import VarType, convert_dtype, dtype_name
from . import unique_name
from .context import default_main_program, default_startup_program
from .variable import Parameter, Variable

FLOAT_DTYPES = ("float16", "uint16", "float32", "float64")


def check_type(value: Any, name: str, expected: type | tuple, api: str, extra: str = "") -> None:
    """Paddle's ``check_type``: TypeError naming the argument, the API and both types."""
    if not isinstance(value, expected):
        raise TypeError(f"The type of '{name}' in {api} must be {expected}, but received "
                        f"{type(value)}. {extra}")


def check_dtype(dtype: Any, name: str, expected: Sequence[str], api: str) -> None:
    """Paddle's ``check_dtype``: TypeError when ``dtype`` is not one of ``expected``."""
    received = dtype_name(dtype)
    if received not in expected:
        raise TypeError(f"The data type of '{name}' in {api} must be {list(expected)}, but "
                        f"received {received}. ")


class LayerHelper:
    """Builds one layer: ``LayerHelper('fc', name=None, param_attr=..., bias_attr=..., act=...)``."""

    def __init__(self, layer_type: str, **kwargs: Any):
        self.layer_type = layer_type
        self.kwargs = kwargs
        name = kwargs.get("name")
        self.name: str = name if name is not None else unique_name.generate(layer_type)

    # -- programs ---------------------------------------------------------------------------
    @property
    def main_program(self):
        return default_main_program()

    @property
    def startup_program(self):
        return default_startup_program()

    @property
    def param_attr(self):
        return self.kwargs.get("param_attr")

    @property
    def bias_attr(self):
        return self.kwargs.get("bias_attr")

    def append_op(self, *args: Any, **kwargs: Any):
        return self.main_program.current_block().append_op(*args, **kwargs)

    def input_dtype(self, input_param_name: str = "input") -> VarType:
        """The common dtype of the layer's inputs (TypeError naming the layer if they differ)."""
        inputs = self.kwargs.get(input_param_name)
        inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        dtypes = {v.dtype for v in inputs}
        if len(dtypes) != 1:
            raise TypeError(f"Data Type mismatch in {self.layer_type}: inputs have dtypes "
                            f"{sorted(dtype_name(d) for d in dtypes)}; cast them to one dtype.")
        return dtypes.pop()

    # -- parameters and variables -----------------------------------------------------------
    def create_parameter(self, attr: Any, shape: Sequence[int], dtype: Any = None,
                         is_bias: bool = False, default_initializer: Any = None,
                         stop_gradient: bool = False,
                         type: VarType = VarType.LOD_TENSOR) -> Parameter | None:
        """Create (or find, when the ParamAttr name is taken) a parameter of this layer.
        ``attr`` is a ParamAttr-like object or False (no parameter: returns None)."""
        if attr is False:
            return None
        if attr is None:
            raise TypeError(f"layer '{self.name}': create_parameter needs a ParamAttr (convert "
                            "the user's weight_attr/bias_attr with ParamAttr._to_attr) or False")
        attr = copy.deepcopy(attr)
        for i, size in enumerate(shape):
            if size <= 0:
                raise ValueError(f"Expected every dim's size to be larger than 0, but the size "
                                 f"of the {i}-th dim is {size} (parameter of layer "
                                 f"'{self.name}', shape {list(shape)})")
        dtype = convert_dtype(dtype if dtype is not None else "float32")
        if default_initializer is None and attr.initializer is None:
            if dtype_name(dtype) not in ("float16", "float32", "float64", "bfloat16"):
                raise TypeError("Can not create parameter with default initializer when dtype is "
                                "not ['float16', 'float32', 'float64', 'bfloat16'] type. Set "
                                "default_initializer to fit the parameter dtype!")
            if is_bias:
                attr._set_default_bias_initializer()
            else:
                attr._set_default_param_initializer()
        elif attr.initializer is None:
            attr._set_default_initializer(default_initializer)
        if attr.name is None:
            attr.name = unique_name.generate(f"{self.name}.{'b' if is_bias else 'w'}")
        kwargs = attr._to_kwargs(with_initializer=True)
        initializer = kwargs.pop("initializer")
        do_model_average = kwargs.pop("do_model_average", None)
        self.startup_program.global_block().create_parameter(
            shape=shape, dtype=dtype, type=type, initializer=initializer, **kwargs)
        param = self.main_program.global_block().create_parameter(
            shape=shape, dtype=dtype, type=type, **kwargs)
        param.do_model_average = do_model_average
        if stop_gradient:
            param.stop_gradient = True
        return param

    def create_variable_for_type_inference(self, dtype: Any, stop_gradient: bool = False,
                                           shape: Sequence[int] | None = None) -> Variable:
        """A temporary ``<layer>.tmp_<k>`` of the current block; its shape comes from the op."""
        return self.main_program.current_block().create_var(
            name=unique_name.generate_with_ignorable_key(f"{self.name}.tmp"), dtype=dtype,
            shape=shape, type=VarType.LOD_TENSOR, persistable=False, stop_gradient=stop_gradient)

    create_variable_for_type_inference_ = create_variable_for_type_inference

    def create_variable(self, *args: Any, **kwargs: Any) -> Variable:
        return self.main_program.current_block().create_var(*args, **kwargs)

    def create_global_variable(self, persistable: bool = False, *args: Any,
                               **kwargs: Any) -> Variable:
        return self.main_program.global_block().create_var(*args, persistable=persistable,
                                                          **kwargs)

    def set_variable_initializer(self, var: Variable, initializer: Any) -> Variable:
        """Give a main-program variable an init op in the startup program (same name)."""
        block = self.startup_program.global_block()
        if block.has_var(var.name):
            return block.var(var.name)
        return block.create_var(name=var.name, type=var.type, dtype=var.dtype, shape=var.shape,
                                persistable=True, initializer=initializer)

    # -- common layer tails -----------------------------------------------------------------
    def append_bias_op(self, input_var: Variable, dim_start: int = 1,
                       dim_end: int | None = None) -> Variable:
        """``elementwise_add(input, <layer>.b_0, axis=dim_start)`` unless bias_attr is False."""
        bias_attr = self.bias_attr
        if not bias_attr:
            return input_var
        size = list(input_var.shape[dim_start:dim_end])
        bias = self.create_parameter(bias_attr, size, input_var.dtype, is_bias=True)
        out = self.create_variable_for_type_inference(input_var.dtype)
        self.append_op(type="elementwise_add", inputs={"X": [input_var], "Y": [bias]},
                       outputs={"Out": [out]}, attrs={"axis": dim_start})
        return out

    def append_activation(self, input_var: Variable) -> Variable:
        """Apply ``act`` (an op type such as 'relu' or 'softmax') when the layer has one."""
        act = self.kwargs.get("act")
        if act is None:
            return input_var
        if not isinstance(act, str):
            raise TypeError(f"{act} should be unicode or str")
        out = self.create_variable_for_type_inference(input_var.dtype)
        self.append_op(type=act, inputs={"X": [input_var]}, outputs={"Out": [out]})
        return out
