"""One entry point for every functional op: static Variables append ops to their program;
otherwise (dynamic mode) the op runs eagerly through the same registry declaration."""
from __future__ import annotations

from typing import Any

from .framework.context import in_dynamic_mode
from .framework.math_ops import append_simple_op
from .framework.variable import Variable


def _has_static(inputs: dict) -> bool:
    for value in inputs.values():
        if isinstance(value, Variable):
            return True
        if isinstance(value, (list, tuple)) and any(isinstance(v, Variable) for v in value):
            return True
    return False


def apply_op(op_type: str, inputs: dict, attrs: dict | None = None, name: str | None = None,
             outputs: dict | None = None, layer: str | None = None) -> Any:
    """Append ``op_type`` (static inputs or static mode) or run it eagerly. ``layer`` is the
    LayerHelper name Paddle's API uses for temporaries (``sum`` for ``paddle.sum``)."""
    if not in_dynamic_mode() or _has_static(inputs):
        return append_simple_op(op_type, inputs, attrs, name=name, outputs=outputs, layer=layer)
    return run_op(op_type, inputs, attrs or {})


# eager mode is built on the same registry (imported last: pyfluid.eager imports apply_op)
from .eager.run import run_op  # noqa: E402
