"""Regression tests from a correctness review of the core (framework/, executor/): each
test failed before its fix."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework.operator import Operator
from pyfluid.framework.program import Program
from pyfluid.ops.registry import ROLE_BACKWARD, ROLE_LOSS
from pyfluid.ops.types import AttrType, VarType
from pyfluid.proto import framework_pb2


def one_op_program(attr_value, attr_type):
    program = Program()
    block = program.global_block()
    x = block.create_var(name="x", shape=[1], dtype="float32")
    op = block.append_op("scale", {"X": x}, {"Out": block.create_var(name="y")}, {})
    op._set_attr("s", attr_value, attr_type)
    return program


def round_trip_attr(attr_value, attr_type):
    data = one_op_program(attr_value, attr_type).desc.serialize_to_string()
    op = Program.parse_from_string(data).global_block().ops[0]
    return op.attrs["s"], op.attr_type("s")


def test_scalar_attrs_keep_their_kind_whatever_was_serialized_before():
    # True == 1 == 1.0 as memo keys: the encoder once wrote all three as the first one seen
    for attr_type, values in [(AttrType.SCALAR, [1, True, 1.0]),
                              (AttrType.SCALARS, [[1], [True], [1.0]])]:
        for value in values:
            got, got_type = round_trip_attr(value, attr_type)
            assert got == value and got_type == attr_type
            first = got[0] if attr_type == AttrType.SCALARS else got
            expected = value[0] if attr_type == AttrType.SCALARS else value
            assert type(first) is type(expected)


def mlp_with_sgd():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [4, 3], "float32")
        loss = paddle.mean(static.nn.fc(x, 2))
        paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)
    weight = next(p for p in main.all_parameters() if p.name.endswith(".w_0"))
    return main, startup, weight, {"x": np.ones((4, 3), "float32")}


def test_clone_keeps_a_parameters_own_stop_gradient_and_flags():
    main, _, weight, _ = mlp_with_sgd()
    weight.stop_gradient = True                       # frozen, still "trainable" as in Paddle
    weight.do_model_average, weight.is_distributed = True, True
    for copy in (main.clone(), main.clone(for_test=True)):
        cloned = copy.global_block().var(weight.name)
        assert cloned.stop_gradient and cloned.do_model_average and cloned.is_distributed


@pytest.mark.parametrize("passes", [True, False])
def test_a_persistable_view_of_a_parameter_is_not_changed_by_its_update(passes):
    main, startup, weight, feed = mlp_with_sgd()
    block = main.global_block()
    block.create_var(name="snapshot", shape=[3, 2], dtype="float32", persistable=True)
    block._insert_op(0, "reshape2", {"X": weight}, {"Out": "snapshot", "XShape": "snapshot_xs"},
                     {"shape": [3, 2]})
    block.create_var(name="snapshot_xs")
    strategy = static.BuildStrategy()
    strategy.enable_passes = passes
    scope, exe = static.Scope(), static.Executor()
    exe.run(startup, scope=scope)
    before = np.array(scope.find_var(weight.name).get_tensor()).copy()
    for _ in range(2):
        snapshot = np.array(scope.find_var(weight.name).get_tensor()).copy()
        exe.run(static.CompiledProgram(main, build_strategy=strategy), feed=feed, scope=scope)
        np.testing.assert_array_equal(np.array(scope.find_var("snapshot").get_tensor()), snapshot)
    assert not np.array_equal(np.array(scope.find_var(weight.name).get_tensor()), before)


def test_persistables_live_in_the_root_scope_when_run_in_a_kid_scope():
    main, startup, weight, feed = mlp_with_sgd()
    root = static.Scope()
    kid = root.new_scope()
    exe = static.Executor()
    exe.run(startup, scope=kid)
    assert root.find_var(weight.name) is not None and kid.local_var_names() == []
    before = np.array(root.find_var(weight.name).get_tensor()).copy()
    exe.run(main, feed=feed, scope=kid)
    assert not np.array_equal(np.array(root.find_var(weight.name).get_tensor()), before)
    assert kid.local_var_names() == []


def test_a_fed_persistable_keeps_the_fed_value_in_the_scope():
    main, startup = static.Program(), static.Program()
    for program in (main, startup):
        program.global_block().create_var(name="rate", shape=[1], dtype="float32",
                                          persistable=True)
    startup.global_block().append_op("fill_constant", {}, {"Out": "rate"},
                                     {"shape": [1], "value": 0.1, "dtype": 5})
    with static.program_guard(main, startup):
        doubled = main.global_block().var("rate") * 2.0
    scope, exe = static.Scope(), static.Executor()
    exe.run(startup, scope=scope)
    fed = np.array([5.0], "float32")
    assert exe.run(main, feed={"rate": fed}, fetch_list=[doubled], scope=scope)[0][0] == 10.0
    fed[0] = -1.0                                      # the scope holds a copy
    np.testing.assert_array_equal(np.array(scope.find_var("rate").get_tensor()), [5.0])
    assert exe.run(main, fetch_list=[doubled], scope=scope)[0][0] == 10.0


def test_gradient_through_an_op_writing_its_own_input():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [3], "float32")
        x.stop_gradient = False
        y = paddle.scale(x, 2.0)
        early = paddle.sum(paddle.nn.functional.relu(y))      # reads y before the update
        main.global_block().append_op("elementwise_add", {"X": y, "Y": x}, {"Out": y})
        loss = paddle.sum(y * y) + early
        grad, = static.gradients([loss], [x])
    xv = np.array([1.0, 2.0, 3.0], "float32")
    got, = static.Executor().run(main, feed={"x": xv}, fetch_list=[grad])
    # loss = sum((3x)^2) + sum(relu(2x)): d/dx = 18x + 2
    np.testing.assert_allclose(got, 18 * xv + 2)


def test_fetched_values_never_alias_a_folded_constant_or_a_feed():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2, 3], "float32")
        part = paddle.mean(static.nn.fc(x, 1))
        loss = part + part * 0.5
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    block = main.global_block()
    # elementwise_add_grad hands its Out@GRAD (the folded seed) on unchanged
    name = next(n for n in block.vars if n.startswith(part.name + "@GRAD@RENAME"))
    scope, exe = static.Scope(), static.Executor()
    exe.run(startup, scope=scope)
    feed = {"x": np.ones((2, 3), "float32")}
    first, = exe.run(main, feed=feed, fetch_list=[name], scope=scope)
    first[...] = 100.0
    again, = exe.run(main, feed=feed, fetch_list=[name], scope=scope)
    np.testing.assert_array_equal(again, np.ones_like(again))


def test_fetch_of_an_identity_gradient_of_a_fed_target_gradient_is_a_copy():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [3], "float32")
        x.stop_gradient = False
        seed = static.data("seed", [3], "float32")
        y = x + x * 0.0
        grad, = static.gradients([y], [x], target_gradients=[seed])
        part = next(n for n in main.global_block().vars if n.startswith("x@GRAD@RENAME"))
    fed = np.arange(3, dtype="float32")
    got, = static.Executor().run(main, feed={"x": fed, "seed": fed}, fetch_list=[part])
    assert not np.shares_memory(got, fed)


# -- serialization: random programs round-trip bit for bit ----------------------------------------
INT32, INT64 = st.integers(-2**31, 2**31 - 1), st.integers(-2**63, 2**63 - 1)
FLOAT32 = st.floats(width=32, allow_nan=False)
FLOAT64 = st.floats(allow_nan=False)
TEXT = st.text(max_size=6)
SCALAR = st.one_of(st.booleans(), INT64, FLOAT64,
                   st.builds(complex, FLOAT64, FLOAT64))
ATTR_VALUES = {
    AttrType.INT: INT32, AttrType.LONG: INT64, AttrType.FLOAT: FLOAT32, AttrType.FLOAT64: FLOAT64,
    AttrType.STRING: TEXT, AttrType.BOOLEAN: st.booleans(), AttrType.BLOCK: st.integers(0, 2),
    AttrType.VAR: TEXT, AttrType.SCALAR: SCALAR,
    AttrType.INTS: st.lists(INT32, max_size=3), AttrType.LONGS: st.lists(INT64, max_size=3),
    AttrType.FLOATS: st.lists(FLOAT32, max_size=3), AttrType.FLOAT64S: st.lists(FLOAT64, max_size=3),
    AttrType.STRINGS: st.lists(TEXT, max_size=3), AttrType.BOOLEANS: st.lists(st.booleans(), max_size=3),
    AttrType.BLOCKS: st.lists(st.integers(0, 2), max_size=3), AttrType.VARS: st.lists(TEXT, max_size=3),
    AttrType.SCALARS: st.lists(SCALAR, max_size=3),
}
ATTR = st.sampled_from(sorted(ATTR_VALUES)).flatmap(
    lambda t: st.tuples(st.just(t), ATTR_VALUES[t]))
VAR = st.fixed_dictionaries({
    "kind": st.sampled_from(["tensor", "parameter", "feed", "array"]),
    "shape": st.lists(st.integers(-1, 9), max_size=3),
    "dtype": st.sampled_from([VarType.FP32, VarType.INT64, VarType.BOOL, VarType.FP16]),
    "persistable": st.booleans(), "stop_gradient": st.booleans(),
    "need_check_feed": st.booleans(), "lod_level": st.sampled_from([None, 0, 1]),
})
OP = st.fixed_dictionaries({
    "type": st.sampled_from(["custom_a", "while", "my.op"]),
    "slots": st.dictionaries(st.sampled_from(["X", "Y", "Out"]), st.lists(TEXT, max_size=2),
                             max_size=3),
    "attrs": st.dictionaries(st.text(min_size=1, max_size=5), ATTR, max_size=6),
    "is_target": st.booleans(),
})
BLOCK = st.tuples(st.lists(VAR, max_size=4), st.lists(OP, max_size=3))


def build_program(blocks) -> Program:
    program = Program()
    for index, (variables, ops) in enumerate(blocks):
        block = program.global_block() if index == 0 else program._create_block(index - 1)
        for j, spec in enumerate(variables):
            name = f"v{index}_{j}"
            if spec["kind"] == "parameter":
                var = block.create_parameter(name, [abs(d) for d in spec["shape"]], spec["dtype"])
                var.stop_gradient = spec["stop_gradient"]
                continue
            kind = {"tensor": VarType.LOD_TENSOR, "feed": VarType.FEED_MINIBATCH,
                    "array": VarType.LOD_TENSOR_ARRAY}[spec["kind"]]
            tensor = kind != VarType.FEED_MINIBATCH
            block.create_var(name=name, type=kind, shape=spec["shape"] if tensor else None,
                             dtype=spec["dtype"] if tensor else None,
                             persistable=spec["persistable"], stop_gradient=spec["stop_gradient"],
                             need_check_feed=spec["need_check_feed"],
                             lod_level=spec["lod_level"] if tensor else None)
        for spec in ops:
            attrs = {name: value for name, (_, value) in spec["attrs"].items()}
            types = {name: t for name, (t, _) in spec["attrs"].items()}
            inputs = {k: v for k, v in spec["slots"].items() if k != "Out"}
            outputs = {k: v for k, v in spec["slots"].items() if k == "Out"}
            block.ops.append(Operator(block, spec["type"], inputs, outputs, attrs, types,
                                      spec["is_target"]))
        program._rollback()
    return program


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(BLOCK, min_size=1, max_size=3))
def test_random_programs_round_trip_bit_for_bit(blocks):
    program = build_program(blocks)
    data = program.desc.serialize_to_string()
    reference = framework_pb2.ProgramDesc()
    reference.ParseFromString(data)
    assert reference.SerializeToString() == data            # what protobuf itself writes
    parsed = Program.parse_from_string(data)
    assert parsed.desc.serialize_to_string() == data
    assert parsed.clone().desc.serialize_to_string() == data
    for block, twin in zip(program.blocks, parsed.blocks):
        for op, back in zip(block.ops, twin.ops):
            assert back.attrs == op.attrs
            for name, value in op.attrs.items():
                assert back.attr_type(name) == op.attr_type(name)
                got = back.attrs[name]
                pairs = zip(got, value) if isinstance(value, list) else [(got, value)]
                assert all(type(a) is type(b) for a, b in pairs), name
        for name, var in block.vars.items():
            again = twin.vars[name]
            assert (again.stop_gradient, again.persistable, again.is_parameter) == (
                var.stop_gradient, var.persistable, var.is_parameter)


def test_clone_for_test_keeps_outer_vars_that_only_a_sub_block_reads():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        main.global_block().create_var(name="outer", shape=[2], dtype="float32")
        sub = main._create_block()
        inner = sub.create_var(name="inner", shape=[2], dtype="float32")
        sub.ops.append(Operator(sub, "custom_body", {"X": ["outer"]}, {"Out": ["inner"]}, {}))
        main._rollback()
        gblock = main.global_block()
        gblock.ops.append(Operator(gblock, "custom_loop", {"X": [x.name]}, {"Out": []},
                                   {"sub_block": sub.idx}, {"sub_block": AttrType.BLOCK}))
        gblock.append_op("fill_constant", {}, {"Out": "seed@GRAD"},
                         {"shape": [1], "value": 1.0, "dtype": 5, "op_role": ROLE_BACKWARD | ROLE_LOSS})
    test = main.clone(for_test=True)
    assert test.global_block().has_var("outer") and not test.global_block().has_var("seed@GRAD")
    assert test.block(1).has_var(inner.name)
    assert [op.type for op in test.global_block().ops] == ["custom_loop"]


def test_gradient_through_an_op_taking_its_output_twice_in_place():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [3], "float32")
        x.stop_gradient = False
        y = paddle.scale(x, 3.0)
        main.global_block().append_op("elementwise_add", {"X": y, "Y": y}, {"Out": y})
        grad, = static.gradients([paddle.sum(y * y)], [x])
    xv = np.array([1.0, 2.0, -3.0], "float32")
    got, = static.Executor().run(main, feed={"x": xv}, fetch_list=[grad])
    np.testing.assert_allclose(got, 72 * xv)                 # d/dx (6x)^2
