"""Containers (``paddle.nn.Sequential``, ``paddle.nn.LayerList``)."""
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


class LayerList(Layer):
    """A list of sublayers (``paddle.nn.LayerList``), registered under "0", "1", ..."""

    def __init__(self, sublayers=None):
        super().__init__()
        for layer in sublayers or ():
            self.append(layer)

    def append(self, sublayer: Layer) -> "LayerList":
        self.add_sublayer(str(len(self._sub_layers)), sublayer)
        return self

    def extend(self, sublayers) -> "LayerList":
        for layer in sublayers:
            self.append(layer)
        return self

    def __getitem__(self, index):
        layers = list(self._sub_layers.values())
        return LayerList(layers[index]) if isinstance(index, slice) else layers[index]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers.values()))
