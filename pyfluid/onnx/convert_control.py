"""Control flow: conditional_block -> ONNX If, while -> ONNX Loop, select_input -> If, with
the sub-block converted into the subgraph; plus the ops control flow leans on (logical_*,
shape, range).

A sub-block reads outer values (parameters, earlier results) through ONNX's outer scope. A
conditional_block's else branch passes on the values its outputs had before (Paddle leaves
them untouched when the condition is false); an output that had none gets a placeholder of
its dtype, which Paddle's ``select_input`` never picks.
"""
from __future__ import annotations

import numpy as np
from onnx import helper

from ..ops.types import VarType, to_numpy_dtype
from .graph import onnx_dtype
from .registry import converter, unsupported


def _sub_block(n):
    index = n.op.attr("sub_block")
    return n.op.block.program.block(index if isinstance(index, int) else index.idx)


def _dtype(n, value: str, var_name: str) -> np.dtype:
    """The run-time dtype of ``value`` (the variable's recorded one when unknown)."""
    known = n.writer.dtypes.get(value)
    return known if known is not None else \
        to_numpy_dtype(n.op.block._var_recursive(var_name).dtype)


def _placeholder(g, n, var_name: str, dtype=None) -> str:
    """A stand-in for a variable without a value: never read by Paddle's programs (an empty
    sequence for a tensor array)."""
    var = n.op.block._var_recursive(var_name)
    dtype = np.dtype(dtype or to_numpy_dtype(var.dtype))
    if var.type == VarType.LOD_TENSOR_ARRAY:
        value = g.op("SequenceEmpty", dtype=onnx_dtype(dtype))
        n.writer.sequences.add(value)
    else:
        value = g.const(np.zeros([max(int(d), 1) for d in var.shape], dtype))
    n.writer.dtypes[value] = dtype
    n.writer.placeholders.add(value)
    return value


def _value_info(n, name: str, value: str, dtype) -> "onnx.ValueInfoProto":
    make = helper.make_tensor_sequence_value_info if value in n.writer.sequences else \
        helper.make_tensor_value_info
    return make(name, onnx_dtype(dtype), None)


def _unify(n, var_name: str, graphs: list, values: list[str]) -> tuple[list[str], np.dtype]:
    """Values that meet (If branches, Loop state) with one dtype: a placeholder takes the
    dtype of the real values (dy2static's undefined variables are float32 stand-ins)."""
    dtypes = [_dtype(n, v, var_name) for v in values]
    real = {d for d, v in zip(dtypes, values) if v not in n.writer.placeholders}
    if len(real) > 1:
        n.fail(f"variable '{var_name}' has dtypes {sorted(d.name for d in real)} on different "
               "paths; ONNX control flow needs one")
    dtype = real.pop() if real else dtypes[0]
    values = [v if d == dtype else _placeholder(graph, n, var_name, dtype)
              for graph, v, d in zip(graphs, values, dtypes)]
    return values, dtype


def _graph_outputs(sub, n, values: list[str], dtypes: list, label: str) -> list:
    """Subgraph outputs: each value copied into a name of the subgraph's own."""
    infos = []
    for value, dtype in zip(values, dtypes):
        name = sub.op("Identity", value, outputs=[sub.fresh(f"{label}/{value}")])
        infos.append(_value_info(n, name, value, dtype))
    return infos


def _single_bool(g, value: str, dtype) -> str:
    return value if dtype == np.bool_ else g.cast(value, np.bool_)


def _branches(g, n, then, then_values: list[str], else_values: list[str], names: list[str],
              label: str, otherwise=None):
    """(then graph, else graph, dtypes) of an If whose outputs are Paddle vars ``names``."""
    otherwise = otherwise or g.subgraph()
    pairs = [_unify(n, name, [then, otherwise], [a, b])
             for name, a, b in zip(names, then_values, else_values)]
    dtypes = [dtype for _, dtype in pairs]
    then_graph = then.to_graph(f"{label}_then", [], _graph_outputs(
        then, n, [values[0] for values, _ in pairs], dtypes, "then"))
    else_graph = otherwise.to_graph(f"{label}_else", [], _graph_outputs(
        otherwise, n, [values[1] for values, _ in pairs], dtypes, "else"))
    return then_graph, else_graph, dtypes


def _define(g, n, names: list[str], dtypes: list) -> list[str]:
    results = [n.writer.define(g, v) for v in names]
    for value, dtype in zip(results, dtypes):
        n.writer.dtypes[value] = np.dtype(dtype)
    n.defined().update(names)
    return results


