"""The PIR JSON reader and writer in pieces: types and attributes, the op table, the lowering
of ``pd_op.if`` / ``pd_op.while`` to Paddle's legacy control flow (checked op by op, so it
holds before the control-flow ops run), the writer's layout against Paddle's own files.
The public API (saving, loading, jit, CLI) is in tests/test_pir_api.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import pyfluid as paddle
from pyfluid.framework.operator import Operator
from pyfluid.io.pir import program_to_json
from pyfluid.io.pir import lower as lower_mod
from pyfluid.io.pir.decode import parse
from pyfluid.io.pir.op_table import BY_LEGACY, SPECS
from pyfluid.io.pir.raise_ import HOOKS as WRITE_HOOKS
from pyfluid.io.pir.schema import (ARRAY, TENSOR, VECTOR, Dtype, Place, PirType, decode_attr,
                                   decode_type, encode_attr, encode_type)
from pyfluid.ops.registry import has_op, registered_ops
from pyfluid.ops.types import VarType

PIR33 = Path(__file__).resolve().parent / "paddle_models" / "pir33"

# Legacy ops with no PIR form, so a program holding them cannot be written as PIR JSON
# (save_inference_model(format="pir") names the op): training and communication ops, which
# inference programs never hold, and ops Paddle 3 dropped or never had in PIR.
NO_PIR_FORM = {
    "sgd", "momentum", "adagrad", "adam", "adamw",          # optimizer updates
    "barrier", "depend", "coalesce_tensor", "c_comm_init", "c_gen_nccl_id",
    "c_allgather", "c_broadcast", "c_sync_calc_stream", "c_sync_comm_stream",
    "c_allreduce_sum", "c_allreduce_max", "c_allreduce_min", "c_allreduce_prod",
    "c_allreduce_start", "c_allreduce_wait",                # collectives
    "cross_entropy", "cross_entropy2",                      # no pd_op (Paddle 3's translator fails)
    "py_func",                                              # runs Python: never in a model file
    "fused_elemwise_activation",                            # pyfluid's fuse pass output
    "fused_conv2d", "fused_conv2d_winograd", "winograd_filter",   # inference pass outputs
    "fc_weight_transpose", "fc_transposed", "fused_conv2d_pointwise", "pointwise_filter_transpose",
    "select_output",                                        # backward of select_input only
}


# -- types and attributes -----------------------------------------------------------------------
@pytest.mark.parametrize("ptype", [
    PirType(TENSOR, VarType.FP32, (-1, 4)), PirType(TENSOR, VarType.BOOL, ()),
    PirType(ARRAY, VarType.INT64, (-1,)),
    PirType(VECTOR, items=(PirType(TENSOR, VarType.FP16, (2,)),
                           PirType(TENSOR, VarType.INT32, (3, 1))))])
def test_types_round_trip(ptype):
    assert decode_type(json.loads(json.dumps(encode_type(ptype)))) == ptype


@pytest.mark.parametrize("kind,value", [
    ("b", True), ("i32", -3), ("i64", 2**40), ("f32", 0.5), ("f64", 1e-12), ("s", "NCHW"),
    ("i64s", [1, -1]), ("f32s", [0.25]), ("bs", [True, False]), ("ia", [-1, 8]),
    ("dtype", Dtype(VarType.INT64)), ("dtype", Dtype(None)), ("place", Place(1, 0, ""))])
def test_attributes_round_trip(kind, value):
    assert decode_attr(json.loads(json.dumps(encode_attr(kind, value)))) == value


def test_dims_any_negative_is_unknown():
    """Paddle writes e.g. -8 for "batch times 8"; the reader keeps -1."""
    node = {"#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, [-8, 4], "NCHW", [], 0]}
    assert decode_type(node).dims == (-1, 4)


# -- the op table ---------------------------------------------------------------------------------
def test_op_table_lines_are_well_formed():
    kinds = {"b", "i32", "i64", "f32", "f64", "s", "i32s", "i64s", "f32s", "f64s", "ss",
             "dtype", "place", "ia"}
    for name, spec in SPECS.items():
        assert spec.legacy and spec.pir == name
        for operand in spec.operands:
            assert operand.kind in ("slot", "vector", "mutable", "none"), name
            if operand.kind == "mutable":
                assert operand.value_kind in ("ia", "i32", "i64", "f32", "f64"), name
        assert all(attr.kind in kinds for attr in spec.attrs), name
        assert all(r.inplace_of is None or r.inplace_of < len(spec.operands)
                   for r in spec.results), name


def test_every_registered_op_can_be_written_as_pir_or_is_known_not_to():
    forward = {t for t in registered_ops() if not t.endswith("_grad") and "_grad" not in t}
    missing = sorted(t for t in forward
                     if t not in BY_LEGACY and t not in WRITE_HOOKS and t not in NO_PIR_FORM)
    assert not missing, ("legacy ops with no PIR line in pyfluid/io/pir/op_table.py (add one, "
                         f"or list them in NO_PIR_FORM with the reason): {missing}")


def test_the_writer_refuses_an_op_without_pir_form(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 2], "float32")
        out = main.global_block().create_var(name="out", shape=[-1, 2], dtype="float32")
        paddle.static.py_func(lambda a: a, x, out)
    exe = paddle.static.Executor()
    with pytest.raises(ValueError, match="op 'py_func' has no PIR form"):
        paddle.static.save_inference_model(str(tmp_path / "m"), [x], [out], exe, program=main,
                                           format="pir")
    assert not list(tmp_path.iterdir())


# -- control flow, op by op -----------------------------------------------------------------------
@pytest.fixture
def recording(monkeypatch):
    """Lower with stand-ins for legacy ops not registered yet (the control-flow ops land in
    another branch): they are recorded as plain Operators."""
    real = lower_mod.Lowerer.emit

    def emit(self, block, op_type, inputs, outputs, attrs, source):
        if has_op(op_type):
            return real(self, block, op_type, inputs, outputs, attrs, source)
        op = Operator(block, op_type, {k: list(v) for k, v in inputs.items()},
                      {k: list(v) for k, v in outputs.items()}, dict(attrs))
        block.ops.append(op)
        return op
    monkeypatch.setattr(lower_mod.Lowerer, "emit", emit)


def _lower(data: bytes):
    return lower_mod.lower_module(parse(data)).program


def _ops(block, op_type):
    return [op for op in block.ops if op.type == op_type]


def test_if_becomes_two_conditional_blocks_and_select_input(recording):
    program = _lower((PIR33 / "if_else.json").read_bytes())
    main = program.global_block()
    (blocks_true, blocks_false) = _ops(main, "conditional_block")
    not_cond, = _ops(main, "logical_not")
    cast = [op for op in _ops(main, "cast") if op.attr("out_dtype") == VarType.INT32][0]
    select, = _ops(main, "select_input")
    cond = blocks_true.input("Cond")[0]
    assert not_cond.input("X") == [cond] and blocks_false.input("Cond") == not_cond.output("Out")
    assert cast.input("X") == [cond] and select.input("Mask") == cast.output("Out")
    assert select.input("X") == blocks_false.output("Out")[:1] + blocks_true.output("Out")[:1]
    for op in (blocks_true, blocks_false):
        assert op.attr("is_scalar_condition") is True
        sub = program.blocks[op.attr("sub_block")]
        assert sub.parent_idx == 0
        last = sub.ops[-1]
        assert last.type == "assign" and last.output("Out") == op.output("Out")[:1]
        # every outer variable the branch reads is listed as an input
        outer = {n for o in sub.ops for n in o.input_arg_names if n not in sub.vars}
        assert outer == set(op.input("Input"))
    fetch, = _ops(main, "fetch")
    assert fetch.input("X") == select.output("Out")


def test_while_becomes_a_while_over_loop_variables(recording):
    program = _lower((PIR33 / "while_loop.json").read_bytes())
    main = program.global_block()
    loop, = _ops(main, "while")
    sub = program.blocks[loop.attr("sub_block")]
    cond = loop.input("Condition")[0]
    loop_vars = [n for n in loop.output("Out") if n != cond]
    assert len(loop_vars) == 2 and cond in loop.output("Out")
    # initial values are copied into the loop variables right before the loop
    copies = {op.output("Out")[0] for op in main.ops[:main.ops.index(loop)] if op.type == "assign"}
    assert set(loop_vars) | {cond} <= copies
    assert "n" in loop.input("X")                 # the feed read inside the body
    tail = [op for op in sub.ops if op.type == "assign"][-3:]
    assert {op.output("Out")[0] for op in tail} == set(loop_vars) | {cond}
    fetches = [op.input("X")[0] for op in _ops(main, "fetch")]
    assert fetches == loop_vars                   # results are the loop variables


def _module(ops, version=4):
    return json.dumps({"base_code": {"magic": "pir", "trainable": True, "version": version},
                       "program": {"regions": [{"#": "region_0", "blocks": [
                           {"#": "block_0", "args": [], "ops": ops}]}]}}).encode()


def _t(dtype="0.t_f32", dims=(2,)):
    return {"#": "0.t_dtensor", "D": [{"#": dtype}, list(dims), "NCHW", [], 0]}


def _op(name, operands, results, attrs=(), regions=None):
    node = {"#": name, "A": [{"N": n, "AT": a} for n, a in attrs],
            "I": [{"%": v} for v in operands], "O": [{"%": v, "TT": t} for v, t in results]}
    if regions is not None:
        node["regions"] = regions
    return node


def _data(vid, name, dtype="0.t_f32", dims=(2,)):
    return _op("1.data", [], [(vid, _t(dtype, dims))],
               [("name", {"#": "0.a_str", "D": name}),
                ("dtype", {"#": "1.a_dtype", "D": "float32" if dtype == "0.t_f32" else "bool"})])


def test_while_yielding_swapped_loop_values_goes_through_a_temporary(recording):
    """``while c: a, b = b, a`` must not read a value the same step already overwrote."""
    body = {"#": "block_1", "args": [{"#": -1, "TT": _t()}, {"#": -2, "TT": _t()}],
            "ops": [_op("2.yield", [3, -2, -1], [])]}
    program = _lower(_module([
        _data(1, "a"), _data(2, "b"), _data(3, "c", "0.t_bool", (1,)),
        _op("1.while", [3, 1, 2], [(4, _t()), (5, _t())],
            regions=[{"#": "region_1", "blocks": [body]}]),
        _op("1.fetch", [4], [(6, _t())], [("name", {"#": "0.a_str", "D": "y"}),
                                           ("col", {"#": "0.a_i32", "D": 0})])]))
    loop, = _ops(program.global_block(), "while")
    sub = program.blocks[loop.attr("sub_block")]
    first, second = [n for n in loop.output("Out") if n != loop.input("Condition")[0]]
    steps = [(op.input("X")[0], op.output("Out")[0]) for op in sub.ops]
    temps = [t for s, t in steps if s in (first, second) and t not in (first, second)]
    assert temps, steps
    # each loop variable is written after every read of the other
    write_first = next(i for i, (_, t) in enumerate(steps) if t == first)
    assert all(i < write_first for i, (s, _) in enumerate(steps) if s == first)


# -- the writer -----------------------------------------------------------------------------------
def _kinds(op):
    def kind(at):
        if at["#"] == "0.a_array":
            return ("array", tuple(sorted({item["#"] for item in at["D"]})))
        return at["#"]
    return {a["N"]: kind(a["AT"]) for a in op["A"] if a["N"] != "struct_name"}


def _walk(regions):
    for region in regions:
        for block in region["blocks"]:
            for op in block["ops"]:
                yield op
                yield from _walk(op.get("regions", []))


@pytest.mark.parametrize("name", ["lenet", "transformer_encoder", "mlp"])
def test_written_ops_carry_paddles_attribute_names_and_types(name):
    """Read Paddle's file, write it again: every op Paddle wrote comes back with the same
    attribute names and JSON types (``pool2d`` int64 strides, ``full`` double values...)."""
    original = json.loads((PIR33 / f"{name}.json").read_text())
    exe = paddle.static.Executor()
    program, _, _ = paddle.static.load_inference_model(str(PIR33 / name), exe)
    written = json.loads(program_to_json(program))
    assert written["base_code"] == {"magic": "pir", "trainable": True, "version": 4}
    theirs = {}
    for op in _walk(original["program"]["regions"]):
        if op["#"] != "p":
            theirs.setdefault(op["#"], _kinds(op))
    ours = {}
    for op in _walk(written["program"]["regions"]):
        if op["#"] != "p":
            ours.setdefault(op["#"], _kinds(op))
    assert set(ours) == set(theirs)
    for op_name, kinds in theirs.items():
        assert ours[op_name] == kinds, op_name


def test_written_program_is_well_formed():
    exe = paddle.static.Executor()
    program, _, _ = paddle.static.load_inference_model(str(PIR33 / "transformer_encoder"), exe)
    written = json.loads(program_to_json(program))
    ops = written["program"]["regions"][0]["blocks"][0]["ops"]
    params = [op for op in ops if op["#"] == "p"]
    assert ops[:len(params)] == params                       # parameters first
    names = [op["A"][3] for op in params]
    assert names == sorted(names)                             # the .pdiparams order
    defined = set()
    for op in _walk(written["program"]["regions"]):
        outs = op["O"] if isinstance(op["O"], list) else [op["O"]]
        assert all(i["%"] in defined or i["%"] == 0 for i in op.get("I", [])), op["#"]
        ids = [o["%"] for o in outs]
        assert not defined & set(ids)
        defined |= set(ids)
