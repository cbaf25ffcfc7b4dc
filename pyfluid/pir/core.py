"""``paddle.pir.core.create_parameter``, building a parameter into the default programs as
Paddle's new IR does: its initializer runs in the startup program, and the parameter is
trainable unless ``trainable=False``."""
from __future__ import annotations

from typing import Any, Sequence

from ..framework import unique_name
from ..framework.variable import Parameter
from ..param_attr import ParamAttr
from ..static.nn import create_parameter as _create_static_parameter

__all__ = ["create_parameter"]


def create_parameter(dtype: Any, shape: Sequence[int], name: str | None = None,
                     **kwargs: Any) -> Parameter:
    """A parameter named ``name`` (``parameter_<n>`` by default) set by ``initializer``."""
    if "initializer" not in kwargs:
        raise ValueError("initializer is None, if you want to create parameter, please pass "
                         "its initializer.")
    attr = ParamAttr(name=name or unique_name.generate("parameter"),
                     initializer=kwargs["initializer"],
                     trainable=kwargs.get("trainable", True))
    return _create_static_parameter(list(shape), dtype, attr=attr)
