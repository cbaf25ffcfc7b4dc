"""ProgramWriter: a static program's global block as an ONNX model. Feeds become graph inputs
(unknown dims as symbolic dims), parameters initializers, fetch targets graph outputs; each op
goes through the converter registered for its type (``convert_*.py``)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np
import onnx
from onnx import helper

from ..ops.types import VarType, to_numpy_dtype
from .graph import GraphBuilder, onnx_dtype
from .node import OpNode
from .registry import CONVERTERS, OnnxExportError
from . import converters  # noqa: F401  (registers every converter family)

if TYPE_CHECKING:
    from ..framework.block import Block
    from ..framework.program import Program

MIN_OPSET = 13


class ProgramWriter:
    def __init__(self, program: "Program", scope, opset: int):
        if not MIN_OPSET <= opset <= onnx.defs.onnx_opset_version():
            raise ValueError(f"opset_version must be in [{MIN_OPSET}, "
                             f"{onnx.defs.onnx_opset_version()}] (the installed onnx package's "
                             f"newest), received {opset}")
        self.program = program
        self.scope = scope
        self.opset = opset
        self.constants: dict[str, np.ndarray] = {}     # values known at export time
        # Element type of each ONNX value of a Paddle variable as it is at run time (a
        # variable's recorded dtype can be stale after assign, in dy2static programs), and
        # the values that stand for "no value yet" (dy2static's undefined variables).
        self.dtypes: dict[str, np.dtype] = {}
        self.placeholders: set[str] = set()
        self.sequences: set[str] = set()              # values of tensor arrays
        self._last_writer: dict[tuple[int, str], int] = {}
        self._position: tuple[int, int] = (0, -1)      # (block, op index) being converted

    # -- the model ------------------------------------------------------------------------
    def model(self, feed_names: Sequence[str], fetch_names: Sequence[str],
              graph_name: str = "pyfluid") -> onnx.ModelProto:
        block = self.program.global_block()
        g = GraphBuilder(self.opset)
        inputs = []
        for name in feed_names:
            var = block._find_var_recursive(name)
            if var is None:
                raise OnnxExportError(f"feed variable '{name}' is not in the program")
            g.root.taken.add(name)
            g.bind(name, name)
            self.dtypes[name] = to_numpy_dtype(var.dtype)
            inputs.append(_value_info(name, var))
        self.convert_block(g, block)
        outputs = []
        for name in fetch_names:
            value = self.read(g, name, None)
            if value != name:
                value = g.op("Identity", value, outputs=[g.fresh(name)])
            outputs.append(_value_info(value, block._var_recursive(name)))
        opset = [helper.make_opsetid("", self.opset)]
        _drop_unused_initializers(g, outputs)
        inferred = _inferred_outputs(g, inputs, outputs, opset)
        graph = g.to_graph(graph_name, inputs, inferred)
        return helper.make_model(graph, opset_imports=opset, producer_name="pyfluid",
                                 ir_version=helper.find_min_ir_version_for(opset))

    def convert_block(self, g: GraphBuilder, block: "Block") -> None:
        """Convert ``block``'s ops into ``g`` (a sub-block into its If/Loop subgraph)."""
        outer = self._position
        for index, op in enumerate(block.ops):
            for name in op.output_arg_names:
                self._last_writer[(block.idx, name)] = index
        for index, op in enumerate(block.ops):
            if op.type in ("feed", "fetch"):
                continue
            self.convert_op(g, op, index)
        self._position = outer

    def convert_op(self, g: GraphBuilder, op, index: int) -> None:
        node = OpNode(self, g, op, index)
        convert = CONVERTERS.get(op.type)
        if convert is None:
            outputs = ", ".join(repr(v) for v in op.output_arg_names) or "none"
            raise OnnxExportError(
                f"op {node.label} (outputs: {outputs}) has no ONNX converter; pyfluid "
                f"converts {len(CONVERTERS)} op types (pyfluid.onnx.supported_op_types()). "
                "Add one in pyfluid/onnx/convert_<family>.py")
        previous, g.label = g.label, f"{op.type}_{index}" if g.parent is None else \
            f"{op.type}_{op.block.idx}_{index}"
        self._position = (op.block.idx, index)
        try:
            convert(g, node)
        except OnnxExportError:
            raise
        except Exception as exc:
            raise OnnxExportError(f"op {node.label}: {type(exc).__name__}: {exc}") from exc
        finally:
            g.label = previous
        written = node.defined()
        for slot, names in op.outputs.items():
            for name in names:
                if name not in written and name not in op.input_arg_names:
                    g.dropped[name] = (f"variable '{name}' (output '{slot}' of op {node.label}) "
                                       f"has no ONNX value: the converter writes only the "
                                       f"outputs ONNX can express")

    # -- values ---------------------------------------------------------------------------
    def read(self, g: GraphBuilder, name: str, node: OpNode | None) -> str:
        reader = f"read by op {node.label}" if node else "fetched"
        try:
            value = g.lookup(name)
        except OnnxExportError as exc:
            raise OnnxExportError(f"{exc}; it is {reader}") from None
        if value is not None:
            return value
        var = (node.op.block if node else self.program.global_block())._find_var_recursive(name)
        if var is not None and var.persistable:
            array = self.constant_value(name)
            if array is None:
                raise OnnxExportError(
                    f"persistable variable '{name}' ({reader}) has no value in the scope: run "
                    "the startup program or load the parameters before exporting")
            g.root.taken.add(name)
            g.add_initializer(name, array)
            g.root.bind(name, name)
            self.dtypes[name] = array.dtype
            return name
        if var is not None and var.type == VarType.LOD_TENSOR_ARRAY:    # not written yet
            value = g.op("SequenceEmpty", dtype=onnx_dtype(to_numpy_dtype(var.dtype)),
                         outputs=[g.fresh(f"{name}.empty")])
            g.bind(name, value)
            self.sequences.add(value)
            self.dtypes[value] = to_numpy_dtype(var.dtype)
            return value
        raise OnnxExportError(f"variable '{name}' ({reader}) is not fed, not a parameter and "
                              "not written by an earlier op")

    def define(self, g: GraphBuilder, name: str) -> str:
        block, index = self._position
        last = self._last_writer.get((block, name)) == index and block == 0
        value = g.fresh(name if last else f"{name}.w{index}")
        g.bind(name, value)
        var = self.program.block(block)._find_var_recursive(name)
        if var is not None and var.dtype.is_dtype:
            self.dtypes[value] = to_numpy_dtype(var.dtype)
        if var is not None and var.type == VarType.LOD_TENSOR_ARRAY:
            self.sequences.add(value)
        return value

    def constant_value(self, name: str) -> np.ndarray | None:
        """The value of ``name`` known at export time: a parameter in the scope, or the output
        of a constant op (fill_constant, assign_value) recorded by its converter."""
        if name in self.constants:
            return self.constants[name]
        var = self.program.global_block()._find_var_recursive(name)
        if var is None or not var.persistable or self.scope is None:
            return None
        found = self.scope.find_var(name)
        if found is None or not found.get_tensor()._is_initialized():
            return None
        return np.asarray(found.get_tensor().numpy())


