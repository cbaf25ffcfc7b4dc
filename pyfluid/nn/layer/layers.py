"""``paddle.nn.Layer``: parameters, sublayers, state dicts, train/eval.

In dynamic mode a layer's parameters are eager ``EagerParameter`` tensors initialized at once
(Paddle's default initializers: XavierUniform weights, zero biases). In static mode they are
program Parameters created through ``LayerHelper`` (init ops in the startup program), so the
same model code builds a static program too."""
from __future__ import annotations

import collections
import re
from typing import Any, Iterator, Sequence

import numpy as np

from ...engine.tensor import EagerParameter, Tensor
from ...framework import unique_name
from ...framework.context import in_dynamic_mode
from ...framework.layer_helper import LayerHelper
from ...framework.variable import Parameter
from ...ops.types import to_numpy_dtype
from ...param_attr import ParamAttr
from ..initializer import Constant, XavierUniform


def _snake(name: str) -> str:
    """Paddle's layer-name rule: ``Linear`` -> ``linear``, ``Conv2D`` -> ``conv2d``,
    ``Conv2DTranspose`` -> ``conv2d_transpose``, ``PReLU`` -> ``p_re_lu``."""
    first = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", first).lower()


class Layer:
    """Base class of models: holds parameters and sublayers; ``layer(x)`` calls ``forward``."""

    def __init__(self, name_scope: str | None = None, dtype: Any = "float32"):
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_sub_layers", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        self.training = True
        self._dtype = dtype
        self._full_name = unique_name.generate(name_scope or _snake(type(self).__name__))

    # -- attributes ---------------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise RuntimeError(f"super().__init__() must be called in {type(self).__name__}."
                               "__init__ before setting attributes")
        for store in (self._parameters, self._sub_layers, self._buffers):
            store.pop(name, None)
        if isinstance(value, (EagerParameter, Parameter)):
            self.__dict__.pop(name, None)       # as Paddle: the stores are the only home
            self._parameters[name] = value
        elif isinstance(value, Layer):
            self.__dict__.pop(name, None)
            self._sub_layers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        for store in ("_parameters", "_sub_layers", "_buffers"):
            values = self.__dict__.get(store)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._sub_layers, self._buffers):
            if name in store:
                del store[name]
                return
        object.__delattr__(self, name)

    def full_name(self) -> str:
        return self._full_name

    # -- building -----------------------------------------------------------------------------
    def create_parameter(self, shape: Sequence[int], attr: Any = None, dtype: Any = None,
                         is_bias: bool = False, default_initializer: Any = None):
        """A parameter named ``<layer full name>.w_<k>`` (or ``.b_<k>``) unless ``attr``
        names it; None when ``attr`` is False."""
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        dtype = dtype or self._dtype
        if not in_dynamic_mode():
            return LayerHelper(self._full_name, name=self._full_name).create_parameter(
                attr, list(shape), dtype, is_bias, default_initializer)
        initializer = attr.initializer or default_initializer or (
            Constant(0.0) if is_bias else XavierUniform())
        name = attr.name or unique_name.generate(f"{self._full_name}.{'b' if is_bias else 'w'}")
        param = EagerParameter(np.zeros(list(shape), to_numpy_dtype(dtype)), name=name,
                               trainable=attr.trainable,
                               optimize_attr={"learning_rate": attr.learning_rate},
                               regularizer=attr.regularizer, need_clip=attr.need_clip)
        initializer(param)
        return param

    def add_parameter(self, name: str, parameter) -> Any:
        setattr(self, name, parameter)
        return parameter

    def add_sublayer(self, name: str, sublayer: "Layer") -> "Layer":
        self._sub_layers[str(name)] = sublayer
        return sublayer

    def register_buffer(self, name: str, tensor: Tensor, persistable: bool = True) -> None:
        self._buffers[name] = tensor

    # -- traversal ----------------------------------------------------------------------------
    def named_sublayers(self, prefix: str = "", include_self: bool = False
                        ) -> Iterator[tuple[str, "Layer"]]:
        if include_self:
            yield prefix, self
        for name, layer in self._sub_layers.items():
            path = f"{prefix}.{name}" if prefix else name
            yield path, layer
            yield from layer.named_sublayers(path)

    def sublayers(self, include_self: bool = False) -> list["Layer"]:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def children(self) -> Iterator["Layer"]:
        return iter(self._sub_layers.values())

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True
                         ) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers else \
            [(prefix, self)]
        for path, layer in layers:
            for name, param in layer._parameters.items():
                if param is not None and id(param) not in seen:
                    seen.add(id(param))
                    yield (f"{path}.{name}" if path else name), param

    def parameters(self, include_sublayers: bool = True) -> list:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def train(self) -> "Layer":
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", True)
        return self

    def eval(self) -> "Layer":
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", False)
        return self

    def clear_gradients(self) -> None:
        for p in self.parameters():
            if isinstance(p, Tensor):
                p.clear_gradient()

    # -- state --------------------------------------------------------------------------------
    def state_dict(self) -> "collections.OrderedDict[str, Any]":
        """Parameters and persistable buffers by attribute path ("0.weight", "fc.bias"). A
        parameter shared by several layers appears under each path, as in Paddle (an LSTM's
        ``weight_ih_l0`` and ``0.cell.weight_ih``)."""
        state = collections.OrderedDict()
        for path, layer in self.named_sublayers(include_self=True):
            for name, param in layer._parameters.items():
                if param is not None:
                    state[f"{path}.{name}" if path else name] = param
        for path, layer in self.named_sublayers(include_self=True):
            for name, buf in layer._buffers.items():
                state[f"{path}.{name}" if path else name] = buf
        return state

    def set_state_dict(self, state_dict: dict, use_structured_name: bool = True) -> tuple:
        """Copy values (Tensors or arrays) into the matching parameters; returns the
        (missing keys, unexpected keys) lists."""
        own = self.state_dict()
        if not use_structured_name:
            own = collections.OrderedDict((t.name, t) for t in own.values())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            array = np.asarray(value._array if isinstance(value, Tensor) else value)
            if list(array.shape) != list(target.shape):
                raise ValueError(f"{key} receives a shape {list(array.shape)}, but the expected "
                                 f"shape is {list(target.shape)}.")
            if not isinstance(target, Tensor):
                raise TypeError(f"set_state_dict: '{key}' is a static Parameter; load static "
                                "values into the scope with paddle.static.set_program_state")
            target._array = array.astype(target._array.dtype, copy=True)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    # -- calling ------------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement forward()")

    def __call__(self, *inputs, **kwargs):
        return self.forward(*inputs, **kwargs)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        for name, layer in self._sub_layers.items():
            body = repr(layer).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        return "\n".join(lines) + ")" if len(lines) > 1 else lines[0] + ")"
