"""Debug checks (PYFLUID_CHECKS=1 / BuildStrategy.debug_checks): verify() after backward and
after every graph pass, and the plan checking each op's outputs against the shapes and dtypes
their variables declare; off, the plan holds no check at all. Plus verify()'s attribute-type
and sub-block checks."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework import ProgramError
from pyfluid.framework.errors import ExecutionError
from pyfluid.framework.passes import PASSES
from pyfluid.ops.registry import get_op
from pyfluid.ops.types import AttrType


def relu_program():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [-1, 3], "float32")
        y = paddle.nn.functional.relu(x)
    return main, y


def run(main, fetch, checks=None):
    exe = static.Executor()
    program = main
    if checks is not None:
        strategy = static.BuildStrategy()
        strategy.debug_checks = checks
        program = static.CompiledProgram(main, build_strategy=strategy)
    values = exe.run(program, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[fetch])
    return values, list(exe._plans.values())[-1]


def test_off_the_plan_holds_no_check(monkeypatch):
    monkeypatch.delenv("PYFLUID_CHECKS", raising=False)
    main, y = relu_program()
    _, plan = run(main, y)
    assert "chk" not in plan.source
    _, plan = run(main, y, checks=True)
    assert "chk0(" in plan.source


def test_an_output_against_its_shape_rule_names_op_variable_and_both(monkeypatch):
    monkeypatch.delenv("PYFLUID_CHECKS", raising=False)
    main, y = relu_program()
    relu = paddle.ops.get_op("relu")
    monkeypatch.setattr(relu, "kernel", lambda x: x[:, :2].copy())      # a wrong kernel
    run(main, y)                                          # unchecked: runs
    with pytest.raises(ExecutionError, match=(
            r"ShapeError: op #0 'relu' wrote 'relu_0.tmp_0' \(slot Out\) with shape \[2, 2\] "
            r"dtype float32, but its shape rule gives shape \[2, 3\] dtype float32 for inputs "
            r"float32\[2, 3\]")) as info:
        run(main, y, checks=True)
    assert "while running op #0" in str(info.value)      # with the op's printed line
    monkeypatch.setattr(relu, "kernel", lambda x: x.astype("float64"))
    main._bump()
    with pytest.raises(ExecutionError, match=r"dtype float64, but its shape rule gives shape "
                                             r"\[2, 3\] dtype float32"):
        run(main, y, checks=True)


def test_declared_shapes_of_a_loaded_file_are_not_the_reference(monkeypatch):
    """Paddle's files may declare loose or wrong shapes (a layer_norm Mean as [-1, -1]); the
    checks compare with pyfluid's shape rules on the actual inputs, not with the file."""
    monkeypatch.delenv("PYFLUID_CHECKS", raising=False)
    main, y = relu_program()
    y._shape = (-1, 4)
    (value,), _ = run(main, y, checks=True)
    assert value.shape == (2, 3)


def test_the_environment_variable_turns_checks_on(monkeypatch):
    monkeypatch.setenv("PYFLUID_CHECKS", "1")
    main, y = relu_program()
    (value,), plan = run(main, y)
    assert "chk0(" in plan.source and value.shape == (2, 3)


def test_verify_runs_after_append_backward_and_restores_the_block(monkeypatch):
    from pyfluid.framework import grad_pass
    monkeypatch.setenv("PYFLUID_CHECKS", "1")
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [-1, 3], "float32")
        loss = paddle.mean(static.nn.fc(x, 2))
    block = main.global_block()
    n_ops = len(block.ops)
    run_pass = grad_pass.GradPass.run

    def misordered(self):                  # a grad pass bug: its last two ops swapped
        result = run_pass(self)
        block.ops[-2:] = block.ops[-1:-3:-1]
        return result
    monkeypatch.setattr(grad_pass.GradPass, "run", misordered)
    with pytest.raises(ProgramError, match=r"failed verification after append_backward:\n.*"
                                           r"is used before any op defines it"):
        static.append_backward(loss)
    assert len(block.ops) == n_ops         # nothing appended by the failing call
    monkeypatch.setattr(grad_pass.GradPass, "run", run_pass)
    static.append_backward(loss)


def test_verify_runs_after_every_graph_pass(monkeypatch):
    def breaks_the_program(program, ctx):
        block = program.global_block()
        block.ops.reverse()
        return True
    monkeypatch.delenv("PYFLUID_CHECKS", raising=False)
    monkeypatch.setitem(PASSES, "fuse_fc", breaks_the_program)
    main, y = relu_program()
    with paddle.static.program_guard(main):
        z = paddle.scale(y, 2.0)
    with pytest.raises(ProgramError, match="failed verification after graph pass 'fuse_fc'"):
        run(main, z, checks=True)
    with pytest.raises(ExecutionError, match="is not initialized"):
        run(main, z, checks=False)         # unchecked: the broken program fails while running


def test_verify_checks_attribute_types_against_the_declaration():
    main, _ = relu_program()
    op = main.global_block().ops[0]
    dict.__setitem__(op.attrs, "op_role", True)            # a bool where INT is declared
    dict.__setitem__(op.attrs, "op_namescope", 3)
    with pytest.raises(ProgramError) as info:
        main.verify()
    message = str(info.value)
    assert "attribute 'op_role': expected INT (int), got True (the op declares INT" in message
    assert "attribute 'op_namescope': expected STRING (str), got 3" in message
    op = paddle.scale(static.data("s", [2], "float32"), 2.0).op
    dict.__setitem__(op.attrs, "scale", 0.1)               # not stored as float32
    with pytest.raises(ProgramError, match=r"attribute 'scale' holds 0.1 \(float\), not the "
                                           r"FLOAT the op declares"):
        op.block.program.verify()
    op._set_attr("scale", 0.1)
    op.block.program.verify()


def test_verify_checks_sub_block_references():
    main, _ = relu_program()
    sub = main._create_block()
    inner = main._create_block()
    main._rollback()
    main._rollback()
    op = main.global_block().ops[0]
    for value, expected in [(0, "names no sub-block of this 3-block program (valid: 1..2)"),
                            (3, "names no sub-block")]:
        op._set_attr("sub_block", value, AttrType.BLOCK)
        with pytest.raises(ProgramError, match=expected.replace("(", r"\(").replace(")", r"\)")):
            main.verify()
    op._set_attr("sub_block", 1, AttrType.BLOCK)
    main.verify()
    inner_op = inner.append_op(type="relu", inputs={"X": "x"},
                               outputs={"Out": inner.create_var(name="r")})
    inner_op._set_attr("sub_block", 2, AttrType.BLOCK)
    with pytest.raises(ProgramError, match="names block 2, the op's own block"):
        main.verify()
    inner_op._set_attr("sub_block", 1, AttrType.BLOCK)
    with pytest.raises(ProgramError, match="names block 1, an ancestor of block 2"):
        main.verify()
    inner_op._set_attr("sub_blocks", [1, 2], AttrType.BLOCKS)
    inner_op._remove_attr("sub_block")
    with pytest.raises(ProgramError) as info:
        main.verify()
    assert "an ancestor of block 2" in str(info.value) and "the op's own block" in str(info.value)
    assert sub.idx == 1
