"""Common layers: Linear, Dropout, Flatten, Embedding."""
from __future__ import annotations

from typing import Any, Sequence


from ...framework.context import in_dynamic_mode
from ...tensor.manipulation import flatten
from .. import functional as F
from .layers import Layer


class Linear(Layer):
    """``y = x @ weight + bias`` with weight of shape [in_features, out_features]."""

    def __init__(self, in_features: int, out_features: int, weight_attr: Any = None,
                 bias_attr: Any = None, name: str | None = None):
        super().__init__()
        self.weight = self.create_parameter([in_features, out_features], weight_attr)
        self.bias = self.create_parameter([out_features], bias_attr, is_bias=True)
        self.name = name

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}"


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
        return flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)


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
