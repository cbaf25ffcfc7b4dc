"""One entry point for every functional op: static Variables append ops to their program;
otherwise (dynamic mode) the op runs eagerly through the same registry declaration."""
from __future__ import annotations

from typing import Any, Sequence

from .engine.run import run_op
from .engine.tensor import EagerParameter, Tensor
from .framework.context import in_dynamic_mode
from .framework.layer_helper import LayerHelper
from .framework.op_append import append_simple_op
from .framework.variable import Variable
from .ops import get_op

TENSOR_TYPES = (Variable, Tensor)


_EAGER_VALUES = frozenset((Tensor, EagerParameter, type(None)))


def _has_static(inputs: dict) -> bool:
    for value in inputs.values():
        if value.__class__ in _EAGER_VALUES:
            continue
        if isinstance(value, Variable):
            return True
        if isinstance(value, (list, tuple)) and any(isinstance(v, Variable) for v in value):
            return True
    return False


def is_static(inputs: dict) -> bool:
    """Whether ops on ``inputs`` are appended to a program (as ``apply_op`` decides)."""
    return not in_dynamic_mode() or _has_static(inputs)


def apply_op(op_type: str, inputs: dict, attrs: dict | None = None, name: str | None = None,
             outputs: dict | None = None, layer: str | None = None) -> Any:
    """Append ``op_type`` (static inputs or static mode) or run it eagerly. ``layer`` is the
    LayerHelper name Paddle's API uses for temporaries (``sum`` for ``paddle.sum``)."""
    if not in_dynamic_mode() or _has_static(inputs):            # is_static, inlined
        return append_simple_op(op_type, inputs, attrs, name=name, outputs=outputs, layer=layer)
    return run_op(op_type, inputs, attrs or {})


def layer_op(layer: str, op_type: str, inputs: dict, attrs: dict | None = None,
             outputs: Sequence[tuple[str, Any, bool]] = (("Out", None, False),),
             name: str | None = None) -> tuple:
    """Append ``op_type`` as ``LayerHelper(layer, name=name)`` does, with one temporary per
    ``(slot, dtype or None for the first input's dtype, stop_gradient)`` created in that
    order; or run it eagerly. Returns the outputs in the order of ``outputs``."""
    if not is_static(inputs):
        opdef = get_op(op_type)
        single = {s.name for s in opdef.inputs if not s.duplicable}
        result = apply_op(op_type, {k: v[0] if k in single and isinstance(v, list) else v
                                    for k, v in inputs.items()}, attrs or {})
        result = result if isinstance(result, tuple) else (result,)
        by_slot = dict(zip((s.name for s in opdef.outputs), result))
        return tuple(by_slot[slot] for slot, _, _ in outputs)
    first = next(v for value in inputs.values()
                 for v in (value if isinstance(value, (list, tuple)) else [value]))
    helper = LayerHelper(layer, name=name)
    created = [helper.create_variable_for_type_inference(
        first.dtype if dtype is None else dtype, stop_gradient=stop) for _, dtype, stop in outputs]
    helper.append_op(type=op_type, inputs=inputs, attrs=attrs or {},
                     outputs={slot: var for (slot, _, _), var in zip(outputs, created)})
    return tuple(created)
