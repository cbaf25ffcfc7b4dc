"""Operator.attrs is read-only; attributes change through op._set_attr, which checks the type
and invalidates the Executor's cached plans."""
import copy
import pickle

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.ops.types import AttrType


def scale_program():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = paddle.scale(x, 2.0)
    return main, y, main.global_block().ops[-1]


def test_writing_through_attrs_raises_and_names_set_attr():
    _, _, op = scale_program()
    with pytest.raises(TypeError, match=r"use op\._set_attr\(name, value\)"):
        op.attrs["scale"] = 3.0
    for mutate in (lambda a: a.update(scale=3.0), lambda a: a.pop("scale"),
                   lambda a: a.setdefault("new", 1), lambda a: a.clear(),
                   lambda a: a.__delitem__("scale"), lambda a: a.popitem()):
        with pytest.raises(TypeError, match="read-only"):
            mutate(op.attrs)
    with pytest.raises(TypeError, match="_set_attr"):
        op.attrs = {}
    assert op.attrs["scale"] == 2.0


def test_attrs_read_like_a_dict_and_copy_to_plain_dicts():
    _, _, op = scale_program()
    assert isinstance(op.attrs, dict) and op.attrs.get("bias") == 0.0
    for copied in (copy.copy(op.attrs), copy.deepcopy(op.attrs), op.all_attrs()):
        assert type(copied) is dict and copied == op.attrs
        copied["scale"] = 5.0                      # a copy is the caller's to change
    assert pickle.loads(pickle.dumps(op.attrs)) == op.attrs
    assert op.attrs["scale"] == 2.0


def test_set_attr_coerces_and_checks_the_type():
    main, _, op = scale_program()
    version = main._version
    op._set_attr("scale", 3)                       # INT given for a FLOAT attribute
    assert op.attrs["scale"] == 3.0 and isinstance(op.attrs["scale"], float)
    assert main._version > version
    with pytest.raises(TypeError, match="op 'scale' attribute 'scale': expected FLOAT"):
        op._set_attr("scale", "two")
    op._set_attr("anything", [1, 2])               # undeclared: stored as given
    assert op.attrs["anything"] == [1, 2]
    op._set_attr("sub_block", 1, AttrType.BLOCK)   # with a type: recorded and coerced
    assert op.attr_type("sub_block") == AttrType.BLOCK
    op._remove_attr("anything")
    assert "anything" not in op.attrs


def test_set_attr_changes_what_the_next_run_computes():
    main, y, op = scale_program()
    exe = static.Executor()
    feed = {"x": np.array([1.0, 2.0], "float32")}
    (first,) = exe.run(main, feed=feed, fetch_list=[y])
    op._set_attr("scale", 10.0)
    (second,) = exe.run(main, feed=feed, fetch_list=[y])
    op._set_attr("bias", 1.0)
    (third,) = exe.run(main, feed=feed, fetch_list=[y])
    np.testing.assert_array_equal(first, [2.0, 4.0])
    np.testing.assert_array_equal(second, [10.0, 20.0])
    np.testing.assert_array_equal(third, [11.0, 21.0])
