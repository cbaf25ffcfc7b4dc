"""``core.ProgramDesc`` / ``BlockDesc`` / ``OpDesc`` / ``VarDesc`` as views over the IR,
Paddle's errors of ``Block.append_op``, ``lod_level`` defaults, ``Program`` helpers and the
Scope API (``size``, ``set_int``, ``_remove_from_pool``)."""
import pytest

import pyfluid as paddle
from pyfluid.base import core
from pyfluid.framework import Program


def test_a_new_program_desc_builds_ops_step_by_step():
    desc = core.ProgramDesc()
    block = desc.block(0)
    op = block.append_op()
    op.set_type("anything")
    op.set_input("X", ["a", "b"])
    op.set_output("Out", ["z"])
    assert (op.type(), op.input("X"), op.input_names(), op.output_names()) == \
        ("anything", ["a", "b"], ["X"], ["Out"])
    for name, value in (("i", 1), ("f", -1.5), ("b", False), ("s", "abc"), ("ints", [1, 2]),
                        ("strs", ["a"]), ("bools", [True, False])):
        op._set_attr(name, value)
        assert op.attr(name) == value and op.has_attr(name)
    assert op.attr_type("i") == core.AttrType.INT and len(op.attr_names()) == 7
    op.set_block_attr("sub", desc.block(0))
    assert op._block_attr_id("sub") == 0 and op.attr_type("sub") == core.AttrType.BLOCK
    mul = block.append_op()
    mul.set_type("mul")
    mul.check_attrs()                       # the declared defaults fill in
    assert mul.attr("x_num_col_dims") == 1 and mul.attr("y_num_col_dims") == 1


def test_block_descs_keep_order_parents_and_variables():
    desc = core.ProgramDesc()
    root = desc.block(0)
    first, second = root.append_op(), root.append_op()
    zeroth = root._prepend_op()
    assert [root.op(i) for i in range(root.op_size())] == [zeroth, first, second]
    root._remove_op(1, 2)
    assert [root.op(i) for i in range(root.op_size())] == [zeroth, second]
    child = desc.append_block(root)
    grandchild = desc.append_block(child)
    assert (child.parent, grandchild.parent, desc.num_blocks()) == (0, 1, 3)
    a, b = root.var(b"a"), root.var("b")
    assert set(root.all_vars()) == {a, b} and root.find_var(b"b") == b
    assert root.find_var("missing") is None and grandchild.find_var_recursive("a") == a


def test_var_descs_of_a_reader_keep_one_shape_dtype_and_lod_level_per_slot():
    var = core.ProgramDesc().block(0).var(b"reader")
    var.set_type(core.VarDesc.VarType.READER)
    var.set_shapes([[2, 3], [4]])
    var.set_dtypes([paddle.int32, paddle.float64])
    var.set_lod_levels([1, 0])
    assert var.shapes() == [[2, 3], [4]] and var.dtypes() == [paddle.int32, paddle.float64]
    assert var.lod_levels() == [1, 0] and var.type() == core.VarDesc.VarType.READER
    tensor = core.ProgramDesc().block(0).var(b"t")
    tensor.set_type(core.VarDesc.VarType.SELECTED_ROWS)
    tensor.set_shape([3, 2])
    tensor.set_dtype(paddle.int32)
    assert (tensor.shape(), tensor.dtype()) == ([3, 2], paddle.int32)


def test_descs_are_views_of_an_existing_program():
    program = Program()
    with paddle.static.program_guard(program):
        x = paddle.static.data("x", [2, 3])
        paddle.scale(x, 2.0)
    version = program._version
    op = program.desc.block(0).op(0)
    assert op.type() == "scale" and op.input("X") == ["x"]
    op._set_attr("scale", 3.0)
    assert program.global_block().ops[0].attr("scale") == 3.0 and program._version > version
    program._sync_with_cpp()                         # nothing to do: no second copy
    mul_like = program.global_block().ops[0]
    mul_like.desc.remove_input("X")
    assert mul_like.input_names == []
    assert core.ProgramDesc(program.desc.serialize_to_string()).block(0).op(0).type() == "scale"


