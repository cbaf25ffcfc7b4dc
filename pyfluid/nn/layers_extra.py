"""The ``paddle.nn`` layers people reach for first beyond Linear/Conv2D: Dropout, Flatten,
Softmax, Tanh, Sigmoid, ReLU6, Silu, MSELoss, L1Loss, Embedding, LayerNorm, BatchNorm1D and
BatchNorm2D. Each calls the matching ``paddle.nn.functional`` function, so it works on eager
Tensors and, in static mode, builds the same program Paddle builds."""
from __future__ import annotations

import math
from typing import Any, Sequence

from ..framework.context import in_dynamic_mode
from ..param_attr import ParamAttr
from . import functional as F
from .initializer import Constant
from .layer import Layer

__all__ = ["BatchNorm1D", "BatchNorm2D", "Dropout", "Embedding", "Flatten", "L1Loss",
           "LayerNorm", "MSELoss", "ReLU6", "Sigmoid", "Silu", "Softmax", "Tanh"]


class Dropout(Layer):
    """``F.dropout`` with ``training`` taken from the layer's mode (``train()`` / ``eval()``)."""

    def __init__(self, p: float = 0.5, axis: int | Sequence[int] | None = None,
                 mode: str = "upscale_in_train", name: str | None = None):
        super().__init__()
        self.p, self.axis, self.mode, self.name = p, axis, mode, name

    def forward(self, input):
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training,
                         mode=self.mode, name=self.name)

    def extra_repr(self) -> str:
        return f"p={self.p}, axis={self.axis}, mode={self.mode}"


class Flatten(Layer):
    def __init__(self, start_axis: int = 1, stop_axis: int = -1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        return F.flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)


class Softmax(Layer):
    def __init__(self, axis: int = -1, name: str | None = None):
        super().__init__()
        self.axis, self.name = axis, name

    def forward(self, x):
        return F.softmax(x, self.axis, name=self.name)


def _activation_layer(class_name: str, fn) -> type:
    def __init__(self, name: str | None = None):
        Layer.__init__(self)
        self.name = name

    def forward(self, x):
        return fn(x, name=self.name)
    return type(class_name, (Layer,), {"__init__": __init__, "forward": forward,
                                       "__doc__": f"Applies ``F.{fn.__name__}``."})


Tanh = _activation_layer("Tanh", F.tanh)
Sigmoid = _activation_layer("Sigmoid", F.sigmoid)
ReLU6 = _activation_layer("ReLU6", F.relu6)
Silu = _activation_layer("Silu", F.silu)


class _Loss(Layer):
    reduction_error = ""    # Paddle's message, formatted with the received reduction

    def __init__(self, reduction: str = "mean", name: str | None = None):
        if reduction not in ("sum", "mean", "none"):
            raise ValueError(self.reduction_error.format(reduction))
        super().__init__()
        self.reduction, self.name = reduction, name


class MSELoss(_Loss):
    """Mean / sum / none of ``(input - label) ** 2``."""
    reduction_error = ("'reduction' in 'MSELoss' should be 'sum', 'mean' or 'none', but "
                       "received {}.")

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class L1Loss(_Loss):
    """Mean / sum / none of ``|input - label|``."""
    reduction_error = ("The value of 'reduction' in L1Loss should be 'sum', 'mean' or 'none', "
                       "but received {}, which is not allowed.")

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction, self.name)


class Embedding(Layer):
    """A [num_embeddings, embedding_dim] table (XavierUniform); ``padding_idx``'s row is zero."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 sparse: bool = False, weight_attr: Any = None, name: str | None = None):
        super().__init__()
        if num_embeddings <= 0 or embedding_dim <= 0:
            raise ValueError("num_embeddings and embedding_dim must be positive, received "
                             f"{num_embeddings} and {embedding_dim}")
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"padding_idx must be within [-{num_embeddings}, "
                             f"{num_embeddings})")
        # kept as given (None = no padding row): F.embedding reads a negative one from the end
        self._padding_idx = padding_idx
        self._sparse, self._name = sparse, name
        self.weight = self.create_parameter([num_embeddings, embedding_dim], weight_attr)
        if in_dynamic_mode() and padding_idx is not None:
            self.weight._array[padding_idx % num_embeddings] = 0.0

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx, sparse=self._sparse,
                           name=self._name)


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