def _drop_unused_initializers(g: GraphBuilder, outputs: list) -> None:
    """Constants that no node reads any more (stand-ins replaced while unifying types)."""
    used = {o.name for o in outputs}

    def visit(nodes) -> None:
        for node in nodes:
            used.update(node.input)
            for attr in node.attribute:
                for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                    used.update(o.name for o in sub.output)
                    visit(sub.node)
    visit(g.nodes)
    g.initializers[:] = [t for t in g.initializers if t.name in used]


def _inferred_outputs(g: GraphBuilder, inputs: list, outputs: list, opset: list) -> list:
    """The graph outputs with the shapes ONNX shape inference derives (symbolic dims of the
    inputs carried through), where it derives one; otherwise the shapes Paddle recorded.
    Inference runs on a copy whose large initializers are declared as inputs (their values
    never decide a shape), so it costs little for big models."""
    small = [t for t in g.initializers if _size(t) <= _SMALL]
    typed = [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
             for t in g.initializers if _size(t) > _SMALL]
    probe_outputs = [helper.make_tensor_value_info(o.name, o.type.tensor_type.elem_type, None)
                     for o in outputs]
    probe = helper.make_model(helper.make_graph(g.nodes, "probe", inputs + typed, probe_outputs,
                                                initializer=small), opset_imports=opset,
                              ir_version=helper.find_min_ir_version_for(opset))
    try:
        found = onnx.shape_inference.infer_shapes(probe).graph.output
    except Exception:       # the checker reports real problems later
        return outputs
    result = []
    for declared, inferred in zip(outputs, found):
        shape = inferred.type.tensor_type
        if not shape.HasField("shape"):
            result.append(declared)
            continue
        dims = [d.dim_value if d.HasField("dim_value") else
                d.dim_param if d.dim_param and not d.dim_param.startswith("unk__") else
                f"{declared.name}_d{i}" for i, d in enumerate(shape.shape.dim)]
        result.append(helper.make_tensor_value_info(declared.name, shape.elem_type, dims))
    return result


_SMALL = 4096


def _size(tensor: onnx.TensorProto) -> int:
    return int(np.prod(tensor.dims, dtype=np.int64)) if tensor.dims else 1


def _value_info(name: str, var) -> onnx.ValueInfoProto:
    dims = [f"{name}_d{i}" if d is None or d < 0 else int(d) for i, d in enumerate(var.shape)]
    return helper.make_tensor_value_info(name, onnx_dtype(to_numpy_dtype(var.dtype)), dims)
