"""OpNode: what a converter sees of one Paddle op: its inputs as ONNX value names, its
attributes (declared defaults filled in), the static shapes and dtypes of its variables, and
the ONNX names its outputs get."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..ops.types import VarType, to_numpy_dtype
from .registry import OnnxExportError

if TYPE_CHECKING:
    from ..framework.operator import Operator
    from ..framework.variable import Variable
    from .graph import GraphBuilder
    from .program import ProgramWriter


class OpNode:
    def __init__(self, writer: "ProgramWriter", g: "GraphBuilder", op: "Operator", index: int):
        self.writer = writer
        self.g = g
        self.op = op
        self.type = op.type
        self.label = f"'{op.type}' (#{index} of block {op.block.idx})"
        self._defined: set[str] = set()

    # -- attributes -----------------------------------------------------------------------
    def attr(self, name: str) -> Any:
        if name in self.op.attrs:
            return self.op.attrs[name]
        opdef = self.op.opdef
        spec = opdef.attrs.get(name) if opdef else None
        return spec.default if spec is not None else None

    # -- inputs ---------------------------------------------------------------------------
    def has(self, slot: str) -> bool:
        return bool(self.op.input(slot))

    def inputs(self, slot: str) -> list[str]:
        return [self.writer.read(self.g, name, self) for name in self.op.input(slot)]

    def input(self, slot: str) -> str:
        names = self.op.input(slot)
        if len(names) != 1:
            self.fail(f"input slot '{slot}' must hold one variable, it holds {names}")
        return self.writer.read(self.g, names[0], self)

    def var(self, slot: str, output: bool = False, i: int = 0) -> "Variable":
        names = self.op.output(slot) if output else self.op.input(slot)
        if len(names) <= i:
            self.fail(f"{'output' if output else 'input'} slot '{slot}' is empty")
        return self.op.block._var_recursive(names[i])

    def shape(self, slot: str, output: bool = False, i: int = 0) -> tuple:
        """The static shape Paddle recorded for the variable (-1 = known only at run time)."""
        return tuple(self.var(slot, output, i).shape)

    def rank(self, slot: str, output: bool = False) -> int:
        return len(self.shape(slot, output))

    def dtype(self, slot: str, output: bool = False, i: int = 0) -> VarType:
        return self.var(slot, output, i).dtype

    def np_dtype(self, slot: str, output: bool = False, i: int = 0) -> np.dtype:
        return to_numpy_dtype(self.dtype(slot, output, i))

    def constant(self, slot: str) -> np.ndarray | None:
        """The value of an input that is a parameter or a constant folded at export time."""
        names = self.op.input(slot)
        return self.writer.constant_value(names[0]) if len(names) == 1 else None

    # -- outputs --------------------------------------------------------------------------
    def has_output(self, slot: str) -> bool:
        return bool(self.op.output(slot))

    def output(self, slot: str, i: int = 0) -> str:
        """The ONNX name for output ``slot`` (its ``i``-th variable); calling this promises
        that the converter writes it."""
        names = self.op.output(slot)
        if len(names) <= i:
            self.fail(f"output slot '{slot}' is empty")
        self._defined.add(names[i])
        return self.writer.define(self.g, names[i])

    def outputs(self, slot: str) -> list[str]:
        return [self.output(slot, i) for i in range(len(self.op.output(slot)))]

    def defined(self) -> set[str]:
        return self._defined

    def fail(self, message: str) -> None:
        raise OnnxExportError(f"op {self.label}: {message}")
