"""feed and fetch: declarations only; the Executor moves the data."""
from __future__ import annotations

from .registry import register_op

register_op("feed", inputs=["X"], outputs=["Out"], attrs={"col": 0}, differentiable=False,
            has_kernel=False)
register_op("fetch", inputs=["X"], outputs=["Out"], attrs={"col": 0}, differentiable=False,
            has_kernel=False)
