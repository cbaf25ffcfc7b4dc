"""Append one op whose outputs are fresh temporaries: the building block of every layer
function and of Variable arithmetic."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.registry import get_op
from . import unique_name
from .context import default_main_program
from .arithmetic import scale_rule
from .variable import Variable


def append_simple_op(op_type: str, inputs: dict, attrs: dict | None = None,
                     name: str | None = None, outputs: dict | None = None,
                     block=None, layer: str | None = None) -> Any:
    """Append ``op_type`` to the current block of the main program (or ``block``). Output
    slots not given in ``outputs`` get new temporaries named ``<layer>_<n>.tmp_<k>``, where
    ``layer`` is Paddle's LayerHelper name (default: the op type). Returns the output
    Variable (a tuple of them when the op has several output slots)."""
    block = block or _block_of(inputs)
    opdef = get_op(op_type)
    outputs = dict(outputs or {})
    prefix = name or unique_name.generate(layer or op_type)
    created = []
    for slot in opdef.outputs:
        if slot.name in outputs or slot.dispensable:
            continue
        var = block.create_var(name=unique_name.generate_with_ignorable_key(prefix + ".tmp"))
        outputs[slot.name] = var
        created.append(var)
    block.append_op(type=op_type, inputs=inputs, outputs=outputs, attrs=attrs)
    return created[0] if len(created) == 1 else tuple(created)


def _block_of(inputs: dict):
    for value in inputs.values():
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if isinstance(v, Variable):
                return v.block.program.current_block()
    return default_main_program().current_block()


def operator_op(op_type: str, inputs: dict, attrs: dict | None = None) -> Variable:
    """Append ``op_type`` for a Python operator on Variables: like Paddle's patched operators,
    its one output is a fresh ``tmp_<n>`` (``unique_name`` key "tmp")."""
    block = _block_of(inputs)
    out = block.create_var(name=unique_name.generate_with_ignorable_key("tmp"))
    append_simple_op(op_type, inputs, attrs, outputs={"Out": out}, block=block)
    return out


def scale(x: Variable, scale: float = 1.0, bias: float = 0.0,
          bias_after_scale: bool = True) -> Variable:
    """``x * scale + bias`` for an operator (``-x``, ``x * 2``): one ``scale`` op."""
    return operator_op("scale", {"X": x}, {"scale": float(scale), "bias": float(bias),
                                           "bias_after_scale": bias_after_scale})


def fill_constant(shape, dtype, value, block) -> Variable:
    """The constant operand of ``x <op> c`` (Paddle's create_tensor: a ``tmp_<n>``)."""
    out = block.create_var(name=unique_name.generate_with_ignorable_key("tmp"))
    block.append_op(type="fill_constant", outputs={"Out": out},
                    attrs={"shape": list(shape), "dtype": int(_dtype(dtype)), "value": float(value)})
    return out


def _dtype(dtype):
    from ..ops.types import convert_dtype
    return convert_dtype(dtype)


def binary_op(op_type: str, x: Variable, other: Any, reverse: bool = False) -> Variable:
    """``x <op> other`` (or ``other <op> x`` when ``reverse``), as Paddle's patched operators."""
    if isinstance(other, (int, float, np.integer, np.floating)) and not isinstance(other, bool):
        rule = scale_rule(op_type, reverse)
        if rule is not None:
            s, b = rule(float(other))
            return scale(x, s, b)
        # Paddle 2.6: a 0-D constant for ``x <op> c``; for ``c <op> x`` one of x's shape
        # (Paddle's batch-size-like fill when a dim is unknown; pyfluid then uses [1])
        shape = list(x.shape) if reverse and all(d >= 0 for d in x.shape) else \
            [1] if reverse else []
        other = fill_constant(shape, x.dtype, other, x.block)
    if not isinstance(other, Variable):
        return NotImplemented
    lhs, rhs = (other, x) if reverse else (x, other)
    attrs = {} if op_type == "matmul_v2" else {"axis": -1}
    return operator_op(op_type, {"X": lhs, "Y": rhs}, attrs)
