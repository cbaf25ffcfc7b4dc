"""Append one op whose outputs are fresh temporaries, to the block of its Variable inputs (or
the current block of the default main program): the building block of layer functions."""
from __future__ import annotations

from typing import Any

from .context import default_main_program
from .variable import Variable


def append_simple_op(op_type: str, inputs: dict, attrs: dict | None = None,
                     name: str | None = None, outputs: dict | None = None,
                     block=None, layer: str | None = None) -> Any:
    """Append ``op_type`` to ``block`` (default: the current block of the program its inputs
    belong to, else of the default main program); see ``Block._append_with_temporaries``."""
    block = block or _block_of(inputs)
    return block._append_with_temporaries(op_type, inputs, attrs, name=name, outputs=outputs,
                                          layer=layer)


def _block_of(inputs: dict):
    for value in inputs.values():
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if isinstance(v, Variable):
                return v.block.program.current_block()
    return default_main_program().current_block()
