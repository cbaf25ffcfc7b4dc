"""Block.append_op validates against the op declaration and says what is wrong and what is
valid."""
import pytest

from pyfluid import static
from pyfluid.framework import ProgramError, ShapeError, UnknownOpError


@pytest.fixture
def block():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        static.data("x", [2, 3], "float32")
        static.data("y", [2, 3], "float32")
    return main.global_block()


def out(block, name="out"):
    return block.create_var(name=name)


def test_unknown_op_lists_close_matches(block):
    with pytest.raises(UnknownOpError, match='Operator "elementwise_addd" has not been registered') \
            as info:
        block.append_op(type="elementwise_addd", inputs={"X": "x", "Y": "y"},
                        outputs={"Out": out(block)})
    assert str(info.value) == 'Operator "elementwise_addd" has not been registered.'  # Paddle's
    assert "'elementwise_add'" in info.value.__notes__[0]     # the hint, shown in tracebacks
    assert isinstance(info.value, ValueError)      # what Paddle raises


def test_wrong_input_slot_names_it_and_lists_valid_ones(block):
    with pytest.raises(ProgramError, match="has no input slot 'Z'; its input slots are: X, Y"):
        block.append_op(type="elementwise_add", inputs={"X": "x", "Y": "y", "Z": "x"},
                        outputs={"Out": out(block)})


def test_wrong_output_slot(block):
    with pytest.raises(ProgramError, match="has no output slot 'Y'"):
        block.append_op(type="relu", inputs={"X": "x"}, outputs={"Out": out(block), "Y": "y"})


def test_missing_input_slot(block):
    with pytest.raises(ProgramError, match="Input Y not found"):
        block.append_op(type="elementwise_add", inputs={"X": "x"}, outputs={"Out": out(block)})


def test_missing_output_slot_uses_paddles_message(block):
    with pytest.raises(ProgramError,
                       match=r'Incorrect setting for output\(s\) of operator "relu", should set: '
                             r'\[Out\]'):
        block.append_op(type="relu", inputs={"X": "x"}, outputs={})


def test_too_many_vars_for_a_plain_slot(block):
    with pytest.raises(ProgramError, match="Input X expects only one input, but 2 are given"):
        block.append_op(type="relu", inputs={"X": ["x", "y"]}, outputs={"Out": out(block)})


def test_unknown_attribute_lists_valid_ones(block):
    with pytest.raises(ProgramError, match="no attribute 'axes'; valid attributes: axis"):
        block.append_op(type="elementwise_add", inputs={"X": "x", "Y": "y"},
                        outputs={"Out": out(block)}, attrs={"axes": 1})


@pytest.mark.parametrize("op_type, attrs, expected", [
    ("elementwise_add", {"axis": "1"}, "attribute 'axis' has the wrong type.*INT"),
    ("elementwise_add", {"axis": 1.5}, "attribute 'axis' has the wrong type"),
    ("scale", {"bias_after_scale": 1}, "attribute 'bias_after_scale' has the wrong type.*BOOLEAN"),
    ("scale", {"scale": "2"}, "attribute 'scale' has the wrong type.*FLOAT"),
    ("transpose2", {"axis": [1.0, 0.0]}, "attribute 'axis' has the wrong type.*INTS"),
])
def test_wrong_attribute_type(block, op_type, attrs, expected):
    inputs = {"X": "x", "Y": "y"} if op_type.startswith("elementwise") else {"X": "x"}
    with pytest.raises(ProgramError, match=expected):
        block.append_op(type=op_type, inputs=inputs, outputs={"Out": out(block)}, attrs=attrs)


def test_attrs_must_be_a_dict(block):
    with pytest.raises(TypeError, match="'attrs' should be a dict."):
        block.append_op(type="relu", inputs={"X": "x"}, outputs={"Out": out(block)},
                        attrs=[("a", 1)])


def test_input_of_the_wrong_python_type(block):
    with pytest.raises(TypeError, match="slot 'X': expected a Variable or a variable name"):
        block.append_op(type="relu", inputs={"X": 3}, outputs={"Out": out(block)})


def test_undeclared_input_variable(block):
    with pytest.raises(ProgramError, match="no variable named 'nope' exists in block 0"):
        block.append_op(type="relu", inputs={"X": "nope"}, outputs={"Out": out(block)})


def test_shape_inference_failure_names_the_op_and_shapes(block):
    block.create_var(name="z", shape=[4, 5], dtype="float32")
    with pytest.raises(ShapeError, match=r"op 'matmul_v2'.*\('x', \[2, 3\], 'float32'\).*"
                                         r"last dim 3 must equal"):
        block.append_op(type="matmul_v2", inputs={"X": "x", "Y": "z"}, outputs={"Out": out(block)})
    assert not any(op.type == "matmul_v2" for op in block.ops)


def test_mismatched_dtypes_are_rejected(block):
    block.create_var(name="i", shape=[2, 3], dtype="int64")
    with pytest.raises(ShapeError, match="X is float32 but Y is int64"):
        block.append_op(type="elementwise_add", inputs={"X": "x", "Y": "i"},
                        outputs={"Out": out(block)})


def test_extra_attrs_are_accepted_but_not_filled(block):
    op = block.append_op(type="softmax", inputs={"X": "x"}, outputs={"Out": out(block, "a")})
    assert "use_cudnn" not in op.attrs and op.attr("axis") == -1
    op = block.append_op(type="softmax", inputs={"X": "x"}, outputs={"Out": out(block, "b")},
                         attrs={"use_cudnn": True})
    assert op.attr("use_cudnn") is True


def test_declared_defaults_and_common_attrs_are_filled(block):
    op = block.append_op(type="scale", inputs={"X": "x"}, outputs={"Out": out(block)})
    assert op.attrs["scale"] == 1.0 and op.attrs["bias_after_scale"] is True
    assert op.attrs["op_role"] == 0 and op.attrs["op_namescope"] == "/"
    assert list(op.attrs) == sorted(op.attrs)
    assert op.input_names == ["X"] and op.output_names == ["Out"]
