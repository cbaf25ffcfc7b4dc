"""Program / Block / Variable / Operator API (spec §5 and Paddle's test_program.py), guards,
unique names, Variable operators, and golden printouts."""
import os
import pathlib

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework import Parameter, Variable, unique_name
from pyfluid.framework.context import default_main_program, default_startup_program
from pyfluid.framework.printer import program_to_text
from pyfluid.framework.program import program_from_bytes
from pyfluid.ops.types import VarType
from shared_fixtures import PADDLE_FIXTURES, needs_shared

GOLDEN = pathlib.Path(__file__).parent / "golden"
FIXTURES = str(PADDLE_FIXTURES)


def check_golden(name: str, text: str) -> None:
    """Compare with tests/golden/<name>.txt; UPDATE_GOLDEN=1 rewrites the file."""
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert text == path.read_text(), f"printout differs from {path} (UPDATE_GOLDEN=1 rewrites)"


def mlp_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        label = static.data("label", [None, 1], "int64")
        for block in (main.global_block(), startup.global_block()):
            block.create_parameter("fc_0.w_0", [4, 3], "float32")
            block.create_parameter("fc_0.b_0", [3], "float32")
        startup.global_block().append_op(
            type="gaussian_random", outputs={"Out": "fc_0.w_0"},
            attrs={"shape": [4, 3], "std": 0.1, "seed": 1})
        startup.global_block().append_op(
            type="fill_constant", outputs={"Out": "fc_0.b_0"},
            attrs={"shape": [3], "value": 0.0, "dtype": int(VarType.FP32)})
        w, b = main.global_block().var("fc_0.w_0"), main.global_block().var("fc_0.b_0")
        hidden = paddle.nn.functional.relu(paddle.matmul(x, w) + b)
        probs = paddle.nn.functional.softmax(hidden, axis=1)
        loss = paddle.mean(paddle.cast(label, "float32") - probs)
    return main, startup, loss


# -- blocks and programs (PG-1, PG-3, PG-7) ----------------------------------------------------
def test_block_creation_and_rollback():
    program = static.Program()
    b = program._create_block()
    assert (b.idx, b.parent_idx) == (1, 0)
    b = program._create_block()
    assert (b.idx, b.parent_idx) == (2, 1)
    program._rollback()
    assert program.current_block().idx == 1
    b = program._create_block()
    assert (b.idx, b.parent_idx) == (3, 1)
    program._rollback()
    assert program.current_block().idx == 1
    assert program.num_blocks == 4 and program.desc.num_blocks() == 4


def test_program_round_trip_through_parse_from_string():
    main, _, _ = mlp_program()
    loaded = static.Program.parse_from_string(main.desc.serialize_to_string())
    assert str(loaded) == str(main)
    assert [p.name for p in loaded.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]


def test_random_seed_must_be_an_integer():
    program = static.Program()
    program.random_seed = 10
    assert program.random_seed == 10
    with pytest.raises(ValueError, match="Program.random_seed's input seed must be an integer"):
        program.random_seed = "seed"


def test_desc_need_update_and_serialized_bytes_follow_changes():      # PG-9
    main, _, _ = mlp_program()
    before = main.desc.serialize_to_string()
    assert not main.desc.need_update()
    main.global_block().ops[0]._set_attr("use_mkldnn", True)
    assert main.desc.need_update()
    assert main.desc.serialize_to_string() != before
    main, _, _ = mlp_program()
    before = main.desc.serialize_to_string()
    main.global_block().var("x").desc.set_stop_gradient(False)
    assert main.desc.need_update() and main.desc.serialize_to_string() != before
    before = main.desc.serialize_to_string()
    main.global_block().var("x").desc._set_attr("a", 1)
    assert main.desc.need_update() and main.desc.serialize_to_string() != before
    loaded = static.Program.parse_from_string(main.desc.serialize_to_string())
    assert loaded.global_block().var("x").desc.attr("a") == 1


def test_cached_hash_str():                                            # PG-10
    with unique_name.guard():
        first, _, _ = mlp_program()
    with unique_name.guard():
        second, _, _ = mlp_program()
    assert first.desc.need_update()
    assert first.desc.cached_hash_str() == second.desc.cached_hash_str()
    assert not first.desc.need_update()
    assert first.clone().desc.cached_hash_str() == first.desc.cached_hash_str()
    hash1 = first.desc.cached_hash_str()
    first.global_block().ops[0]._set_attr("trans_x", True)
    assert first.desc.cached_hash_str() != hash1
    first.desc.flush()
    assert not first.desc.need_update()


