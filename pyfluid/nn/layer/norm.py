"""Normalization layers: LayerNorm, BatchNorm1D, BatchNorm2D, GroupNorm, InstanceNorm1D/2D/3D."""
from __future__ import annotations

import math
from typing import Any, Sequence

from ...param_attr import ParamAttr
from .. import functional as F
from ..functional.norm import group_norm_layer
from ..initializer import Constant
from .layers import Layer


class LayerNorm(Layer):
    """Normalizes the trailing ``normalized_shape`` dims; weight ones, bias zeros."""

    def __init__(self, normalized_shape: int | Sequence[int], epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, name: str | None = None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = [normalized_shape]
        self._normalized_shape, self._epsilon = list(normalized_shape), epsilon
        param_shape = [math.prod(self._normalized_shape)]
        self.weight = self.create_parameter(param_shape, weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter(param_shape, bias_attr, is_bias=True)

    def forward(self, input):
        return F.layer_norm(input, self._normalized_shape, self.weight, self.bias,
                            self._epsilon)


class _BatchNormBase(Layer):
    """Scale (ones), bias (zeros) and the non-trainable running ``_mean`` / ``_variance``."""
    formats: tuple = ()
    format_error = ""
    ranks: tuple = ()

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 use_global_stats: bool | None = None, name: str | None = None):
        super().__init__()
        if data_format not in self.formats:
            raise ValueError(self.format_error)
        self._momentum, self._epsilon = momentum, epsilon
        self._data_format, self._use_global_stats = data_format, use_global_stats
        self.weight = self.create_parameter([num_features], weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_features], bias_attr, is_bias=True)
        for stat, value in (("_mean", 0.0), ("_variance", 1.0)):
            param = self.create_parameter([num_features], ParamAttr(
                initializer=Constant(value), trainable=False, do_model_average=True))
            param.stop_gradient = True
            setattr(self, stat, param)

    def forward(self, input):
        if len(input.shape) not in self.ranks:
            raise ValueError(f"expected {' or '.join(f'{r}D' for r in self.ranks)} input (got "
                             f"{len(input.shape)}D input)")
        return F.batch_norm(input, self._mean, self._variance, weight=self.weight,
                            bias=self.bias, training=self.training, momentum=self._momentum,
                            epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats)


class BatchNorm1D(_BatchNormBase):
    """Batch normalization of [N, C] or [N, C, L] inputs ('NC'/'NCL', or 'NLC')."""
    formats, ranks = ("NC", "NCL", "NLC"), (2, 3)
    format_error = "expected NC , NCL, NLC or None for data_format input"

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL",
                 use_global_stats: bool | None = None, name: str | None = None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    """Batch normalization of [N, C, H, W] ('NCHW') or [N, H, W, C] ('NHWC') inputs."""
    formats, ranks = ("NCHW", "NHWC"), (4,)
    format_error = "expected NCHW or NHWC for data_format input"


class GroupNorm(Layer):
    """Normalizes groups of channels (``num_channels / num_groups`` each) per sample; weight
    ones, bias zeros. ``weight_attr=False`` / ``bias_attr=False`` keep a fixed parameter."""

    def __init__(self, num_groups: int, num_channels: int, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__()
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError("unsupported data layout:" + data_format)
        self._epsilon, self._num_groups, self._num_channels = epsilon, num_groups, num_channels
        self._data_format = data_format
        self.weight = self.create_parameter([num_channels], None if weight_attr is False
                                            else weight_attr, default_initializer=Constant(1.0))
        self.weight.stop_gradient = _frozen(weight_attr)
        self.bias = self.create_parameter([num_channels], None if bias_attr is False
                                          else bias_attr, is_bias=True,
                                          default_initializer=Constant(0.0)
                                          if bias_attr is False else None)
        self.bias.stop_gradient = _frozen(bias_attr)

    def forward(self, input):
        return group_norm_layer(self.full_name(), input, self.weight, self.bias,
                                self._epsilon, self._num_groups, self._data_format)

    def extra_repr(self) -> str:
        return (f"num_groups={self._num_groups}, num_channels={self._num_channels}, "
                f"epsilon={self._epsilon}")


def _frozen(attr: Any) -> bool:
    """Paddle's rule: a parameter is fixed when its attr is False or has learning_rate 0."""
    return attr is False or (attr is not None and getattr(attr, "learning_rate", None) == 0.0)


class _InstanceNormBase(Layer):
    """Scale (ones) and bias (zeros) per channel, or neither (both attrs False)."""
    ranks: tuple = ()

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__()
        if (weight_attr is False or bias_attr is False) and weight_attr != bias_attr:
            raise AssertionError("weight_attr and bias_attr must be set to False at the same "
                                 "time in InstanceNorm")
        self._epsilon, self._momentum, self._num_features = epsilon, momentum, num_features
        self._data_format = data_format
        if weight_attr is False:
            self.scale = self.bias = None
        else:
            self.scale = self.create_parameter([num_features], weight_attr,
                                               default_initializer=Constant(1.0))
            self.bias = self.create_parameter([num_features], bias_attr, is_bias=True,
                                              default_initializer=Constant(0.0))

    def forward(self, input):
        if len(input.shape) not in self.ranks:
            raise ValueError(f"expected {' or '.join(f'{r}D' for r in self.ranks)} input (got "
                             f"{len(input.shape)}D input)")
        return F.instance_norm(input, weight=self.scale, bias=self.bias,
                               momentum=self._momentum, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Instance normalization of [N, C] or [N, C, L] inputs."""
    ranks = (2, 3)

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL",
                 name: str | None = None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format,
                         name)


class InstanceNorm2D(_InstanceNormBase):
    """Instance normalization of [N, C, H, W] inputs."""
    ranks = (4,)


class InstanceNorm3D(_InstanceNormBase):
    """Instance normalization of [N, C, D, H, W] inputs."""
    ranks = (5,)

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW",
                 name: str | None = None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format,
                         name)