def test_append_op_errors_say_what_paddle_says():
    block = Program().global_block()
    with pytest.raises(ValueError) as missing:
        block.append_op()
    assert str(missing.value) == "`type` to initialized an Operator can not be None."
    with pytest.raises(ValueError) as unknown:
        block.append_op(type="no_such_op")
    assert str(unknown.value) == 'Operator "no_such_op" has not been registered.'


def test_lod_level_defaults():
    block = Program().global_block()
    assert block.create_var(name="t", dtype="float32").lod_level == 0
    strings = block.create_var(name="s", dtype=core.VarDesc.VarType.STRINGS, shape=[1])
    assert strings.type == core.VarDesc.VarType.STRINGS and strings.lod_level is None
    rows = block.create_var(name="r", type=core.VarDesc.VarType.SELECTED_ROWS)
    with pytest.raises(Exception, match="SelectedRows DO NOT support lod"):
        rows.lod_level
    assert paddle.static.data("d", [2], lod_level=1).lod_level == 1


def test_copy_param_info_from_marks_parameters_and_checks_its_argument():
    main, startup = Program(), Program()
    with paddle.static.program_guard(main, startup):
        paddle.static.nn.fc(paddle.static.data("x", [-1, 3]), 2)
    copy = Program()
    for name, shape in (("fc_0.w_0", [3, 2]), ("fc_0.b_0", [2])):
        copy.global_block().create_var(name=name, shape=shape, dtype="float32",
                                       persistable=True)
    assert not copy.global_block().all_parameters()    # plain variables of those names
    copy._copy_param_info_from(main)
    assert sorted(p.name for p in copy.global_block().all_parameters()) == \
        ["fc_0.b_0", "fc_0.w_0"]
    with pytest.raises(TypeError):
        copy._copy_param_info_from("program")
    with pytest.raises(TypeError):
        copy._copy_dist_param_info_from("program")


def test_scope_api():
    scope = core.Scope()
    var = scope.var("n")
    var.set_int(10)
    assert var.is_int() and var.get_int() == 10 and not var.is_float()
    with pytest.raises(RuntimeError, match="holds no float"):
        var.get_float()
    kid = scope.new_scope()
    kid.var("k")
    assert scope.size() == 1 and kid.size() == 1 and kid.find_var("n") is var
    scope._remove_from_pool()
    with pytest.raises(Exception, match="Deleting a nonexistent scope is not allowed"):
        scope._remove_from_pool()


def test_op_desc_infer_shape_sets_the_outputs_from_the_shape_rule():
    """After a desc is edited, ``op.desc.infer_shape(block.desc)`` re-runs the shape rule;
    ops without one (conditional_block) are left as they are."""
    main = Program()
    with paddle.static.program_guard(main, Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        y = paddle.static.data("y", [3, 5], "float32")
        out = main.global_block().create_var(name="out", dtype="float32")
        op = main.global_block().append_op(type="scale", inputs={"X": [x]},
                                           outputs={"Out": [out]})
        assert out.shape == (2, 3)
        op.desc.set_input("X", [y.name])
        op.desc.infer_shape(main.global_block().desc)
        assert out.shape == (3, 5)
        cond = paddle.full([1], False, "bool")
        sub = main._create_block()
        main._rollback()
        scope = main.global_block().create_var(type=core.VarDesc.VarType.STEP_SCOPES)
        branch = main.global_block().append_op(
            type="conditional_block", inputs={"Cond": [cond], "Input": []},
            outputs={"Out": [], "Scope": [scope]},
            attrs={"sub_block": sub, "is_scalar_condition": True})
        branch.desc.infer_shape(main.global_block().desc)
