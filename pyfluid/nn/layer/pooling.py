"""Pooling layers (no parameters: they call the functional pools with their settings)."""
from __future__ import annotations

from typing import Any

from .. import functional as F
from .layers import Layer


class MaxPool2D(Layer):
    """Max pooling over NCHW windows; ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__()
        self._settings = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                              return_mask=return_mask, ceil_mode=ceil_mode,
                              data_format=data_format, name=name)

    def forward(self, x):
        return F.max_pool2d(x, **self._settings)


class AvgPool2D(Layer):
    """Average pooling; ``exclusive`` leaves padding out of the count."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, exclusive: bool = True,
                 divisor_override: float | None = None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__()
        self._settings = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                              ceil_mode=ceil_mode, exclusive=exclusive,
                              divisor_override=divisor_override, data_format=data_format,
                              name=name)

    def forward(self, x):
        return F.avg_pool2d(x, **self._settings)


class AdaptiveAvgPool2D(Layer):
    """Average pooling to a fixed ``output_size``."""

    def __init__(self, output_size: Any, data_format: str = "NCHW", name: str | None = None):
        super().__init__()
        self._settings = dict(output_size=output_size, data_format=data_format, name=name)

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, **self._settings)


class AdaptiveMaxPool2D(Layer):
    """Max pooling to a fixed ``output_size``; ``return_mask`` also returns the indices."""

    def __init__(self, output_size: Any, return_mask: bool = False, name: str | None = None):
        super().__init__()
        self._settings = dict(output_size=output_size, return_mask=return_mask, name=name)

    def forward(self, x):
        return F.adaptive_max_pool2d(x, **self._settings)
