"""verify(program): a separate well-formedness pass that lists every problem it finds."""
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework import ProgramError
from pyfluid.framework.operator import Operator
from pyfluid.framework.program import program_from_bytes


def small_program():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2, 3], "float32")
        y = paddle.tanh(x)
        paddle.scale(y, 2.0)
    return main


def test_a_well_formed_program_passes():
    small_program().verify()


def test_use_before_definition_is_reported():
    main = small_program()
    block = main.global_block()
    block.ops.reverse()                       # scale now reads tanh's output before tanh runs
    with pytest.raises(ProgramError, match=r"op #0 \(scale, built at .*test_verify.py:\d+\): "
                                           r"input X='tanh_0.tmp_0' is used before any op "
                                           "defines it"):
        main.verify()


def test_unknown_op_type_in_a_loaded_program_is_reported():
    main = small_program()
    data = main.desc.serialize_to_string().replace(b"\x1a\x04tanh", b"\x1a\x04tanx")
    loaded = program_from_bytes(data)
    with pytest.raises(ProgramError, match="unknown op type 'tanx'"):
        loaded.verify()


def test_bad_slots_attrs_and_undeclared_vars_are_all_listed():
    main = small_program()
    block = main.global_block()
    op = block.ops[1]
    op.inputs["Bogus"] = ["x"]
    dict.__setitem__(op.attrs, "scale", "two")   # bypass _set_attr's type check
    block.ops.append(Operator(block, "relu", {"X": ["x", "x"]}, {"Out": ["ghost"]}, {}))
    with pytest.raises(ProgramError) as info:
        main.verify()
    message = str(info.value)
    assert "unknown input slot 'Bogus' (valid: X, ScaleTensor)" in message
    assert "attribute 'scale': expected FLOAT" in message
    assert "input slot 'X' holds 2 vars but is not duplicable" in message
    assert "variable 'ghost' is not declared in block 0" in message


def test_missing_required_slot_and_bad_block_attr():
    main = small_program()
    block = main.global_block()
    block.ops[0].inputs.pop("X")
    block.ops[1]._set_attr("sub_block", 5, paddle.ops.AttrType.BLOCK)
    with pytest.raises(ProgramError) as info:
        main.verify()
    assert "required input slot 'X' is missing" in str(info.value)
    assert "attribute sub_block=5 names no sub-block" in str(info.value)


def test_sub_blocks_see_parent_variables_and_bad_parents_are_caught():
    main = small_program()
    sub = main._create_block()
    sub.append_op(type="relu", inputs={"X": "tanh_0.tmp_0"},
                  outputs={"Out": sub.create_var(name="r")})
    main._rollback()
    main.verify()
    sub.parent_idx = 3
    with pytest.raises(ProgramError, match="block 1: bad parent index 3"):
        main.verify()
