"""One entry point for every functional op: static Variables append ops to their program;
otherwise (dynamic mode) the op runs eagerly through the same registry declaration."""
from __future__ import annotations

from typing import Any

from .framework.context import in_dynamic_mode
from .framework.math_ops import append_simple_op
from .framework.variable import Variable


def _has_static(inputs: dict) -> bool:
    for value in inputs.values():
        values = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(v, Variable) for v in values):
            return True
    return False


def apply_op(op_type: str, inputs: dict, attrs: dict | None = None, name: str | None = None,
             outputs: dict | None = None) -> Any:
    if _has_static(inputs) or not in_dynamic_mode():
        return append_simple_op(op_type, inputs, attrs, name=name, outputs=outputs)
    from .eager import run_op  # eager mode is built on the same registry
    return run_op(op_type, inputs, attrs or {})
