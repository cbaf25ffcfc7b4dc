"""The converter registry: one function per Paddle op type, declared next to its family in
``convert_<family>.py``::

    @converter("relu")
    def relu(g, n):
        g.op("Relu", n.input("X"), outputs=[n.output("Out")])

``g`` is the :class:`~pyfluid.onnx.graph.GraphBuilder` (emits ONNX nodes and constants),
``n`` the :class:`~pyfluid.onnx.node.OpNode` (the Paddle op: its inputs as ONNX value names,
its attributes, shapes and dtypes, and the names to give its outputs). A converter defines
the outputs that have an ONNX counterpart; reading one it left out later is an error that
names the op and the output.
"""
from __future__ import annotations

from typing import Callable

CONVERTERS: dict[str, Callable] = {}
REFUSED: dict[str, str] = {}        # op types without an ONNX equivalent -> why


class OnnxExportError(ValueError):
    """A program that cannot be written as ONNX: the message names the op and variable."""


def converter(*op_types: str) -> Callable:
    """Register the decorated function as the converter of ``op_types``."""
    def register(fn: Callable) -> Callable:
        for op_type in op_types:
            if op_type in CONVERTERS:
                raise ValueError(f"a converter for op '{op_type}' is already registered "
                                 f"({CONVERTERS[op_type].__module__})")
            CONVERTERS[op_type] = fn
        return fn
    return register


def unsupported(op_type: str, reason: str) -> None:
    """Register ``op_type`` as an op without an ONNX equivalent; converting it raises an
    error with ``reason`` (what the op does that ONNX cannot, and what to do instead)."""
    REFUSED[op_type] = reason

    @converter(op_type)
    def refuse(g, n):
        outputs = ", ".join(repr(v) for v in n.op.output_arg_names) or "none"
        raise OnnxExportError(f"op {n.label} (outputs: {outputs}) has no ONNX equivalent: "
                              f"{reason}")


def supported_op_types() -> list[str]:
    """Op types the exporter converts (those that only raise a clear error are left out)."""
    from . import converters  # noqa: F401  (registers every family)
    return sorted(set(CONVERTERS) - set(REFUSED))
