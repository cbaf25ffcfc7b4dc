"""Common layers: Linear, Dropout, Flatten, Embedding, the padding layers (Pad1D/2D/3D,
ZeroPad2D) and the resizing layers (Upsample, UpsamplingNearest2D, UpsamplingBilinear2D)."""
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
        params = self._parameters
        if type(self) is Linear and "weight" in params and "bias" in params:
            # what self.weight / self.bias find (no class attribute of those names, and
            # setting a parameter drops an instance one), without a failed lookup first
            return F.linear(x, params["weight"], params["bias"])
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


# -- padding -----------------------------------------------------------------------------------
def _npairs(padding: Any, n: int) -> Any:
    """An int padding repeated for both sides of ``n`` dims; lists and Tensors as given."""
    return padding if isinstance(padding, (list, tuple)) or hasattr(padding, "shape") \
        else [padding] * (2 * n)


class _Pad(Layer):
    dims = 0
    default_format = ""

    def __init__(self, padding: Any, mode: str = "constant", value: float = 0.0,
                 data_format: str | None = None, name: str | None = None):
        super().__init__()
        self._pad, self._mode, self._value = _npairs(padding, self.dims), mode, value
        self._data_format, self._name = data_format or self.default_format, name

    def forward(self, x):
        return F.pad(x, pad=self._pad, mode=self._mode, value=self._value,
                     data_format=self._data_format, name=self._name)


class Pad1D(_Pad):
    """Pads the last dim of NCL / NLC inputs: [left, right]."""
    dims, default_format = 1, "NCL"


class Pad2D(_Pad):
    """Pads H and W of NCHW / NHWC inputs: [left, right, top, bottom]."""
    dims, default_format = 2, "NCHW"


class Pad3D(_Pad):
    """Pads D, H and W of NCDHW / NDHWC inputs: [left, right, top, bottom, front, back]."""
    dims, default_format = 3, "NCDHW"


class ZeroPad2D(_Pad):
    """Zero padding of H and W: [left, right, top, bottom]."""
    dims, default_format = 2, "NCHW"

    def __init__(self, padding: Any, data_format: str = "NCHW", name: str | None = None):
        super().__init__(padding, "constant", 0.0, data_format, name)


# -- resizing ----------------------------------------------------------------------------------
class Upsample(Layer):
    """``F.interpolate`` with fixed settings."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool = False, align_mode: int = 0, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode = align_corners, align_mode
        self.data_format, self.name = data_format, name

    def forward(self, x):
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode,
                             data_format=self.data_format, name=self.name)


class UpsamplingNearest2D(Upsample):
    """Nearest-neighbour resizing of 4-D inputs."""

    def __init__(self, size: Any = None, scale_factor: Any = None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__([size, size] if isinstance(size, int) else size, scale_factor,
                         "nearest", False, 0, data_format, name)


class UpsamplingBilinear2D(Upsample):
    """Bilinear resizing of 4-D inputs with align_corners=True."""

    def __init__(self, size: Any = None, scale_factor: Any = None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__([size, size] if isinstance(size, int) else size, scale_factor,
                         "bilinear", True, 0, data_format, name)
