"""Containers (``paddle.nn.Sequential``)."""
from __future__ import annotations

from .layers import Layer


class Sequential(Layer):
    """Layers applied in order: ``Sequential(l1, l2)`` or ``Sequential(('name', l1), ...)``."""

    def __init__(self, *layers):
        super().__init__()
        items = layers[0].items() if len(layers) == 1 and isinstance(layers[0], dict) else layers
        for i, item in enumerate(items):
            name, layer = item if isinstance(item, tuple) else (str(i), item)
            self.add_sublayer(name, layer)

    def __getitem__(self, index: int) -> Layer:
        return list(self._sub_layers.values())[index]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def forward(self, x):
        for layer in self._sub_layers.values():
            x = layer(x)
        return x