@converter("conditional_block")
def conditional_block(g, n):
    outs = n.op.output("Out")
    if n.attr("is_scalar_condition"):
        cond = _single_bool(g, n.input("Cond"), n.np_dtype("Cond"))
    else:                               # Paddle: runs when every Cond tensor is non-empty
        zero = g.const(np.array(0, np.int64))
        sizes = [g.op("Not", g.op("Equal", g.op("Size", c), zero)) for c in n.inputs("Cond")]
        cond = sizes[0]
        for size in sizes[1:]:
            cond = g.op("And", cond, size)
    then = g.subgraph()
    then.label = g.label
    n.writer.convert_block(then, _sub_block(n))
    then_values = [then.lookup(v) or _placeholder(then, n, v) for v in outs]
    else_values = [g.lookup(v) or _placeholder(g, n, v) for v in outs]
    then_graph, else_graph, dtypes = _branches(g, n, then, then_values, else_values, outs,
                                               g.label)
    if outs:
        g.op("If", cond, then_branch=then_graph, else_branch=else_graph,
             outputs=_define(g, n, outs, dtypes))


@converter("while")
def while_op(g, n):
    """The sub-block is the Loop body; the variables it writes (Out) are loop-carried and the
    Condition variable is the loop's condition."""
    cond_var = n.op.input("Condition")[0]
    carried = [v for v in n.op.output("Out") if v != cond_var]
    initial = [g.lookup(v) or _placeholder(g, n, v) for v in carried]
    body = g.subgraph()
    body.label = g.label
    step = body.fresh(f"{g.label}/iteration")
    cond_in = body.fresh(f"{g.label}/{cond_var}")
    inputs = [helper.make_tensor_value_info(step, onnx_dtype(np.int64), []),
              helper.make_tensor_value_info(cond_in, onnx_dtype(np.bool_), None)]
    state = []
    for v, value in zip(carried, initial):
        name = body.fresh(f"{g.label}/{v}")
        body.bind(v, name)
        n.writer.dtypes[name] = _dtype(n, value, v)
        for kind in (n.writer.placeholders, n.writer.sequences):
            if value in kind:
                kind.add(name)
        state.append(name)
    n.writer.convert_block(body, _sub_block(n))
    finals, dtypes = [], []
    for i, v in enumerate(carried):
        (initial[i], final), dtype = _unify(n, v, [g, body], [initial[i], body.lookup(v)])
        finals.append(final)
        dtypes.append(dtype)
        inputs.append(_value_info(n, state[i], final, dtype))
    cond_out = _single_bool(body, body.lookup(cond_var), n.np_dtype("Condition"))
    outputs = _graph_outputs(body, n, [cond_out] + finals, [np.bool_] + dtypes, "body")
    graph = body.to_graph(f"{g.label}_body", inputs, outputs)
    cond = _single_bool(g, n.input("Condition"), n.np_dtype("Condition"))
    g.op("Loop", "", cond, *initial, body=graph, outputs=_define(g, n, carried, dtypes))
    if cond_var in n.op.output("Out"):          # after the loop, the condition is false
        shape = [max(int(d), 1) for d in n.shape("Condition")]
        g.op("Identity", g.const(np.zeros(shape, np.bool_)),
             outputs=_define(g, n, [cond_var], [np.bool_]))


@converter("select_input")
def select_input(g, n):
    """Out = X[Mask]: a chain of If nodes (the unpicked inputs may be placeholders)."""
    xs = n.inputs("X")
    out_name = n.op.output("Out")[0]
    mask = g.reshape(n.input("Mask"), [])
    value = xs[0]
    if len(xs) == 1:
        g.op("Identity", value, outputs=_define(g, n, [out_name], [_dtype(n, value, out_name)]))
    for k in range(1, len(xs)):
        picked = g.op("Equal", mask, g.scalar(k, n.np_dtype("Mask")))
        then_graph, else_graph, dtypes = _branches(g, n, g.subgraph(), [xs[k]], [value],
                                                   [out_name], f"{g.label}_{k}")
        if k == len(xs) - 1:
            out = _define(g, n, [out_name], dtypes)[0]
        else:
            out = g.fresh(f"{g.label}/select_{k}")
            n.writer.dtypes[out] = dtypes[0]
        value = g.op("If", picked, then_branch=then_graph, else_branch=else_graph,
                     outputs=[out])


_LOGICAL = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}


@converter(*_LOGICAL)
def logical_binary(g, n):
    x = _single_bool(g, n.input("X"), n.np_dtype("X"))
    y = _single_bool(g, n.input("Y"), n.np_dtype("Y"))
    g.op(_LOGICAL[n.type], x, y, outputs=[n.output("Out")])


@converter("logical_not")
def logical_not(g, n):
    g.op("Not", _single_bool(g, n.input("X"), n.np_dtype("X")), outputs=[n.output("Out")])


@converter("shape")
def shape(g, n):
    """Paddle's shape op gives int32 dims."""
    g.cast(g.shape(n.input("Input")), n.np_dtype("Out", output=True), out=n.output("Out"))


@converter("range")
def range_op(g, n):
    bounds = [g.reshape(n.input(slot), []) for slot in ("Start", "End", "Step")]
    g.op("Range", *bounds, outputs=[n.output("Out")])


unsupported("select_output", "it routes a gradient to the branch that ran (the gradient of "
            "select_input): it appears in training programs only; export the inference program "
            "(save_inference_model or clone(for_test=True))")
