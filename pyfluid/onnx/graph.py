"""GraphBuilder: the ONNX graph being written (nodes, constants, value names), with the small
helpers converters share (constants, Shape/Reshape/Cast, reductions across opsets).

Names follow ONNX's single-assignment rule: a Paddle variable keeps its own name when the op
writing it is its last writer; earlier writers (in-place updates, ``x = x + 1``) get a
suffixed name. Readers always see the current value of a variable.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .registry import OnnxExportError

# Reductions whose axes moved from an attribute to an input in opset 18 (ReduceSum: 13).
_AXES_INPUT_SINCE = {"ReduceSum": 13}


def onnx_dtype(np_dtype: Any) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype))


class GraphBuilder:
    """One ONNX graph: the model's main graph, or a subgraph of If/Loop (``parent`` set).
    Constants always go to the main graph's initializers, which subgraphs may read."""

    def __init__(self, opset: int, parent: "GraphBuilder | None" = None):
        self.opset = opset
        self.parent = parent
        self.root: GraphBuilder = parent.root if parent else self
        self.nodes: list[onnx.NodeProto] = []
        self.values: dict[str, str] = {}       # Paddle variable -> current ONNX value name
        self.dropped: dict[str, str] = {}      # Paddle variable -> why it has no ONNX value
        self.label = ""                        # the Paddle op being converted (node names)
        if parent is None:
            self.initializers: list[onnx.TensorProto] = []
            self.taken: set[str] = set()
            self._constants: dict[tuple, str] = {}
            self._node_count = 0

    # -- names ----------------------------------------------------------------------------
    def fresh(self, hint: str) -> str:
        """An ONNX value name not used anywhere in the model yet (``hint`` if free)."""
        taken = self.root.taken
        name, k = hint, 1
        while name in taken:
            name, k = f"{hint}_{k}", k + 1
        taken.add(name)
        return name

    def lookup(self, var: str) -> str | None:
        """The current ONNX value of Paddle variable ``var`` here or in an enclosing graph."""
        graph: GraphBuilder | None = self
        while graph is not None:
            if var in graph.values:
                return graph.values[var]
            if var in graph.dropped:
                raise OnnxExportError(graph.dropped[var])
            graph = graph.parent
        return None

    def bind(self, var: str, value: str) -> None:
        self.values[var] = value
        self.dropped.pop(var, None)

    # -- nodes ----------------------------------------------------------------------------
    def op(self, op_type: str, *inputs: str, outputs: int | Sequence[str] = 1,
           **attrs: Any) -> Any:
        """Append one node; returns its output name (a list when it has several).
        An input ``""`` is an omitted optional input; attributes set to None are left out."""
        if isinstance(outputs, int):
            names = [self.fresh(f"{self.label or 'v'}/{op_type}") for _ in range(outputs)]
        else:
            names = list(outputs)
        root = self.root
        root._node_count += 1
        node = helper.make_node(op_type, list(inputs), names,
                                name=f"{self.label or op_type}#{root._node_count}",
                                **{k: v for k, v in attrs.items() if v is not None})
        self.nodes.append(node)
        return names[0] if len(names) == 1 else names

    # -- constants ------------------------------------------------------------------------
    def const(self, value: Any, dtype: Any = None) -> str:
        """An initializer holding ``value`` (shared by equal constants)."""
        array = np.asarray(value, dtype=dtype)
        if array.dtype == np.float64 and dtype is None and not isinstance(value, np.ndarray):
            array = array.astype(np.float32)
        root = self.root
        key = (array.dtype.str, array.shape, array.tobytes())
        if key not in root._constants:
            name = self.fresh(f"const_{array.dtype.name}_{'x'.join(map(str, array.shape))}"
                              if array.ndim else f"const_{array.dtype.name}")
            root.initializers.append(numpy_helper.from_array(np.asarray(array, order="C"), name))
            root._constants[key] = name
        return root._constants[key]

    def ints(self, values: Sequence[int]) -> str:
        """A 1-D int64 constant (shapes, axes, starts...)."""
        return self.const(np.asarray(list(values), dtype=np.int64).reshape(-1))

    def scalar(self, value: Any, np_dtype: Any) -> str:
        return self.const(np.asarray(value, dtype=np_dtype))

    def add_initializer(self, name: str, array: np.ndarray) -> None:
        self.root.initializers.append(numpy_helper.from_array(np.asarray(array, order="C"), name))

    # -- shared helpers -------------------------------------------------------------------
    def cast(self, x: str, np_dtype: Any, out: str | None = None) -> str:
        return self.op("Cast", x, to=onnx_dtype(np_dtype), **_out(out))

    def shape(self, x: str, start: int | None = None, end: int | None = None) -> str:
        return self.op("Shape", x, start=start, end=end)

    def reshape(self, x: str, shape: str | Sequence[int], out: str | None = None) -> str:
        target = shape if isinstance(shape, str) else self.ints(shape)
        return self.op("Reshape", x, target, **_out(out))

    def squeeze(self, x: str, axes: Sequence[int], out: str | None = None) -> str:
        return self.op("Squeeze", x, self.ints(axes), **_out(out))

    def unsqueeze(self, x: str, axes: Sequence[int], out: str | None = None) -> str:
        return self.op("Unsqueeze", x, self.ints(axes), **_out(out))

    def reduce(self, op_type: str, x: str, axes: Sequence[int] | None, keepdims: bool,
               out: str | None = None) -> str:
        """``ReduceSum/Mean/Max/...`` over ``axes`` (None: all axes), in either opset form."""
        if axes is not None and not len(axes):
            axes = None
        if self.opset >= _AXES_INPUT_SINCE.get(op_type, 18):
            inputs = (x,) if axes is None else (x, self.ints(axes))
            return self.op(op_type, *inputs, keepdims=int(keepdims), **_out(out))
        return self.op(op_type, x, keepdims=int(keepdims),
                       axes=None if axes is None else list(axes), **_out(out))

    def split(self, x: str, sizes: Sequence[int], axis: int,
              outputs: Sequence[str] | None = None) -> list[str]:
        names = self.op("Split", x, self.ints(sizes), axis=axis,
                        outputs=list(outputs) if outputs else len(sizes))
        return names if isinstance(names, list) else [names]

    def subgraph(self) -> "GraphBuilder":
        return GraphBuilder(self.opset, parent=self)

    def to_graph(self, name: str, inputs: list, outputs: list) -> onnx.GraphProto:
        initializers = self.initializers if self.parent is None else []
        return helper.make_graph(self.nodes, name, inputs, outputs, initializer=initializers)


def _out(out: str | None) -> dict:
    return {"outputs": [out]} if out else {}