def test_clone_is_deep_and_shares_names():
    main, startup, loss = mlp_program()
    copy = main.clone()
    assert str(copy) == str(main)
    assert copy.global_block().ops[0] is not main.global_block().ops[0]
    assert isinstance(copy.global_block().var("fc_0.w_0"), Parameter)
    copy.global_block().ops[0]._set_attr("trans_y", True)
    assert main.global_block().ops[0].attr("trans_y") is False
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": np.ones((2, 4), "float32"), "label": np.ones((2, 1), "int64")}
    np.testing.assert_array_equal(exe.run(main.clone(), feed=feed, fetch_list=[loss.name])[0],
                                  exe.run(main, feed=feed, fetch_list=[loss])[0])


# -- guards and names --------------------------------------------------------------------------
def test_program_guard_swaps_and_restores_nested():
    outer_main, outer_start = static.Program(), static.Program()
    inner_main = static.Program()
    original = default_main_program(), default_startup_program()
    with static.program_guard(outer_main, outer_start):
        assert default_main_program() is outer_main
        with static.program_guard(inner_main):
            assert default_main_program() is inner_main
            assert default_startup_program() is outer_start
        assert default_main_program() is outer_main
    assert (default_main_program(), default_startup_program()) == original
    with pytest.raises(TypeError, match="'main_program' in paddle.static.program_guard"):
        with static.program_guard("main"):
            pass
    with pytest.raises(TypeError, match="'startup_program'"):
        with static.program_guard(static.Program(), 3):
            pass


def test_unique_name_guard():
    assert unique_name.generate("fc") == "fc_0"
    assert unique_name.generate("fc") == "fc_1"
    with unique_name.guard():
        assert unique_name.generate("fc") == "fc_0"
    with unique_name.guard("A"):
        assert unique_name.generate("fc") == "Afc_0"
    assert unique_name.generate("fc") == "fc_2"


def test_identical_builds_print_identically_under_name_guards():
    with unique_name.guard():
        first = str(mlp_program()[0])
    with unique_name.guard():
        second = str(mlp_program()[0])
    assert first == second


# -- blocks, variables, operators ----------------------------------------------------------------
def test_block_var_lookup_errors():
    block = static.Program().global_block()
    with pytest.raises(TypeError, match="var require string as parameter"):
        block.var(3)
    with pytest.raises(ValueError, match="var nope not in this block"):
        block.var("nope")
    assert block._find_var_recursive("nope") is None
    with pytest.raises(ValueError, match="Var nope is not found recursively"):
        block._var_recursive("nope")


def test_sub_block_finds_parent_vars():
    program = static.Program()
    x = program.global_block().create_var(name="x", shape=[2], dtype="float32")
    sub = program._create_block()
    assert sub._find_var_recursive("x") is x and not sub.has_var("x")


def test_create_var_redefinition_rules():
    block = static.Program().global_block()
    x = block.create_var(name="x", shape=[2, 3], dtype="float32")
    assert block.create_var(name="x", shape=[2, 3]) is x
    with pytest.raises(ValueError, match="The previous shape is .*the new shape is .*They are "
                                         "not matched"):
        block.create_var(name="x", shape=[4])
    with pytest.raises(ValueError, match="The previous dtype"):
        block.create_var(name="x", dtype="int64")
    with pytest.raises(ValueError, match="The previous type"):
        block.create_var(name="x", type=VarType.SELECTED_ROWS)
    assert block.create_var().name.startswith("_generated_var_")


def test_parameter_requirements():
    block = static.Program().global_block()
    with pytest.raises(ValueError, match="The shape of Parameter should not be None"):
        Parameter(block, "p", None, "float32")
    with pytest.raises(ValueError, match="The dtype of Parameter should not be None"):
        Parameter(block, "p", [2], None)
    with pytest.raises(ValueError, match="Each dimension of shape for Parameter must be greater"):
        Parameter(block, "p", [-1, 2], "float32")
    p = block.create_parameter("p", [2], "float32", trainable=False)
    assert p.persistable and p.stop_gradient and p.is_parameter


def test_data_rejects_negative_dims_other_than_minus_one():
    with pytest.raises(ValueError, match="Only -1 can be used in shape to indicate unknown "
                                         "dimension, but received -2"):
        static.data("x", [-2, 3], "float32")


def test_variable_properties():
    x = static.data("x", [None, 3], "float32")
    assert x.shape == (-1, 3) and x.dtype == VarType.FP32 and x.stop_gradient and x.is_data
    assert x.need_check_feed and not x.persistable and x.grad_name == "x@GRAD"
    y = paddle.tanh(x)
    assert y.op.type == "tanh" and y.stop_gradient        # all inputs stop -> outputs stop
    op = y.op
    assert op.input("X") == ["x"] and op.output("Out") == [y.name] and op.idx == 0
    assert op.attr_names == sorted(op.attrs) and op.has_attr("op_role")
    assert not op._is_backward_op() and not op._is_optimize_op()


@pytest.mark.parametrize("expr, op_type, expected", [
    (lambda x, y: x + y, "elementwise_add", lambda a, b: a + b),
    (lambda x, y: x - y, "elementwise_sub", lambda a, b: a - b),
    (lambda x, y: x * y, "elementwise_mul", lambda a, b: a * b),
    (lambda x, y: x / y, "elementwise_div", lambda a, b: a / b),
    (lambda x, y: x @ y, "matmul_v2", lambda a, b: a @ b),
    (lambda x, y: x == y, "equal", lambda a, b: a == b),
    (lambda x, y: x != y, "not_equal", lambda a, b: a != b),
    (lambda x, y: x < y, "less_than", lambda a, b: a < b),
    (lambda x, y: x <= y, "less_equal", lambda a, b: a <= b),
    (lambda x, y: x > y, "greater_than", lambda a, b: a > b),
    (lambda x, y: x >= y, "greater_equal", lambda a, b: a >= b),
])
def test_variable_operators_append_ops(expr, op_type, expected):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [3, 3], "float32")
        y = static.data("y", [3, 3], "float32")
        out = expr(x, y)
    assert isinstance(out, Variable) and out.op.type == op_type
    assert main.global_block().ops[-1] is out.op
    rng = np.random.default_rng(5)
    a = rng.integers(-2, 3, (3, 3)).astype("float32")
    b = rng.integers(1, 3, (3, 3)).astype("float32")
    (got,) = static.Executor().run(main, feed={"x": a, "y": b}, fetch_list=[out])
    np.testing.assert_allclose(got, expected(a, b), rtol=1e-6)


def test_scalar_operands_use_scale_like_paddle():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        outs = [x + 1.0, 1.0 + x, x - 2, 3 - x, x * 4, np.float32(4) * x, x / 2, 2 / x, -x]
    types = [o.op.type for o in outs]
    assert types == ["scale"] * 7 + ["elementwise_div", "scale"]
    assert outs[3].op.attr("scale") == -1.0 and outs[3].op.attr("bias") == 3.0
    a = np.array([1.0, 2.0], "float32")
    got = static.Executor().run(main, feed={"x": a}, fetch_list=outs)
    for value, expected in zip(got, [a + 1, 1 + a, a - 2, 3 - a, a * 4, 4 * a, a / 2, 2 / a, -a]):
        np.testing.assert_allclose(value, expected, rtol=1e-6)


def test_numpy_array_on_the_left_defers_to_the_variable():
    x = static.data("x", [2], "float32")
    with pytest.raises(TypeError):
        np.ones(2) + x


# -- golden printouts ----------------------------------------------------------------------------
def test_golden_mlp_printout():
    main, startup, _ = mlp_program()
    check_golden("mlp_main", str(main))
    check_golden("mlp_startup", str(startup))


def test_golden_printout_of_roles_blocks_and_lists():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2, 3], "float32")
        y = paddle.add_n([x, x, x])
        with main._backward_role_guard():
            paddle.concat([x, y], axis=-1)
        with main._optimized_guard(["x", "x@GRAD"]):
            paddle.scale(x, 0.5)
        sub = main._create_block()
        sub.append_op(type="relu", inputs={"X": y}, outputs={"Out": sub.create_var(name="r")})
        main._rollback()
    check_golden("roles_and_blocks", str(main))


@needs_shared
def test_golden_printout_of_a_paddle_model():
    program = program_from_bytes(open(f"{FIXTURES}/norm_mix.pdmodel", "rb").read())
    check_golden("paddle_norm_mix", str(program))
    check_golden("paddle_norm_mix_full", program_to_text(program, full=True))
